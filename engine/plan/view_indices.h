// Which element of a deeper class each element of a class is, when only movement nodes (Expand,
// Permute, Reshape, Pad, Narrow, Flip) lie between them: the index table a host gather copies by.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/graph/graph.h"

namespace ks {

// The first class under `c` (following structural nodes) that is not made by a movement node;
// `c` itself when it is not.
ClassId movementRoot(const Graph& g, ClassId c);

struct ViewIndices {
  std::vector<int64_t> src;  // per element of the class, row-major: the root's element, -1 for fill
  double fill = 0;           // the value of the -1 elements
};

// The table for `c` over movementRoot(g, c); nothing when its elements hold the fills of pads
// with different values, or a class of the chain has more than `maxElements` elements.
std::optional<ViewIndices> viewIndices(const Graph& g, ClassId c, int64_t maxElements);

}  // namespace ks
