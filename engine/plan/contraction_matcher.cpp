// Matching sums of products that are batched GEMMs over factors read in place.
#include "engine/plan/contraction_matcher.h"

#include "engine/devices/openblas_gemm.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/devices/openblas_gemm.h"
#include "engine/plan/strided_view.h"
#include "engine/plan/view_indices.h"

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

// The product's axes in GEMM terms: outer (batch), summed (k) and each factor's own axes (A's m,
// B's n); f[0] is A's factor, f[1] B's, each with the broadcast axes of the product at size 1.
struct Contraction {
  Shape p;
  Axes outer, summed, own[2];
  ClassId v[2];
};

// Factor `f` as a packed matrix per batch: its own axes and the summed axes, stored [own, summed]
// or [summed, own] in the buffer of some class its Reshape/Permute chain reaches. `materialized`:
// only a class no movement node made (one that is there anyway, not a window a kernel stores).
std::optional<Operand> inPlace(const Graph& g, const Contraction& c, int f, bool materialized) {
  const Shape& vs = g.shape(c.v[f]);
  std::vector<bool> spans(vs.size());
  for (std::size_t i = 0; i < vs.size(); ++i) spans[i] = vs[i] > 1;
  const int64_t r = extent(c.own[f], c.p), k = extent(c.summed, c.p);
  for (const StridedView& w : stridedViews(g, c.v[f])) {
    if (materialized && movementRoot(g, w.base) != w.base) continue;
    const auto sr = merged(c.own[f], c.p, w.strides), sk = merged(c.summed, c.p, w.strides);
    const auto bs = batchStride(c.outer, c.p, w.strides, spans);
    if (!sr || !sk || !bs) continue;
    const bool ownMajor = (k == 1 || *sk == 1) && (r == 1 || *sr == k);     // [own, summed]
    const bool summedMajor = (r == 1 || *sr == 1) && (k == 1 || *sk == r);  // [summed, own]
    if (!ownMajor && !summedMajor) continue;
    // Prefer the untransposed form when both hold (a vector): A [m, k], B [k, n].
    return Operand{w.base, f == 0 ? !ownMajor : !summedMajor, *bs};
  }
  return std::nullopt;
}

// Index tables past this many elements (any class of the movement chain) are not built: the
// window is then stored by a kernel and read in place.
constexpr int64_t kMaxGatherElements = int64_t{1} << 23;

// Factor `f` gathered from the root of its movement chain into the packed layout `trans` (as
// GemmSpec's flag for its side), batch by batch; one batch when it spans no outer axis.
std::optional<GemmGather> gatherOf(const Graph& g, const Contraction& c, int f, bool trans) {
  const auto vi = viewIndices(g, c.v[f], kMaxGatherElements);
  if (!vi) return std::nullopt;
  const Shape& vs = g.shape(c.v[f]);
  std::vector<int64_t> vstride = contiguousStrides(vs);
  for (std::size_t a = 0; a < vs.size(); ++a)
    if (vs[a] == 1) vstride[a] = 0;
  bool batched = false;
  for (int a : c.outer) batched = batched || vs[a] > 1;
  // Destination order: batch, then A [m, k] / B [k, n], or the transposed order.
  const bool ownFirst = (f == 0) != trans;
  Axes order = batched ? c.outer : Axes{};
  for (const Axes* part : {ownFirst ? &c.own[f] : &c.summed, ownFirst ? &c.summed : &c.own[f]})
    order.insert(order.end(), part->begin(), part->end());
  std::vector<int64_t> src(static_cast<std::size_t>(extent(order, c.p)));
  std::vector<int64_t> idx(order.size(), 0);
  for (int64_t& e : src) {
    int64_t flat = 0;
    for (std::size_t j = 0; j < order.size(); ++j) flat += idx[j] * vstride[static_cast<std::size_t>(order[j])];
    e = vi->src[static_cast<std::size_t>(flat)];
    for (std::size_t j = order.size(); j-- > 0;) {
      if (++idx[j] < c.p[order[j]]) break;
      idx[j] = 0;
    }
  }
  const int64_t perBatch = extent(c.own[f], c.p) * extent(c.summed, c.p);
  return GemmGather::fromIndices(src, perBatch, numel(g.shape(movementRoot(g, c.v[f]))), static_cast<float>(vi->fill));
}

// Recognises the contraction (see matchContraction) without deciding how its factors are read.
std::optional<Contraction> contraction(const Graph& g, ClassId c) {
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
  Contraction r;
  r.p = p;
  r.outer.assign(kept.begin(), kept.begin() + s);
  r.summed = summed;
  r.own[0].assign(kept.begin() + s, kept.begin() + e);
  r.own[1].assign(kept.begin() + e, kept.end());
  r.v[0] = v[1 - right];
  r.v[1] = v[right];
  return r;
}

// How factor f is read: in place where it already lies, else gathered from its movement root
// into the untransposed layout (OpenBLAS multiplies A [m, k] by B [k, n] fastest: LeNet's first
// convolution, 16 x (6x784x25), takes 38 us so and 116 us with B stored [n, k]), else in place
// from a window a kernel stores.
std::optional<Operand> operand(const Graph& g, const Contraction& c, int f) {
  if (auto o = inPlace(g, c, f, true)) return o;
  const ClassId root = movementRoot(g, c.v[f]);
  if (root != c.v[f])
    if (auto gather = gatherOf(g, c, f, false)) return Operand{root, false, gather->batches() > 1 ? gather->batchElements : 0};
  return inPlace(g, c, f, false);
}

}  // namespace

std::optional<MatmulMatch> matchContraction(const Graph& g, ClassId c) {
  const auto con = contraction(g, c);
  if (!con) return std::nullopt;
  const auto a = operand(g, *con, 0);
  const auto b = operand(g, *con, 1);
  if (!a || !b) return std::nullopt;
  MatmulMatch mm;
  mm.out = c;
  mm.a = a->base;
  mm.b = b->base;
  GemmSpec& spec = mm.spec;
  spec.batch = extent(con->outer, con->p);
  spec.m = extent(con->own[0], con->p);
  spec.n = extent(con->own[1], con->p);
  spec.k = extent(con->summed, con->p);
  spec.transA = a->trans;
  spec.transB = b->trans;
  spec.strideA = a->batchStride;
  spec.strideB = b->batchStride;
  return mm;
}

GemmGathers contractionGathers(const Graph& g, ClassId c, const GemmSpec& spec, ClassId a, ClassId b) {
  GemmGathers r;
  const auto con = contraction(g, c);
  if (!con) return r;
  const ClassId read[2] = {a, b};
  const bool trans[2] = {spec.transA, spec.transB};
  for (int f = 0; f < 2; ++f) {
    const ClassId root = movementRoot(g, con->v[f]);
    if (read[f] != root || root == con->v[f]) continue;
    const auto o = inPlace(g, *con, f, true);
    if (o && o->base == root) continue;
    r[f] = gatherOf(g, *con, f, trans[f]);
    if (!r[f]) throw Error(ErrorCode::Internal, "the GEMM of %" + std::to_string(c.v) + " gathers an operand it cannot index");
  }
  if (r[1] && multipliesDirectly(spec, true)) r[1]->prepareProduct(spec.k);
  return r;
}

}  // namespace ks
