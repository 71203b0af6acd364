// Views through movement nodes that keep every element where it is.
#include "engine/plan/strided_view.h"

namespace ks {

std::vector<int64_t> contiguousStrides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

std::optional<std::vector<int64_t>> reshapeStrides(const Shape& oldShape, const std::vector<int64_t>& oldStrides,
                                                   const Shape& newShape) {
  // Unit axes of the old view carry no stride information.
  std::vector<int64_t> od, os;
  for (std::size_t i = 0; i < oldShape.size(); ++i) {
    if (oldShape[i] == 0) return std::nullopt;
    if (oldShape[i] != 1) od.push_back(oldShape[i]), os.push_back(oldStrides[i]);
  }
  const std::size_t on = od.size(), nn = newShape.size();
  std::vector<int64_t> ns(nn, 1);
  std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
  // Matches runs of old and new axes with equal products; each old run must be contiguous in
  // itself, and the new axes of the run get the strides of a row-major block ending at its last one.
  while (ni < nn && oi < on) {
    int64_t np = newShape[ni], op = od[oi];
    while (np != op) {
      if (np < op) {
        if (nj >= nn) return std::nullopt;
        np *= newShape[nj++];
      } else {
        if (oj >= on) return std::nullopt;
        op *= od[oj++];
      }
    }
    for (std::size_t k = oi; k + 1 < oj; ++k)
      if (os[k] != od[k + 1] * os[k + 1]) return std::nullopt;
    ns[nj - 1] = os[oj - 1];
    for (std::size_t k = nj - 1; k > ni; --k) ns[k - 1] = ns[k] * newShape[k];
    ni = nj++;
    oi = oj++;
  }
  if (oi < on) return std::nullopt;  // element counts differ
  for (std::size_t k = ni; k < nn; ++k) {
    if (newShape[k] != 1) return std::nullopt;
    ns[k] = 1;
  }
  return ns;
}

std::vector<StridedView> stridedViews(const Graph& g, ClassId c) {
  // chain[0] = c, chain[i + 1] = the operand of chain[i]'s Reshape or Permute.
  std::vector<ClassId> chain{c};
  for (;;) {
    const Node& n = g.structural(chain.back());
    if ((n.kind != NodeKind::Reshape && n.kind != NodeKind::Permute) || chain.size() > 64) break;
    chain.push_back(n.in[0]);
  }
  std::vector<StridedView> views;
  for (std::size_t b = chain.size(); b-- > 0;) {
    std::vector<int64_t> strides = contiguousStrides(g.shape(chain[b]));
    bool ok = true;
    for (std::size_t i = b; ok && i-- > 0;) {
      const Node& n = g.structural(chain[i]);
      if (n.kind == NodeKind::Permute) {
        std::vector<int64_t> p(strides.size());
        for (std::size_t a = 0; a < p.size(); ++a) p[a] = strides.at(static_cast<std::size_t>(n.attr[a]));
        strides = std::move(p);
      } else {
        auto s = reshapeStrides(g.shape(chain[i + 1]), strides, g.shape(chain[i]));
        ok = s.has_value();
        if (ok) strides = std::move(*s);
      }
    }
    if (ok) views.push_back({chain[b], std::move(strides)});
  }
  return views;
}

}  // namespace ks
