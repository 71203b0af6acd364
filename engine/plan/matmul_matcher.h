// AOT pattern matching: finds the broadcast-multiply-reduce form of f32 (batched, transposed)
// matmuls in the e-graph, so a GEMM can join the class as an alternative producer.
#pragma once
#include <optional>
#include <vector>

#include "engine/devices/gemm_spec.h"
#include "engine/graph/graph.h"
#include "engine/plan/kernel_entry.h"

namespace ks {

struct MatmulMatch {
  ClassId out;     // the Reduce class ([..., m, n])
  ClassId a, b;    // the base operands the GEMM reads
  GemmSpec spec;
};

// Recognises Reduce(sum, last axis) of Mul(Expand(Reshape(A')), Expand(Reshape(B'))) where one
// side is [..., m, 1, k] and the other [..., 1, n, k], and A'/B' are matrices or permutes of the
// last two axes of matrices. f32 only.
std::optional<MatmulMatch> matchMatmul(const Graph& g, ClassId c);
// Every class matchMatmul or, failing it, matchContraction (convolutions, contraction_matcher.h)
// recognises, in topological order.
std::vector<MatmulMatch> findMatmuls(const Graph& g, const std::vector<ClassId>& outputs);

// Each match joins its class as a Kernel node running the GEMM on `device` (the openblas device),
// timed now. Appends one KernelEntry per match, in match order (the memory-ops stage relies on it).
void addGemmKernels(Graph& g, const std::vector<MatmulMatch>& matches, uint32_t device, std::vector<KernelEntry>& entries);

}  // namespace ks
