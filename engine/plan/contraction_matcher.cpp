// Matching sums of products that are batched GEMMs over factors read in place.
#include "engine/plan/contraction_matcher.h"

#include <algorithm>

#include "engine/plan/strided_view.h"

namespace ks {

namespace {

using Axes = std::vector<int>;

int64_t extent(const Axes& axes, const Shape& p) {
  int64_t e = 1;
  for (int a : axes) e *= p[a];
  return e;
}

// The one stride of `axes` read as a single merged axis (their strides nest row-major), or nothing.
// No axes merge to any stride: 0.
std::optional<int64_t> merged(const Axes& axes, const Shape& p, const std::vector<int64_t>& strides) {
  for (std::size_t i = 0; i + 1 < axes.size(); ++i)
    if (strides[axes[i]] != strides[axes[i + 1]] * p[axes[i + 1]]) return std::nullopt;
  return axes.empty() ? 0 : strides[axes.back()];
}

// The outer axes as one batch index (row-major over them): the factor's offset must be that index
// times one stride. Along an axis the factor does not span it is broadcast (stride 0).
std::optional<int64_t> batchStride(const Axes& outer, const Shape& p, const std::vector<int64_t>& strides,
                                   const std::vector<bool>& spans) {
  if (outer.empty()) return 0;
  auto strideOf = [&](int a) { return spans[a] ? strides[a] : 0; };
  const int64_t s = strideOf(outer.back());
  int64_t run = 1;
  for (std::size_t i = outer.size(); i-- > 0;) {
    if (strideOf(outer[i]) != s * run) return std::nullopt;
    run *= p[outer[i]];
  }
  return s;
}

struct Operand {
  ClassId base;
  bool trans = false;  // stored with the summed axis first (A: k x m) or last (B: n x k)
  int64_t batchStride = 0;
};

// Factor `v` (of the product's rank, 1 where broadcast) as a packed matrix per batch: its own
// axes `own` and the summed axes, stored [own, summed] or [summed, own] in some class's buffer.
// `left`: the GEMM's A (m x k), else its B (k x n).
std::optional<Operand> operand(const Graph& g, ClassId v, const Axes& own, const Axes& summed, const Axes& outer,
                               const Shape& p, bool left) {
  const Shape& vs = g.shape(v);
  std::vector<bool> spans(vs.size());
  for (std::size_t i = 0; i < vs.size(); ++i) spans[i] = vs[i] > 1;
  const int64_t r = extent(own, p), k = extent(summed, p);
  for (const StridedView& w : stridedViews(g, v)) {
    const auto sr = merged(own, p, w.strides), sk = merged(summed, p, w.strides);
    const auto bs = batchStride(outer, p, w.strides, spans);
    if (!sr || !sk || !bs) continue;
    const bool ownMajor = (k == 1 || *sk == 1) && (r == 1 || *sr == k);     // [own, summed]
    const bool summedMajor = (r == 1 || *sr == 1) && (k == 1 || *sk == r);  // [summed, own]
    if (!ownMajor && !summedMajor) continue;
    // Prefer the untransposed form when both hold (a vector): A [m, k], B [k, n].
    return Operand{w.base, left ? !ownMajor : !summedMajor, *bs};
  }
  return std::nullopt;
}

}  // namespace

std::optional<MatmulMatch> matchContraction(const Graph& g, ClassId c) {
  const Node& red = g.structural(c);
  if (red.kind != NodeKind::Reduce || red.reduceOp() != ReduceOp::Sum || g.dtype(c) != DType::F32) return std::nullopt;
  const ClassId prodC = red.in[0];
  const Shape& p = g.shape(prodC);
  const Node& mul = g.structural(prodC);
  if (mul.kind != NodeKind::Binary || mul.binaryOp() != BinaryOp::Mul) return std::nullopt;
  ClassId v[2];
  for (int f = 0; f < 2; ++f) {
    const Node& e = g.structural(mul.in[f]);
    v[f] = e.kind == NodeKind::Expand ? e.in[0] : mul.in[f];
    if (g.shape(v[f]).size() != p.size()) return std::nullopt;
  }
  auto spans = [&](int f, int a) { return g.shape(v[f])[a] > 1; };
  // Which factor alone spans a kept axis: 0, 1, or -1 for both.
  auto only = [&](int a) { return spans(0, a) == spans(1, a) ? -1 : spans(0, a) ? 0 : 1; };
  Axes summed, kept;
  for (int a = 0; a < static_cast<int>(p.size()); ++a) {
    if (p[a] == 1) continue;
    const bool reduced = std::find(red.attr.begin(), red.attr.end(), a) != red.attr.end();
    // A summed axis one factor is broadcast along, or a kept axis neither spans, is no GEMM.
    if (reduced ? !(spans(0, a) && spans(1, a)) : !(spans(0, a) || spans(1, a))) return std::nullopt;
    (reduced ? summed : kept).push_back(a);
  }
  if (kept.empty() || summed.empty()) return std::nullopt;
  // The kept axes end with the right factor's own axes (N), after the left factor's (M).
  const int right = only(kept.back());
  if (right < 0) return std::nullopt;
  std::size_t e = kept.size(), s;
  while (e > 0 && only(kept[e - 1]) == right) --e;
  for (s = e; s > 0 && only(kept[s - 1]) == 1 - right; --s) {
  }
  const Axes outer(kept.begin(), kept.begin() + s), rows(kept.begin() + s, kept.begin() + e), cols(kept.begin() + e, kept.end());
  const auto a = operand(g, v[1 - right], rows, summed, outer, p, true);
  const auto b = operand(g, v[right], cols, summed, outer, p, false);
  if (!a || !b) return std::nullopt;
  MatmulMatch mm;
  mm.out = c;
  mm.a = a->base;
  mm.b = b->base;
  GemmSpec& spec = mm.spec;
  spec.batch = extent(outer, p);
  spec.m = extent(rows, p);
  spec.n = extent(cols, p);
  spec.k = extent(summed, p);
  spec.transA = a->trans;
  spec.transB = b->trans;
  spec.strideA = a->batchStride;
  spec.strideB = b->batchStride;
  return mm;
}

}  // namespace ks
