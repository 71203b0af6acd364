// The host reference executor: runs a graph node by node on the CPU. It is the oracle every
// device, kernel and optimization is checked against, so it is written to be obviously correct.
#pragma once
#include <vector>

#include "engine/core/host_tensor.h"
#include "engine/graph/graph.h"

namespace ks {

// Exact semantics (normative: the OpenCL code generator and the kernel IR interpreter match them).
//
// Evaluation
// - Walks the structural node (eclass.nodes[0]) of every class reachable from the outputs, in
//   Graph::topoOrder. Alternatives (Kernel nodes) are ignored. ToDevice and Contiguous are the
//   identity. A class whose structural node is a Kernel is an error (ErrorCode::Unsupported).
// - Leaves come from `leaves`, indexed by leaf index; their dtype and shape must match the graph's
//   leaf (ErrorCode::Usage otherwise). A Constant leaf whose slot is missing or does not match is
//   taken from the graph's own data.
// - A rank-0 Const operand of Binary/Where broadcasts to the other operands' shape.
//
// Numbers
// - f32 is computed in float (std::exp(float) etc.), f64 in double. f16 is a storage type: every
//   f16 value is computed as f32 and rounded to f16 (half to even) when stored.
// - Integers are computed in int64 (two's complement, no UB) and wrapped to the dtype's width on
//   store. bool is 0/1.
// - Unary: Round is half to even (rint). Sign is (x > 0) - (x < 0): Sign(NaN) = 0 and Sign(-0) = +0,
//   as PyTorch 1.13 does. Rsqrt = 1 / sqrt(x), Reciprocal = 1 / x (in the dtype). Abs/Neg of the
//   most negative int wrap. Not: logical for bool, bitwise (~) for ints, wrapped. IsNan -> bool
//   (always false for ints and bool).
// - Binary: Div is true division for floats; for ints it truncates toward zero and int division by
//   zero gives 0 (documented choice; PyTorch raises). Mod takes the divisor's sign (Python/PyTorch
//   remainder): floats r = fmod(a, b), r += b when r != 0 and sign(r) != sign(b) (so x mod 0 = NaN);
//   ints likewise, with x mod 0 = 0. Pow: floats std::pow in the dtype; ints an exact integer power,
//   wrapped, with a negative exponent giving 0 except for base 1 (-> 1) and base -1 (-> ±1).
//   Max/Min propagate NaN (either operand NaN -> NaN). Comparisons with NaN are false except Ne.
//   And/Or/Xor: logical for bool, bitwise for ints.
// - Cast: float -> int truncates toward zero, saturating at the target's range, NaN -> 0
//   (ks::floatToInt); anything -> bool is != 0 (NaN -> true); int -> int wraps; -> f16 rounds half
//   to even from the f32 value (f64 -> f16 goes through f32, as a device without f16 does).
//   Bitcast reinterprets the stored bits (f16 as its 16-bit pattern).
// - Where is a real select: the unselected branch never leaks (NaN/inf there do not matter).
// - Pad fills the new elements with the node's value; negative pads crop.
// - Reduce Sum/Prod/Max/Min accumulate IN THE DTYPE (float for f32, int64 wrapped at the end for
//   ints, f32 then rounded for f16), sequentially over the reduced elements in row-major order of
//   the reduced axes. Max/Min propagate NaN. An empty Sum is 0 and an empty Prod is 1; an empty
//   Max/Min is -inf/+inf for floats and the dtype's lowest/highest value for ints (the builder
//   rejects those reductions; the graph allows them).
class HostExecutor {
 public:
  // Evaluates `outputs`; the results are dense row-major tensors with each class's dtype and shape.
  // Every class is evaluated at most once, however many consumers share it; `evaluated`, when
  // given, receives the classes in evaluation order. Throws ks::Error for missing/mismatched
  // leaves and Kernel-only classes.
  static std::vector<HostTensor> run(const Graph& graph, const std::vector<ClassId>& outputs,
                                     const std::vector<HostTensor>& leaves, std::vector<ClassId>* evaluated = nullptr);
};

}  // namespace ks
