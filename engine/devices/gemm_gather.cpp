// Run-length gathers of GEMM operands.
#include "engine/devices/gemm_gather.h"

#include <algorithm>
#include <cstring>

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
    const bool extends = last && (src[i] < 0 ? last->src < 0 : last->src >= 0 && last->src + last->len == src[i]);
    if (extends)
      ++last->len;
    else
      g.runs.push_back({src[i] < 0 ? -1 : src[i], 1, 1, 0});
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
      const bool joins = last && x.src >= 0 && last->src >= 0 && x.len == last->len &&
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
    for (int64_t r = 0; r < run.reps; ++r, s += run.stride, dst += n) {
      if (n > 32)
        std::memcpy(dst, s, n * sizeof(float));
      else  // a short row: a call to memcpy costs more than the copy
        for (std::size_t i = 0; i < n; ++i) dst[i] = s[i];
    }
  }
}

}  // namespace ks
