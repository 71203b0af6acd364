// Run-length gathers of GEMM operands.
#include "engine/devices/gemm_gather.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace ks {

GemmGather GemmGather::fromIndices(const std::vector<int64_t>& src, int64_t batchElements, int64_t sourceElements,
                                   float fill) {
  GemmGather g;
  g.batchElements = batchElements;
  g.sourceElements = sourceElements;
  g.fill = fill;
  g.batchStart.clear();
  for (std::size_t i = 0; i < src.size(); ++i) {
    const bool batchEdge = batchElements > 0 && i % static_cast<std::size_t>(batchElements) == 0;
    if (batchEdge) g.batchStart.push_back(g.runs.size());
    GatherRun* last = g.runs.empty() || batchEdge ? nullptr : &g.runs.back();
    if (last && src[i] < 0 && last->src < 0) {
      ++last->len;
      continue;
    }
    if (last && src[i] >= 0 && last->src >= 0) {
      // A run's second element fixes its step (a strided window reads every step-th element).
      if (last->len == 1 && src[i] > last->src) last->step = src[i] - last->src;
      if (src[i] == last->src + last->len * last->step) {
        ++last->len;
        continue;
      }
    }
    g.runs.push_back({src[i] < 0 ? -1 : src[i], 1, 1, 0, 1});
  }
  g.batchStart.push_back(g.runs.size());
  g.foldRepeats();
  return g;
}

// Consecutive copies of one length at one source stride become one run (within a batch).
void GemmGather::foldRepeats() {
  std::vector<GatherRun> folded;
  std::vector<std::size_t> starts{0};
  for (std::size_t b = 0; b + 1 < batchStart.size(); ++b) {
    for (std::size_t r = batchStart[b]; r < batchStart[b + 1]; ++r) {
      const GatherRun& x = runs[r];
      GatherRun* last = folded.size() > starts.back() ? &folded.back() : nullptr;
      const bool joins = last && x.src >= 0 && last->src >= 0 && x.len == last->len && x.step == last->step &&
                         (last->reps == 1 || x.src == last->src + last->reps * last->stride);
      if (joins) {
        if (last->reps == 1) last->stride = x.src - last->src;
        ++last->reps;
      } else {
        folded.push_back(x);
      }
    }
    starts.push_back(folded.size());
  }
  runs = std::move(folded);
  batchStart = std::move(starts);
}

void GemmGather::apply(std::size_t b, const float* src, float* dst) const {
  for (std::size_t r = batchStart[b]; r < batchStart[b + 1]; ++r) {
    const GatherRun& run = runs[r];
    const auto n = static_cast<std::size_t>(run.len);
    if (run.src < 0) {
      std::fill_n(dst, n, fill);
      dst += n;
      continue;
    }
    const float* s = src + run.src;
    if (run.step == 2) {  // a stride-2 window: a constant step the compiler can shuffle
      for (int64_t r = 0; r < run.reps; ++r, s += run.stride, dst += n)
        for (std::size_t i = 0; i < n; ++i) dst[i] = s[2 * i];
      continue;
    }
    if (run.step != 1) {
      const int64_t step = run.step;
      for (int64_t r = 0; r < run.reps; ++r, s += run.stride, dst += n)
        for (std::size_t i = 0; i < n; ++i) dst[i] = s[static_cast<int64_t>(i) * step];
      continue;
    }
    for (int64_t r = 0; r < run.reps; ++r, s += run.stride, dst += n) {
      if (n > 32)
        std::memcpy(dst, s, n * sizeof(float));
      else  // a short row: a call to memcpy costs more than the copy
        for (std::size_t i = 0; i < n; ++i) dst[i] = s[i];
    }
  }
}

