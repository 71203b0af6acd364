// A small, engine-free description of a graph to draw: nodes (label, size, cluster), edges,
// clusters and the groups large graphs collapse into. Every graph view is fed one of these.
#pragma once
#include <QColor>
#include <QString>
#include <vector>

namespace ks {

struct GraphModel {
  // How a node is drawn; views map engine objects onto these.
  enum class Style : uint8_t { Plain, Leaf, Output, Alternative, Chosen, Group, Copy };

  struct Node {
    QString label;        // first line is drawn bold at every level of detail
    QString tooltip;      // always set: every node says what it is
    double width = 90;    // scene units (points, 1/72 in, as Graphviz uses)
    double height = 30;
    int cluster = -1;     // index into clusters, or -1
    Style style = Style::Plain;
    uint32_t key = 0;     // the engine object it stands for (node id, kernel id, ...)
    bool highlighted = false;
  };
  struct Edge {
    int from = 0;  // node indices
    int to = 0;
    int count = 1;  // edges merged into this one (collapsed views)
    QString label;
    // Left out of collapsed overviews: e.g. a shared scalar constant feeding every group would
    // add an edge across the whole picture to each of them (and make dot very slow).
    bool weak = false;
  };
  struct Cluster {
    QString label;
    QString tooltip;
    int group = -1;  // index into groups, or -1 (never collapsed)
    uint32_t key = 0;  // e.g. the e-class id
    bool highlighted = false;
  };
  struct Group {
    QString label;  // "classes 120-159"
    QString tooltip;
  };

  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<Cluster> clusters;
  std::vector<Group> groups;

  int groupOfNode(int n) const {
    int c = nodes[n].cluster;
    return c < 0 ? -1 : clusters[c].group;
  }
  // Sets width/height of every node from its label (bold first line, plain further lines).
  void sizeNodesFromLabels();
  // Graphviz DOT text for the whole model (clusters as subgraph cluster_N); the DOT export.
  QString toDot(const QString& graphName = "G") const;
};

}  // namespace ks
