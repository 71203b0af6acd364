// fusionStatePicture: kernels as clusters, loads and computed classes as nodes.
#include "engine/viz/fusion_picture.h"

#include <algorithm>
#include <map>
#include <set>

namespace ks::viz {

namespace {
std::string classTitle(const Graph* g, uint32_t c) {
  std::string s = classRef(c);
  if (g && c < g->classCount() && !g->eclass(ClassId(c)).nodes.empty()) s += " " + g->node(g->eclass(ClassId(c)).nodes.front()).label();
  return s;
}

std::string kernelName(int32_t id) { return "K" + std::to_string(id); }

Cluster kernelCluster(int32_t id, const KernelState& k, bool changed) {
  Cluster c;
  c.id = kernelName(id);
  c.subject = {SubjectKind::Kernel, static_cast<uint32_t>(id)};
  c.label = kernelName(id) + " \u00b7 " + std::to_string(k.opCount) + " ops";
  c.tooltip = "kernel " + kernelName(id) + ": " + std::to_string(k.classes.size()) + " classes, " +
              std::to_string(k.loads.size()) + " loads, " + std::to_string(k.stores.size()) + " stores, " +
              std::to_string(k.opCount) + " ops" + (changed ? "\nchanged by this step" : "");
  c.highlighted = changed;
  return c;
}

// Builds the nodes and edges of one kernel; remembers where classes are stored and loaded.
struct KernelNodes {
  Picture& p;
  const Graph* graph;
  const FusionStep* step;
  std::set<std::string>& ids;
  std::map<uint32_t, int>& storedAt;
  std::vector<std::pair<uint32_t, int>>& loadNodes;

  void add(int32_t id, const KernelState& k, int cluster) {
    std::map<uint32_t, int> local;  // class -> its node inside this kernel
    for (uint32_t l : k.loads) {
      if (local.count(l)) continue;
      Node n;
      n.id = kernelName(id) + "/load c" + std::to_string(l);
      n.label = "load " + classTitle(graph, l);
      n.tooltip = kernelName(id) + " loads class " + classRef(l) + " from memory";
      n.cluster = cluster;
      n.style = Style::Leaf;
      n.subject = {SubjectKind::EClass, l};
      local[l] = static_cast<int>(p.nodes.size());
      loadNodes.emplace_back(l, local[l]);
      p.nodes.push_back(std::move(n));
    }
    const std::set<uint32_t> stores(k.stores.begin(), k.stores.end());
    for (uint32_t cls : k.classes) addClass(id, cls, stores.count(cls) > 0, cluster, local);
  }

  void addClass(int32_t id, uint32_t cls, bool stored, int cluster, std::map<uint32_t, int>& local) {
    Node n;
    n.id = "c" + std::to_string(cls);
    if (!ids.insert(n.id).second) n.id += "@" + kernelName(id);
    n.label = classTitle(graph, cls);
    if (graph && cls < graph->classCount()) n.label += "\n" + std::string(dtypeName(graph->dtype(ClassId(cls)))) + shapeStr(graph->shape(ClassId(cls)));
    n.tooltip = "class " + classRef(cls) + " computed in " + kernelName(id) + (stored ? ", stored" : "");
    n.cluster = cluster;
    n.style = stored ? Style::Output : Style::Plain;
    n.subject = {SubjectKind::EClass, cls};
    n.highlighted = step && (cls == step->cls || cls == step->subject);
    const int ni = static_cast<int>(p.nodes.size());
    p.nodes.push_back(std::move(n));
    if (graph && cls < graph->classCount() && !graph->eclass(ClassId(cls)).nodes.empty()) {
      std::set<int> from;
      for (ClassId in : graph->structural(ClassId(cls)).in) {
        auto it = local.find(in.v);
        if (it == local.end() || !from.insert(it->second).second) continue;
        Edge e;
        e.from = it->second;
        e.to = ni;
        p.edges.push_back(e);
      }
    }
    local[cls] = ni;
    if (stored) storedAt[cls] = ni;
  }
};
}  // namespace

Picture fusionStatePicture(const TraceState& state, const FusionStep* step, const Graph* graph) {
  Picture p;
  p.name = "fusion";
  if (step) p.title = "after step " + std::to_string(step->index) + ": " + std::string(fusionActionName(step->action)) + " \u2014 " + step->reason;
  std::set<int32_t> changed;
  if (step)
    for (const auto& [k, ks] : step->diff.set) changed.insert(k);
  std::set<std::string> ids;
  std::map<uint32_t, int> storedAt;
  std::vector<std::pair<uint32_t, int>> loadNodes;
  KernelNodes builder{p, graph, step, ids, storedAt, loadNodes};
  for (const auto& [id, k] : state) {
    p.clusters.push_back(kernelCluster(id, k, changed.count(id) > 0));
    builder.add(id, k, static_cast<int>(p.clusters.size()) - 1);
  }
  // Memory edges: a store feeds the loads of the same class in other kernels.
  for (const auto& [cls, node] : loadNodes) {
    auto it = storedAt.find(cls);
    if (it == storedAt.end()) continue;
    Edge e;
    e.from = it->second;
    e.to = node;
    e.label = "mem";
    e.weak = true;
    e.memory = true;
    p.edges.push_back(e);
  }
  return p;
}

Picture fusionPicture(const FusionTrace& trace, int step, const Graph* graph) {
  if (trace.steps.empty()) return fusionStatePicture({}, nullptr, graph);
  const std::size_t last = trace.steps.size() - 1;
  const std::size_t s = step < 0 ? last : std::min<std::size_t>(static_cast<std::size_t>(step), last);
  return fusionStatePicture(trace.stateAfter(s + 1), &trace.steps[s], graph);
}

}  // namespace ks::viz
