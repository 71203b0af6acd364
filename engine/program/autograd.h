// Reverse-mode automatic differentiation over the primitive node kinds of the e-graph. The
// backward graph is built into the same graph as the forward one, so a forward class the backward
// pass needs is the same class (hashconsing), and the kernelizer decides whether it is stored or
// recomputed.
#pragma once
#include <vector>

#include "engine/program/builder.h"

namespace ks::op {

// Gradients of the scalar y (rank 0 or one element, floating point) with respect to each of
// `wrt` (program inputs or parameters, floating point), one per entry, of that leaf's shape and
// dtype. Every primitive kind has a derivative: unary, binary, where, cast, reduce and every
// movement op; piecewise-constant functions (floor, round, sign, trunc, ceil) give zero, as in
// PyTorch, and values of integer or bool dtype carry no gradient. Throws ks::Error (Usage) when y
// is not a float scalar, an entry of `wrt` is not a float leaf, or y does not depend on an entry
// through differentiable values (the message names the op where the dependence stops).
std::vector<Value> grad(Value y, const std::vector<Value>& wrt);

}  // namespace ks::op
