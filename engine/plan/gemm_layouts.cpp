// GEMM variants that read an operand's transpose partner (see gemm_layouts.h).
#include "engine/plan/gemm_layouts.h"

namespace ks {

namespace {
// The classes X with permute(X, [1, 0]) in class c (c rank 2).
std::vector<ClassId> transposeSources(const Graph& g, ClassId c) {
  std::vector<ClassId> r;
  if (g.shape(c).size() != 2) return r;
  for (NodeId id : g.eclass(c).nodes) {
    const Node& n = g.node(id);
    if (n.kind == NodeKind::Permute && n.attr == std::vector<int64_t>{1, 0} && g.find(n.in[0]) != g.find(c))
      r.push_back(g.find(n.in[0]));
  }
  return r;
}
}  // namespace

std::vector<MatmulMatch> transposedOperandVariants(const Graph& g, const MatmulMatch& m) {
  std::vector<MatmulMatch> out;
  if (m.spec.batch != 1 || m.spec.strideA || m.spec.strideB) return out;
  std::vector<ClassId> as{m.a}, bs{m.b};
  for (ClassId x : transposeSources(g, m.a)) as.push_back(x);
  for (ClassId x : transposeSources(g, m.b)) bs.push_back(x);
  for (std::size_t i = 0; i < as.size(); ++i)
    for (std::size_t j = 0; j < bs.size(); ++j) {
      if (i == 0 && j == 0) continue;
      MatmulMatch v = m;
      v.a = as[i];
      v.b = bs[j];
      if (i) v.spec.transA = !v.spec.transA;
      if (j) v.spec.transB = !v.spec.transB;
      out.push_back(v);
    }
  return out;
}

}  // namespace ks
