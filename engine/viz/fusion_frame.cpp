// fusionFramePicture: the steps' pictures merged by node id (see fusion_frame.h).
#include "engine/viz/fusion_frame.h"

#include <map>
#include <unordered_map>

#include "engine/viz/fusion_picture.h"

namespace ks::viz {

namespace {
// Merges pictures into one, a later picture's node or edge replacing an earlier one of its id.
class FrameBuilder {
 public:
  void add(const Picture& p) {
    std::vector<int> at(p.nodes.size());
    for (std::size_t i = 0; i < p.nodes.size(); ++i) at[i] = addNode(p, p.nodes[i]);
    for (const Edge& e : p.edges) {
      Edge u = e;
      u.from = at[e.from];
      u.to = at[e.to];
      auto [it, fresh] = edgeAt_.try_emplace({u.from, u.to}, int(out_.edges.size()));
      if (fresh) out_.edges.push_back(u);
      else out_.edges[it->second] = u;
    }
  }
  Picture take() { return std::move(out_); }

 private:
  int addNode(const Picture& p, Node n) {
    n.highlighted = false;
    n.cluster = n.cluster < 0 ? -1 : clusterOf(p.clusters[n.cluster]);
    auto [it, fresh] = nodeAt_.try_emplace(n.id, int(out_.nodes.size()));
    if (fresh) out_.nodes.push_back(std::move(n));
    else out_.nodes[it->second] = std::move(n);
    return it->second;
  }
  int clusterOf(const Cluster& c) {
    auto [it, fresh] = clusterAt_.try_emplace(c.id, int(out_.clusters.size()));
    Cluster u = c;
    u.highlighted = false;
    if (fresh) out_.clusters.push_back(std::move(u));
    else out_.clusters[it->second] = std::move(u);
    return it->second;
  }
  Picture out_;
  std::unordered_map<std::string, int> nodeAt_, clusterAt_;
  std::map<std::pair<int, int>, int> edgeAt_;
};
}  // namespace

Picture fusionFramePicture(const FusionTrace& trace, const Graph* graph) {
  FrameBuilder b;
  TraceState state;
  for (const FusionStep& step : trace.steps) {
    step.diff.applyTo(state);
    b.add(fusionStatePicture(state, &step, graph));
  }
  Picture p = b.take();
  p.name = "fusion";
  p.title = "every fusion step";
  // Clusters no node ends in (a kernel whose members all moved on) would be empty boxes.
  std::vector<int> used(p.clusters.size(), 0);
  for (const Node& n : p.nodes)
    if (n.cluster >= 0) used[n.cluster] = 1;
  std::vector<int> renumber(p.clusters.size(), -1);
  std::vector<Cluster> kept;
  for (std::size_t c = 0; c < p.clusters.size(); ++c)
    if (used[c]) {
      renumber[c] = int(kept.size());
      kept.push_back(std::move(p.clusters[c]));
    }
  p.clusters = std::move(kept);
  for (Node& n : p.nodes)
    if (n.cluster >= 0) n.cluster = renumber[n.cluster];
  return p;
}

}  // namespace ks::viz
