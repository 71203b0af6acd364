// Kernel nodes with their operands moved to the kernel's memory pool.
#include "engine/plan/memory_ops.h"

#include <map>
#include <set>

namespace ks {

namespace {

class MemoryOps {
 public:
  MemoryOps(Graph& g, const MemoryOpsInput& in) : g_(g), in_(in) {
    for (std::size_t i = 0; i < in_.matches.size(); ++i) producedIn(in_.matches[i].out, in_.entries[i].device);
    for (const KernelEntry& e : in_.entries)
      if (e.kind == KernelEntry::Kind::Fused)
        for (ClassId c : in_.kernels.at(e.fused).fused.stores) producedIn(c, e.device);
  }

  void run() {
    for (uint32_t i = 0; i < in_.entries.size(); ++i)
      if (in_.entries[i].kind == KernelEntry::Kind::Fused) addFusedKernel(i);
    for (uint32_t i = 0; i < in_.matches.size(); ++i) addCopiedGemm(i);
  }

 private:
  void producedIn(ClassId c, uint32_t device) { producerPools_[c.v].insert(in_.poolOf.at(device)); }
  int64_t bytesOf(ClassId c) const { return numel(g_.shape(c)) * static_cast<int64_t>(dtypeSize(g_.dtype(c))); }

  // `x` itself where every producer of it (or the leaf's host memory) is in the device's pool;
  // otherwise a ToDevice class copying it there.
  ClassId operandFor(ClassId x, uint32_t device) {
    const uint32_t pool = in_.poolOf.at(device);
    if (g_.isLeaf(x)) {
      if (pool == 0) return x;
      return g_.addToDevice(x, device, in_.transferNs(0, pool, bytesOf(x)));
    }
    const auto& pools = producerPools_[x.v];
    if (pools.size() == 1 && *pools.begin() == pool) return x;
    uint32_t from = 0;
    for (uint32_t q : pools)
      if (q != pool) from = q;
    return g_.addToDevice(x, device, in_.transferNs(from, pool, bytesOf(x)));
  }

  void addFusedKernel(uint32_t entry) {
    const KernelEntry& e = in_.entries[entry];
    const FusedKernel& f = in_.kernels.at(e.fused).fused;
    Node n;
    n.kind = NodeKind::Kernel;
    for (ClassId l : f.loads) n.in.push_back(operandFor(l, e.device));
    n.out = f.stores;
    n.device = e.device;
    n.ref = entry;
    n.timeNs = e.timeNs;
    const NodeId id = g_.addAlternative(f.stores.front(), n);
    for (ClassId s : f.stores) g_.attachNode(s, id);
  }

  void addCopiedGemm(uint32_t i) {
    const MatmulMatch& m = in_.matches[i];
    const KernelEntry& e = in_.entries[i];
    Node n;
    n.kind = NodeKind::Kernel;
    // The direct node addGemmKernels made lists the operands (an epilogue's after a and b).
    const Node* direct = nullptr;
    for (NodeId id : g_.eclass(m.out).nodes)
      if (!direct && g_.node(id).kind == NodeKind::Kernel && g_.node(id).ref == i) direct = &g_.node(id);
    if (!direct) return;
    const std::vector<ClassId> read = direct->in;
    for (ClassId x : read) n.in.push_back(operandFor(x, e.device));
    if (n.in == read) return;
    n.out = {m.out};
    n.device = e.device;
    n.ref = i;
    n.timeNs = e.timeNs;
    g_.addAlternative(m.out, n);
  }

  Graph& g_;
  const MemoryOpsInput& in_;
  std::map<uint32_t, std::set<uint32_t>> producerPools_;  // class -> pools some kernel produces it in
};

}  // namespace

void insertMemoryOps(Graph& g, const MemoryOpsInput& in) { MemoryOps(g, in).run(); }

}  // namespace ks
