// AOT pattern matching beyond the builder's matmul: any f32 sum of a product of two broadcast
// factors that is a batch of matrix products once each factor is read in place through its
// Reshape/Permute chain. Convolutions are the case that matters: the .ks conv2d and the ONNX
// importer build them as windows (pad, reshape, narrow: movement ops) times the weights, summed
// over the channels and kernel offsets; the windowed factor is then the im2col matrix, which a
// fused kernel stores, and OpenBLAS multiplies it by the weights read where they are.
#pragma once
#include <optional>

#include "engine/plan/matmul_matcher.h"

namespace ks {

// Recognises Reduce(sum, axes) of Mul(Expand(x), Expand(y)) (either Expand may be missing) where
// every summed axis is spanned by both factors and the kept axes are [outer..., M..., N...]: the
// M axes spanned by one factor only, the N axes by the other only, the outer axes collapsing to
// one batch stride per factor. Each factor must be a packed matrix per batch (rows or columns
// contiguous) in the buffer of some class of its Reshape/Permute chain; the deepest such class is
// the one read. f32 only.
std::optional<MatmulMatch> matchContraction(const Graph& g, ClassId c);

}  // namespace ks
