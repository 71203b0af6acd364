// AOT pattern matching beyond the builder's matmul: any f32 sum of a product of two broadcast
// factors that is a batch of matrix products once each factor is read in place through its
// Reshape/Permute chain. Convolutions are the case that matters: the .ks conv2d and the ONNX
// importer build them as windows (pad, reshape, narrow: movement ops) times the weights, summed
// over the channels and kernel offsets; the windowed factor is then the im2col matrix, which the
// GEMM step gathers on the host from the convolution's input (from a table derived from the graph
// when the plan is prepared), and OpenBLAS multiplies it by the weights read where they are.
#pragma once
#include <optional>

#include "engine/devices/gemm_gather.h"

#include "engine/plan/matmul_matcher.h"

namespace ks {

// Recognises Reduce(sum, axes) of Mul(Expand(x), Expand(y)) (either Expand may be missing) where
// every summed axis is spanned by both factors and the kept axes are [outer..., M..., N...]: the
// M axes spanned by one factor only, the N axes by the other only, the outer axes collapsing to
// one batch stride per factor. Each factor must be a packed matrix per batch (rows or columns
// contiguous) in the buffer of some class of its Reshape/Permute chain; the deepest such class is
// the one read. A factor that is no such view of a class already there (a window: pads, narrows,
// expands) is gathered from the class under its movement nodes instead, untransposed; only where that table would be too large is the window read in place
// from a kernel's store. f32 only.
std::optional<MatmulMatch> matchContraction(const Graph& g, ClassId c);

// The gathers of the GEMM of class `c` that reads classes a and b under `spec` (null where an
// operand is read in place): derived from the graph alone, so a plan made from a saved session
// rebuilds them when it is prepared. Throws ks::Error (Internal) when a gathered operand cannot be
// indexed (a graph not made by this matcher).
GemmGathers contractionGathers(const Graph& g, ClassId c, const GemmSpec& spec, ClassId a, ClassId b);

}  // namespace ks
