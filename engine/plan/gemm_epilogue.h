// A GEMM step's epilogue: what follows a matched product in the graph and the host can do to it
// before it is stored (a bias, an activation, a pooling window), so that no kernel launch, and no
// wait for one, sits between two GEMMs. Derived from the graph alone, like the gathers: the class
// a GEMM-with-epilogue Kernel node stores is walked down to the product it starts from.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/graph/graph.h"

namespace ks {

struct EpilogueOp {
  enum class Kind : uint8_t { Unary, Binary, Window } kind = Kind::Unary;
  uint8_t op = 0;               // UnaryOp / BinaryOp / ReduceOp
  // Binary: the running value is the left operand; the other is operand `operand` (an index into
  // the epilogue's extra inputs) or, when -1, `constant`.
  bool valueLeft = true;
  int operand = -1;
  float constant = 0;
  Shape shape;                  // Binary: the value's shape at this op
  std::vector<int64_t> strides; // Binary: the operand's element strides over `shape` (0: broadcast)
  // Window: out[o] = reduce over window[o * windowSize + j] of the value's inElements elements;
  // the index inElements stands for `fill` (written one past the value's end before the op).
  std::vector<int32_t> window;
  int64_t windowSize = 0, inElements = 0;
  float fill = 0;
  int64_t outElements = 0;      // elements after the op
};

struct GemmEpilogue {
  ClassId product;              // the GEMM's class
  std::vector<ClassId> extra;   // operands the ops read in place, in EpilogueOp::operand order
  std::vector<EpilogueOp> ops;  // from the product up to the stored class
  int64_t productElements = 0;

  // value (productElements + 1 floats, overwritten) through the ops into out (the stored class);
  // scratch holds scratchElements() floats.
  void apply(float* value, float* out, const std::vector<const float*>& operands, float* scratch) const;
  int64_t scratchElements() const;
};

// The epilogue that ends at class `e`, walked down through f32 unary and binary ops (the other
// operand a constant or a view of a leaf), Reshapes and window reductions (a max or sum over
// movement nodes of the value) to a class that `isProduct` accepts; nothing when `e` is no such
// chain or has no op.
std::optional<GemmEpilogue> epilogueOf(const Graph& g, ClassId e, const std::function<bool(ClassId)>& isProduct);

// Consumers of each class over the structural nodes reachable from the outputs: how many, and
// the first.
struct StructuralUses {
  std::vector<uint32_t> count;
  std::vector<ClassId> first;
};
StructuralUses structuralUses(const Graph& g, const std::vector<ClassId>& outputs);

// The furthest class above product `c` an epilogue reaches: up through classes with one consumer
// that are not outputs, ending on an op (not a Reshape). Nothing when no op follows.
std::optional<ClassId> epilogueEnd(const Graph& g, ClassId c, const StructuralUses& uses,
                                   const std::vector<ClassId>& outputs);

}  // namespace ks
