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
      g.runs.push_back({src[i] < 0 ? -1 : src[i], 1});
  }
  g.batchStart.push_back(g.runs.size());
  return g;
}

void GemmGather::apply(std::size_t b, const float* src, float* dst) const {
  for (std::size_t r = batchStart[b]; r < batchStart[b + 1]; ++r) {
    const GatherRun& run = runs[r];
    const auto n = static_cast<std::size_t>(run.len);
    if (run.src < 0)
      std::fill_n(dst, n, fill);
    else
      std::memcpy(dst, src + run.src, n * sizeof(float));
    dst += n;
  }
}

}  // namespace ks
