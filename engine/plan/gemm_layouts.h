// Operand layouts of a GEMM in a rewritten e-graph: where an operand's class also holds a
// transpose of another class (permute [1, 0], e.g. added by the matmul-transpose rule), the GEMM
// can read that class instead with the operand's transpose flag flipped. Which layout is fastest
// (OpenBLAS's speed depends on it, and so does whether the transposed value must be computed at
// all) is left to extraction, by measured time.
#pragma once
#include <vector>

#include "engine/plan/matmul_matcher.h"

namespace ks {

// The variants of `m` (unbatched, rank-2 operands) reading a pre-transposed operand, one or both
// operands flipped; `m` itself is not among them.
std::vector<MatmulMatch> transposedOperandVariants(const Graph& g, const MatmulMatch& m);

}  // namespace ks
