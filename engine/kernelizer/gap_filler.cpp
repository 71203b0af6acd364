// Union-find of the structural classes between AOT kernel outputs into kernelize regions.
#include "engine/kernelizer/gap_filler.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace ks {

namespace {
struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    parent[std::max(a, b)] = std::min(a, b);
  }
};

bool isElementwise(NodeKind k) {
  return k == NodeKind::Unary || k == NodeKind::Cast || k == NodeKind::Bitcast || k == NodeKind::Binary ||
         k == NodeKind::Where;
}
}  // namespace

std::vector<GapRegion> findGapRegions(const Graph& g, const std::vector<ClassId>& activeAot,
                                      const std::vector<ClassId>& outputs) {
  std::unordered_set<ClassId> aot(activeAot.begin(), activeAot.end());
  std::unordered_set<ClassId> boundaries(aot);
  for (std::size_t i = 0; i < g.leaves().size(); ++i) boundaries.insert(g.leafClass(static_cast<uint32_t>(i)));
  std::unordered_set<ClassId> kernelInputs;
  auto aotInputs = [&](ClassId c) {
    std::vector<ClassId> in;
    for (NodeId n : g.eclass(c).nodes)
      if (g.node(n).kind == NodeKind::Kernel)
        for (ClassId x : g.node(n).in)
          if (std::find(in.begin(), in.end(), x) == in.end()) in.push_back(x);
    return in;
  };
  for (ClassId c : activeAot)
    for (ClassId x : aotInputs(c)) kernelInputs.insert(x);

  // Dependency order from the outputs: an active AOT class depends on its kernel's inputs (they
  // must be computed and stored for it), a leaf on nothing, any other class on its operands.
  std::vector<ClassId> order;
  std::unordered_map<ClassId, int> state;
  for (ClassId out : outputs) {
    if (state[out]) continue;
    struct Frame {
      ClassId c;
      std::vector<ClassId> deps;
      std::size_t next = 0;
    };
    auto depsOf = [&](ClassId c) {
      if (aot.count(c)) return aotInputs(c);
      if (boundaries.count(c)) return std::vector<ClassId>{};
      return g.structural(c).in;
    };
    std::vector<Frame> stack{{out, depsOf(out)}};
    state[out] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.deps.size()) {
        const ClassId d = f.deps[f.next++];
        if (!state[d]) {
          state[d] = 1;
          stack.push_back({d, depsOf(d)});
        }
      } else {
        order.push_back(f.c);
        stack.pop_back();
      }
    }
  }

  std::unordered_map<ClassId, bool> pure;  // constant expressions, replayed by consumers
  for (ClassId c : order) {
    const Node& n = g.structural(c);
    bool p = !boundaries.count(c) && (n.kind == NodeKind::Const || isElementwise(n.kind));
    if (p && n.kind != NodeKind::Const)
      for (ClassId x : n.in) p = p && pure[x];
    pure[c] = p;
  }
  std::vector<ClassId> structural, constants;
  std::unordered_map<ClassId, std::size_t> index;
  for (ClassId c : order) {
    if (boundaries.count(c)) continue;
    if (pure[c]) {
      constants.push_back(c);
      continue;
    }
    index[c] = structural.size();
    structural.push_back(c);
  }
  UnionFind uf(structural.size());
  for (std::size_t i = 0; i < structural.size(); ++i)
    for (ClassId x : g.structural(structural[i]).in)
      if (auto it = index.find(x); it != index.end()) uf.join(i, it->second);

  std::unordered_set<ClassId> requested(outputs.begin(), outputs.end());
  auto isRegionOutput = [&](ClassId c) { return requested.count(c) || kernelInputs.count(c); };
  std::vector<GapRegion> regions;
  std::unordered_map<std::size_t, std::size_t> regionOf;  // union-find root -> position in regions
  for (std::size_t i = 0; i < structural.size(); ++i) {
    const std::size_t root = uf.find(i);
    auto [it, fresh] = regionOf.emplace(root, regions.size());
    if (fresh) regions.emplace_back();
    GapRegion& r = regions[it->second];
    const ClassId c = structural[i];
    r.classes.push_back(c);
    if (isRegionOutput(c)) r.outputs.push_back(c);
    for (ClassId x : g.structural(c).in)
      if (boundaries.count(x) && std::find(r.inputs.begin(), r.inputs.end(), x) == r.inputs.end()) r.inputs.push_back(x);
  }
  for (ClassId c : constants)
    if (isRegionOutput(c)) regions.push_back({{c}, {}, {c}, {}});
  std::vector<GapRegion> result;
  for (GapRegion& r : regions) {
    if (r.outputs.empty()) continue;
    r.allowed = r.classes;
    r.allowed.insert(r.allowed.end(), r.inputs.begin(), r.inputs.end());
    r.allowed.insert(r.allowed.end(), constants.begin(), constants.end());
    result.push_back(std::move(r));
  }
  return result;
}

}  // namespace ks
