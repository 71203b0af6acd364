// A class read in place through the Reshape and Permute nodes under it: those move no data, so
// the class's elements are the elements of a deeper class's buffer at strides. An AOT kernel
// (a GEMM) can then read the deeper buffer directly, and only that buffer has to be stored.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/graph/graph.h"

namespace ks {

struct StridedView {
  ClassId base;                  // the class whose contiguous row-major buffer is read
  std::vector<int64_t> strides;  // per axis of the viewed class, in elements of `base`
};

// Strides of a row-major tensor of `shape`.
std::vector<int64_t> contiguousStrides(const Shape& shape);

// The strides of `newShape` viewing the same elements as `oldShape` at `oldStrides` (numpy's
// no-copy reshape), or nothing when the reshape would need a copy.
std::optional<std::vector<int64_t>> reshapeStrides(const Shape& oldShape, const std::vector<int64_t>& oldStrides,
                                                   const Shape& newShape);

// The views of `c` over each class of the Reshape/Permute chain beneath it that can be expressed
// by strides, the deepest base first; the last is `c` itself (contiguous).
std::vector<StridedView> stridedViews(const Graph& g, ClassId c);

}  // namespace ks
