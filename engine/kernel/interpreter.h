// The kernel IR interpreter: runs an unlowered Kernel (op by op, whole tensors) or a LoweredKernel
// (work-item by work-item, phase by phase between barriers) on host buffers. The two are
// independent implementations, so running a lowered kernel against its unlowered form checks
// lowering and schedules cheaply. Scalar semantics are eval/scalar_ops.h, shared with the host
// executor (its rules: host_executor.h); PyTorch's values in tests/data/op_cases.json check both.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/host_tensor.h"
#include "engine/graph/ops.h"
#include "engine/kernel/kernel.h"
#include "engine/kernel/lowered_kernel.h"

namespace ks {

// A value of a known dtype: floats in f (already rounded to the dtype), ints and bool in i (wrapped).
struct KVal {
  double f = 0.0;
  int64_t i = 0;
};
KVal kvalOf(const Scalar& s);
// x has dtype t; the result too (IsNan: bool).
KVal evalUnary(UnaryOp op, DType t, KVal x);
// a and b have dtype t; the result has t (comparisons: bool).
KVal evalBinary(BinaryOp op, DType t, KVal a, KVal b);
KVal evalCast(DType from, DType to, KVal x);
// The value whose `to` bit pattern is x's `from` pattern (same byte size; f16 as its 16 bits,
// bool as its byte: a nonzero byte reads as true, like HostExecutor's).
KVal evalBitcast(DType from, DType to, KVal x);
// A reduction's start value in its accumulation dtype `at` (f16 accumulates in f32): 0, 1, or the
// dtype's lowest / highest value (-inf / inf for floats, false / true for bool).
KVal reduceIdentity(ReduceOp r, DType at);

// `buffers` holds one tensor per Param of the kernel, in param order (Scalar params: one element).
// ReadWrite params receive the stored values. Throws ks::Error (Usage) on mismatched buffers.
void runKernel(const Kernel& k, std::vector<HostTensor>& buffers);
// Same contract; also throws ks::Error (Launch) on an out-of-bounds load or store.
void runLowered(const LoweredKernel& k, std::vector<HostTensor>& buffers);

}  // namespace ks
