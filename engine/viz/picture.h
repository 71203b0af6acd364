// Picture: one stage drawn as nodes, edges, clusters and groups with labels and styles. The one
// model the CLI renders (DOT, SVG, PNG, JSON) and the GUI's graph views turn into Qt items.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks::viz {

// How a node is drawn. Both renderers (DOT and Qt) map a style onto the same palette.
enum class Style : uint8_t { Plain, Leaf, Output, Alternative, Chosen, Group, Copy, Gemm };
inline constexpr int kNumStyles = 8;
std::string_view styleName(Style s);  // "chosen"

// Fill and border colours of a style, "#rrggbb".
struct Palette {
  const char* fill;
  const char* border;
};
Palette paletteOf(Style s);
inline constexpr const char* kHighlightColor = "#d9480f";

// The engine object a node or cluster stands for, so a click maps back to it.
enum class SubjectKind : uint8_t { None, ENode, EClass, Kernel, PlanStep, PlanOutput, Group };
std::string_view subjectKindName(SubjectKind k);

struct Subject {
  SubjectKind kind = SubjectKind::None;
  uint32_t id = 0;
  bool operator==(const Subject&) const = default;
};

struct Node {
  // Unique in the picture and derived from engine ids only, so the same object keeps its id
  // across fusion steps and recompiles of the same program (views pin positions by it).
  std::string id;
  std::string label;  // lines joined by '\n'; the first line is the title
  std::string tooltip;
  Style style = Style::Plain;
  int cluster = -1;  // index into clusters, or -1
  Subject subject;
  bool highlighted = false;
};

struct Edge {
  int from = 0;  // node indices; data flows from -> to
  int to = 0;
  int count = 1;  // edges merged into this one (collapsed overviews)
  std::string label;
  // Left out of collapsed overviews: e.g. a shared scalar constant feeding every group would
  // draw an edge across the whole picture to each of them.
  bool weak = false;
  bool memory = false;  // through memory (a store read back by a load), drawn dashed
};

struct Cluster {
  std::string id;
  std::string label;
  std::string tooltip;
  int group = -1;  // index into groups, or -1 (never collapsed)
  Subject subject;
  bool highlighted = false;
};

// A set of clusters (and their nodes) that a large picture shows as one box until opened.
struct Group {
  std::string id;
  std::string label;
  std::string tooltip;
};

// Pictures with more nodes than this (and with groups) open collapsed.
inline constexpr int kCollapseThreshold = 400;

struct Picture {
  std::string name;   // "egraph", "fusion", "plan"
  std::string title;  // one line saying what is shown ("after step 12: merge")
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<Cluster> clusters;
  std::vector<Group> groups;

  int groupOfNode(int n) const {
    const int c = nodes[static_cast<std::size_t>(n)].cluster;
    return c < 0 ? -1 : clusters[static_cast<std::size_t>(c)].group;
  }
  bool opensCollapsed() const { return !groups.empty() && static_cast<int>(nodes.size()) > kCollapseThreshold; }
  // Index of the node with this id, or -1.
  int findNode(std::string_view id) const;
  // Index of the first node standing for `s`, or -1.
  int findSubject(Subject s) const;
};

// "%12": a class id as dumps and labels print it.
std::string classRef(uint32_t cls);
// "1.25 ms", "830.0 us", "120 ns".
std::string durationText(double ns);

}  // namespace ks::viz
