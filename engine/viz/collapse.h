// How a large picture is shown with its groups closed or open: an overview laid out as a whole
// (ungrouped nodes and one node per group), each open group's own picture (laid out inside its
// frame), and the flat list of everything on screen. The GUI draws exactly `visible`, and
// `export --format json` lists it, so the two can be compared item for item.
#pragma once
#include <map>
#include <set>
#include <vector>

#include "engine/viz/picture.h"

namespace ks::viz {

// The nodes of one group with the clusters they sit in and the edges between them.
struct GroupPart {
  Picture picture;
  std::vector<int> members;  // part node -> full node
};
GroupPart groupPart(const Picture& full, int group);

// Where an on-screen node comes from.
struct ShownNode {
  int overviewNode = -1;  // the overview node it is (or, for a member of an open group, sits inside)
  int group = -1;         // a group box, an open group's frame, or a member of an open group
  int member = -1;        // node of the open group's part; -1 for overview nodes
  int fullNode = -1;      // node of the full picture; -1 for group boxes and frames
};
// Where an on-screen edge comes from: an overview edge (group -1) or an edge of an open group's part.
struct ShownEdge {
  int group = -1;
  int edge = 0;
};

struct CollapsedView {
  bool collapsed = false;              // false: the overview is the full picture
  Picture overview;
  std::vector<int> overviewOfNode;     // full node -> overview node
  std::vector<int> overviewGroup;      // overview node -> group, or -1
  std::vector<int> overviewFull;       // overview node -> full node, or -1
  std::vector<int> groupSize;          // nodes in each group
  std::map<int, GroupPart> open;       // open group -> its part
  Picture visible;                     // on screen: nodes, frames of open groups, edges
  std::vector<ShownNode> shownNodes;   // one per visible node
  std::vector<ShownEdge> shownEdges;   // one per visible edge
  int hidden = 0;                      // full nodes inside closed groups
};

// Collapses `full` when it opensCollapsed(), with the groups in `open` shown open.
CollapsedView collapse(const Picture& full, const std::set<int>& open);

}  // namespace ks::viz