namespace {
// out[t] += w * s[t * step] for t < len. The source is never the output (another buffer), so
// the loops vectorize without aliasing checks; a constant step lets the compiler shuffle.
inline void axpy(float w, const float* __restrict s, int64_t step, int64_t len, float* __restrict out) {
  if (step == 1)
    for (int64_t t = 0; t < len; ++t) out[t] += w * s[t];
  else if (step == 2)
    for (int64_t t = 0; t < len; ++t) out[t] += w * s[2 * t];
  else
    for (int64_t t = 0; t < len; ++t) out[t] += w * s[t * step];
}

// out[t] += w0 * s0[t * step] + w1 * s1[t * step] + w2 * s2[t * step]: three taps of a window
// that write the same stretch of the output load and store it once, not three times.
template <int kStep>
inline void axpy3(const float* w, const float* __restrict s0, const float* __restrict s1, const float* __restrict s2,
                  int64_t step, int64_t len, float* __restrict out) {
  const int64_t st = kStep > 0 ? kStep : step;
  for (int64_t t = 0; t < len; ++t) out[t] += w[0] * s0[t * st] + w[1] * s1[t * st] + w[2] * s2[t * st];
}

// The prepared product's loop, built for AVX2 with FMA where the CPU has them (the binary
// targets plain x86-64): 8 lanes and a fused multiply-add instead of 4 lanes and two ops.
__attribute__((target_clones("arch=haswell", "default"))) void addBundles(
    const GemmGather::ProductBundle* begin, const GemmGather::ProductBundle* end, const float* src, const float* a,
    int64_t m, int64_t k, int64_t n, bool transA, float fill, float* c) {
  for (const GemmGather::ProductBundle* bu = begin; bu != end; ++bu) {
    const GemmGather::ProductPiece* p = bu->piece;
    for (int64_t row = 0; row < m; ++row) {
      auto weight = [&](const GemmGather::ProductPiece& x) { return transA ? a[x.row * m + row] : a[row * k + x.row]; };
      const float w[3] = {weight(p[0]), bu->count > 1 ? weight(p[1]) : 0.0f, bu->count > 2 ? weight(p[2]) : 0.0f};
      float* out = c + row * n + p->col;
      for (int64_t r = 0; r < bu->reps; ++r, out += bu->colStride) {
        const int64_t shift = r * bu->srcStride;
        if (bu->count == 3) {
          const float *s0 = src + p[0].src + shift, *s1 = src + p[1].src + shift, *s2 = src + p[2].src + shift;
          if (p->step == 1) axpy3<1>(w, s0, s1, s2, 1, p->len, out);
          else if (p->step == 2) axpy3<2>(w, s0, s1, s2, 2, p->len, out);
          else axpy3<0>(w, s0, s1, s2, p->step, p->len, out);
          continue;
        }
        for (int j = 0; j < bu->count; ++j) {
          if (p[j].src >= 0)
            axpy(w[j], src + p[j].src + shift, p[j].step, p[j].len, out);
          else
            for (int64_t t = 0; t < p[j].len; ++t) out[t] += w[j] * fill;
        }
      }
    }
  }
}

// Whether `next` is bundle `b`'s next repeat: the same pieces (count, rows, lengths, steps) one
// stride further, in the output and in the source alike for every piece.
bool extendsBundle(GemmGather::ProductBundle& b, const GemmGather::ProductBundle& next) {
  if (b.count != next.count) return false;
  const GemmGather::ProductPiece &f = b.piece[0], &x = next.piece[0];
  const int64_t colStride = b.reps == 1 ? x.col - f.col : b.colStride;
  const int64_t srcStride = b.reps == 1 ? x.src - f.src : b.srcStride;
  if (colStride <= 0 || x.col != f.col + b.reps * colStride) return false;
  for (int j = 0; j < b.count; ++j) {
    const GemmGather::ProductPiece &p = b.piece[j], &q = next.piece[j];
    if (p.src < 0 || q.src < 0 || p.len != q.len || p.step != q.step || p.row != q.row || q.col != x.col ||
        q.src != p.src + b.reps * srcStride)
      return false;
  }
  b.colStride = colStride, b.srcStride = srcStride;
  ++b.reps;
  return true;
}
}  // namespace

void GemmGather::prepareProduct(int64_t k) {
  bundles.clear();
  bundleStart.assign(1, 0);
  productRows = k;
  const int64_t n = batchElements / k;
  std::vector<ProductPiece> pieces;
  for (std::size_t b = 0; b + 1 < batchStart.size(); ++b) {
    pieces.clear();
    int64_t d = 0;
    for (std::size_t r = batchStart[b]; r < batchStart[b + 1]; ++r) {
      const GatherRun& run = runs[r];
      for (int64_t rep = 0; rep < run.reps; ++rep)
        for (int64_t done = 0; done < run.len;) {
          const int64_t row = d / n, col = d % n, len = std::min(run.len - done, n - col);
          // Zero fills add nothing; padding is the usual fill.
          if (run.src >= 0 || fill != 0.0f)
            pieces.push_back({col, len, run.src < 0 ? -1 : run.src + rep * run.stride + done * run.step, run.step, row});
          d += len, done += len;
        }
    }
    // By the stretch they write: pieces of one stretch (a window's taps one below the other) meet.
    std::stable_sort(pieces.begin(), pieces.end(), [](const ProductPiece& x, const ProductPiece& y) {
      return std::tie(x.col, x.len, x.step) < std::tie(y.col, y.len, y.step);
    });
    // Bundles of up to three pieces of one stretch; each folds into one of the last few open
    // bundles it repeats (the stretches of one output row interleave those of the next).
    const std::size_t first = bundles.size();
    constexpr std::size_t kOpen = 8;
    for (std::size_t i = 0; i < pieces.size();) {
      ProductBundle nb;
      nb.piece[0] = pieces[i++];
      while (nb.count < 3 && i < pieces.size() && nb.piece[0].src >= 0 && pieces[i].src >= 0 &&
             std::tie(pieces[i].col, pieces[i].len, pieces[i].step) == std::tie(nb.piece[0].col, nb.piece[0].len, nb.piece[0].step))
        nb.piece[nb.count++] = pieces[i++];
      bool folded = false;
      for (std::size_t o = bundles.size(); o > first && o + kOpen > bundles.size() && !folded; --o)
        folded = extendsBundle(bundles[o - 1], nb);
      if (!folded) bundles.push_back(nb);
    }
    bundleStart.push_back(bundles.size());
  }
}

void GemmGather::multiplyInto(std::size_t b, const float* src, const float* a, int64_t m, int64_t k, bool transA,
                              float* c) const {
  const int64_t n = batchElements / k;
  std::fill_n(c, m * n, 0.0f);
  addBundles(bundles.data() + bundleStart[b], bundles.data() + bundleStart[b + 1], src, a, m, k, n, transA, fill, c);
}

}  // namespace ks
