// The kernel IR before lowering: a DAG of tensor-level ops that one fused kernel computes.
// Built by the kernelizer, lowered to loops and indices by lowering.h, run by the interpreter.
//
// Rules (checked by verifyKernel):
// - ops are in dependency order: an op only references ops with smaller indices;
// - Param ops are the kernel's arguments, in op order. Read params are parallel to the fused
//   kernel's `loads`, ReadWrite params to its `stores`;
// - Store{param, value} writes a whole value into a ReadWrite param of the same shape and dtype;
// - Reduce reduces the trailing axis of its operand (the kernelizer permutes reduced axes last);
// - a rank-0 operand of Binary/Where broadcasts implicitly (constants); all others match shapes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/scalar.h"
#include "engine/core/shape.h"
#include "engine/graph/ops.h"

namespace ks {

// Bitcast comes last so that the kind numbers session files already hold keep their meaning.
enum class KOpKind : uint8_t { Param, Const, Move, Unary, Binary, Cast, Where, Reduce, Store, Bitcast };
enum class ParamKind : uint8_t { Read, ReadWrite, Scalar };
enum class MoveKind : uint8_t { Reshape, Expand, Permute, Pad, Narrow, Flip };
std::string_view moveKindName(MoveKind m);

struct KOp {
  KOpKind kind = KOpKind::Const;
  uint8_t op = 0;             // UnaryOp / BinaryOp / ReduceOp / MoveKind / ParamKind
  DType dtype = DType::F32;   // result dtype (Store: the stored dtype)
  Shape shape;                // result shape (Store: the stored shape)
  std::vector<int32_t> src;   // operand op indices (Store: {param, value}; Where: {cond, a, b})
  std::vector<int64_t> attr;  // Move: Reshape/Expand target shape, Permute/Flip axes,
                              //       Pad {axis, lp, rp}, Narrow {axis, start, len}
  Scalar value;               // Const value; Pad fill value

  MoveKind moveKind() const { return static_cast<MoveKind>(op); }
  ParamKind paramKind() const { return static_cast<ParamKind>(op); }
  UnaryOp unaryOp() const { return static_cast<UnaryOp>(op); }
  BinaryOp binaryOp() const { return static_cast<BinaryOp>(op); }
  ReduceOp reduceOp() const { return static_cast<ReduceOp>(op); }
  bool operator==(const KOp& o) const = default;
};

class Kernel {
 public:
  std::vector<KOp> ops;

  // Builders: each appends one op, computes its shape/dtype, and returns its index.
  int32_t param(ParamKind kind, DType t, const Shape& s);
  int32_t constant(Scalar v);
  int32_t move(int32_t x, MoveKind m, std::vector<int64_t> attr, Scalar padValue = {});
  int32_t unary(int32_t x, UnaryOp u);
  int32_t binary(int32_t x, int32_t y, BinaryOp b);
  int32_t cast(int32_t x, DType t);
  int32_t bitcast(int32_t x, DType t);  // reinterprets the bits; t has x's byte size
  int32_t where(int32_t cond, int32_t a, int32_t b);
  int32_t reduce(int32_t x, ReduceOp r);  // over the trailing axis
  int32_t store(int32_t param, int32_t x);
  int32_t push(KOp op);  // appends as is

  const KOp& at(int32_t i) const { return ops.at(static_cast<std::size_t>(i)); }
  std::size_t size() const { return ops.size(); }
  std::vector<int32_t> params() const;       // all Param ops in order (the launch arguments)
  std::vector<int32_t> readParams() const;   // Read params in order (parallel to loads)
  std::vector<int32_t> storeOps() const;     // Store ops in order (parallel to stores)
  bool containsStores() const;
  bool isReduce() const;  // has a Reduce op
  // True if a Reduce / any compute op (Unary, Binary, Cast, Where, Reduce) is among the ops
  // that `op` depends on, `op` included. Looks at this unlowered IR (zyx's version looked for
  // an op that exists only after lowering and never fired).
  bool isPrecededByReduce(int32_t op) const;
  bool isPrecededByCompute(int32_t op) const;
  // True if a movement op reads a reduce's result (directly or through other ops); with
  // `exceptUnitReshapes`, reshapes that only add or drop axes of size 1 do not count.
  bool hasMoveAfterReduce(bool exceptUnitReshapes = false) const;

  // Appends all ops of `other` (params included, in order); returns the old->new index map.
  std::vector<int32_t> append(const Kernel& other);
  // The ops that `roots` depend on, the roots included: one flag per op.
  std::vector<bool> dependencies(const std::vector<int32_t>& roots) const;
  // A kernel of only the flagged ops, in their order, renumbered.
  struct Subset;
  Subset subset(const std::vector<bool>& keep) const;

  // Common-subexpression elimination: an op equal to an earlier one (same kind, operands after
  // this rewrite, attributes, value) is dropped and its uses point at the earlier one; Params and
  // Stores are never merged. Returns the old->new index map.
  std::vector<int32_t> shareCommonOps();

  uint64_t hash() const;       // structural: the tuning-cache key
  std::string print() const;   // readable, stable text
  double flops() const;        // elementwise ops count once per output element, reduces per input element
  int64_t bytesMoved() const;  // bytes of every param read or written once
  std::string name() const;    // short name from the ops, e.g. "exp_mul_sum"
};

struct Kernel::Subset {
  Kernel kernel;
  std::vector<int32_t> map;         // old op index -> new one, -1 for an op left out
  std::vector<int32_t> readParams;  // for each kept Read param in order, its position in readParams()
};

// Checks the rules at the top of this file; returns an empty string when the kernel is valid,
// otherwise a description of the first violation ("op 7: store into a Read param").
std::string verifyKernel(const Kernel& k);

}  // namespace ks
