// collapse: the overview of closed groups, the parts of open ones, and the flat on-screen list.
#include "engine/viz/collapse.h"

#include <utility>

namespace ks::viz {

GroupPart groupPart(const Picture& full, int group) {
  GroupPart part;
  part.picture.name = full.name;
  std::vector<int> partIndex(full.nodes.size(), -1);
  std::map<int, int> clusterMap;
  for (int i = 0; i < static_cast<int>(full.nodes.size()); ++i) {
    if (full.groupOfNode(i) != group) continue;
    partIndex[i] = static_cast<int>(part.picture.nodes.size());
    Node node = full.nodes[i];
    auto [it, inserted] = clusterMap.emplace(node.cluster, static_cast<int>(part.picture.clusters.size()));
    if (inserted) {
      part.picture.clusters.push_back(full.clusters[node.cluster]);
      part.picture.clusters.back().group = -1;
    }
    node.cluster = it->second;
    part.picture.nodes.push_back(std::move(node));
    part.members.push_back(i);
  }
  for (const Edge& e : full.edges)
    if (partIndex[e.from] >= 0 && partIndex[e.to] >= 0) {
      Edge inner = e;
      inner.from = partIndex[e.from];
      inner.to = partIndex[e.to];
      part.picture.edges.push_back(std::move(inner));
    }
  return part;
}

namespace {

Node groupNode(const Group& g, int index, int size, bool open) {
  Node n;
  n.id = g.id;
  n.label = open ? g.label : g.label + "\n" + std::to_string(size) + " nodes";
  n.tooltip = (g.tooltip.empty() ? g.label : g.tooltip) + "\n" + std::to_string(size) + " nodes";
  n.style = Style::Group;
  n.subject = {SubjectKind::Group, static_cast<uint32_t>(index)};
  return n;
}

// Ungrouped nodes as they are, every group as one node; edges merged between them.
void buildOverview(const Picture& full, CollapsedView& v, const std::set<int>& open) {
  const int n = static_cast<int>(full.nodes.size());
  v.overview.name = full.name;
  v.overview.title = full.title;
  v.overview.clusters = full.clusters;
  v.overviewOfNode.assign(n, -1);
  std::vector<int> groupNodeOf(full.groups.size(), -1);
  for (int i = 0; i < n; ++i) {
    const int g = full.groupOfNode(i);
    if (g < 0) {
      v.overviewOfNode[i] = static_cast<int>(v.overview.nodes.size());
      v.overview.nodes.push_back(full.nodes[i]);
      v.overviewGroup.push_back(-1);
      v.overviewFull.push_back(i);
      continue;
    }
    if (groupNodeOf[g] < 0) {
      groupNodeOf[g] = static_cast<int>(v.overview.nodes.size());
      v.overview.nodes.push_back(groupNode(full.groups[g], g, v.groupSize[g], open.count(g) > 0));
      v.overviewGroup.push_back(g);
      v.overviewFull.push_back(-1);
    }
    v.overviewOfNode[i] = groupNodeOf[g];
  }
  std::map<std::pair<int, int>, int> merged;
  for (const Edge& e : full.edges) {
    const int a = v.overviewOfNode[e.from], b = v.overviewOfNode[e.to];
    if (a == b || e.weak) continue;
    merged[{a, b}] += e.count;
  }
  for (const auto& [ab, count] : merged) {
    Edge e;
    e.from = ab.first;
    e.to = ab.second;
    e.count = count;
    v.overview.edges.push_back(e);
  }
}

// Overview nodes in order; an open group's frame is followed by its members.
void buildVisible(const Picture& full, CollapsedView& v) {
  v.visible.name = v.overview.name;
  v.visible.title = v.overview.title;
  v.visible.clusters = v.overview.clusters;
  std::vector<int> visibleOfOverview(v.overview.nodes.size(), -1);
  for (int i = 0; i < static_cast<int>(v.overview.nodes.size()); ++i) {
    const int g = v.overviewGroup[i];
    visibleOfOverview[i] = static_cast<int>(v.visible.nodes.size());
    v.visible.nodes.push_back(v.overview.nodes[i]);
    v.shownNodes.push_back({i, g, -1, v.overviewFull[i]});
    auto it = v.open.find(g);
    if (g < 0 || it == v.open.end()) continue;
    const GroupPart& part = it->second;
    const int first = static_cast<int>(v.visible.nodes.size());
    for (int k = 0; k < static_cast<int>(part.members.size()); ++k) {
      v.visible.nodes.push_back(full.nodes[part.members[k]]);  // keeps its cluster of the full picture
      v.shownNodes.push_back({i, g, k, part.members[k]});
    }
    for (int e = 0; e < static_cast<int>(part.picture.edges.size()); ++e) {
      Edge inner = part.picture.edges[e];
      inner.from += first;
      inner.to += first;
      v.visible.edges.push_back(inner);
      v.shownEdges.push_back({g, e});
    }
  }
  for (int e = 0; e < static_cast<int>(v.overview.edges.size()); ++e) {
    Edge outer = v.overview.edges[e];
    outer.from = visibleOfOverview[outer.from];
    outer.to = visibleOfOverview[outer.to];
    v.visible.edges.push_back(outer);
    v.shownEdges.push_back({-1, e});
  }
}

}  // namespace

CollapsedView collapse(const Picture& full, const std::set<int>& open) {
  CollapsedView v;
  v.collapsed = full.opensCollapsed();
  if (!v.collapsed) {
    v.overview = full;
    v.visible = full;
    const int n = static_cast<int>(full.nodes.size());
    for (int i = 0; i < n; ++i) {
      v.overviewOfNode.push_back(i);
      v.overviewGroup.push_back(-1);
      v.overviewFull.push_back(i);
      v.shownNodes.push_back({i, -1, -1, i});
    }
    for (int e = 0; e < static_cast<int>(full.edges.size()); ++e) v.shownEdges.push_back({-1, e});
    return v;
  }
  v.groupSize.assign(full.groups.size(), 0);
  for (int i = 0; i < static_cast<int>(full.nodes.size()); ++i)
    if (const int g = full.groupOfNode(i); g >= 0) ++v.groupSize[g];
  for (int g : open)
    if (g >= 0 && g < static_cast<int>(full.groups.size())) v.open.emplace(g, groupPart(full, g));
  for (int g = 0; g < static_cast<int>(full.groups.size()); ++g)
    if (!v.open.count(g)) v.hidden += v.groupSize[g];
  std::set<int> openGroups;
  for (const auto& [g, part] : v.open) openGroups.insert(g);
  buildOverview(full, v, openGroups);
  buildVisible(full, v);
  return v;
}

}  // namespace ks::viz
