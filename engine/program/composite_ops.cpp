// Composite ops lowered to primitives: matmul, linear and the normalizations built on reductions.
#include <numeric>

#include "engine/program/prim_ops.h"

namespace ks::op {

using prim::computeType;

// ---------------------------------------------------------------- matmul
// matmul(a, b) is emitted in zyx's broadcast-multiply-reduce form so that the kernelizer and the
// OpenBLAS pattern matcher can recognise it. With a = [...A, m, k], b = [...B, k, n],
// batch = broadcast(A, B) of rank R, and t = the promoted dtype (f16 computes in f32):
//
//   a' = cast(a, t)                                   (omitted when a already is t)
//   ra = Reshape a' -> [1.., ...A, m, 1, k]           (A left-padded with 1s to rank R)
//   ea = Expand  ra -> [...batch, m, n, k]            (omitted when ra already has that shape)
//   b' = cast(b, t)                                   (omitted when b already is t)
//   pb = Permute b' -> [...B, n, k]                   (swap of the last two axes)
//   rb = Reshape pb -> [1.., ...B, 1, n, k]
//   eb = Expand  rb -> [...batch, m, n, k]            (omitted when rb already has that shape)
//   p  = Binary Mul (ea, eb)                          [...batch, m, n, k]
//   s  = Reduce Sum [R + 2] (p)                       [...batch, m, n], accumulated in t
//
// 1-D operands follow NumPy: a [k] is first reshaped to [1, k] and b [k] to [k, 1] (before the
// steps above), and the added m / n axis is removed at the end by one more Reshape. An f16 result
// is a final Cast of s to f16. Integer matmul accumulates (and wraps) in the integer dtype.
Value matmul(Value a, Value b) {
  if (a.rank() == 0 || b.rank() == 0)
    prim::fail(a, ErrorCode::Shape, "matmul",
               "matmul of a rank-0 tensor: " + prim::describe(a) + " @ " + prim::describe(b));
  PromotionOperand ps[2] = {{a.dtype(), PromotionOperand::Priority::Tensor},
                            {b.dtype(), PromotionOperand::Priority::Tensor}};
  const DType t = resultType(ps, 2);
  if (t == DType::Bool)
    prim::fail(a, ErrorCode::DType, "matmul", "matmul of bool tensors: " + prim::describe(a) + " @ " + prim::describe(b));
  const DType ct = computeType(t);
  const bool aVec = a.rank() == 1, bVec = b.rank() == 1;
  const std::string what = prim::describe(a) + " @ " + prim::describe(b);
  Value x = cast(a, ct), y = cast(b, ct);
  if (aVec) x = reshape(x, {1, x.dim(0)});
  if (bVec) y = reshape(y, {y.dim(0), 1});
  const int64_t m = x.dim(-2), k = x.dim(-1), k2 = y.dim(-2), n = y.dim(-1);
  if (k != k2) prim::fail(a, ErrorCode::Shape, "matmul", "inner dimensions differ (" + std::to_string(k) + " vs " +
                                                             std::to_string(k2) + "): " + what);
  const Shape batchA(x.shape().begin(), x.shape().end() - 2), batchB(y.shape().begin(), y.shape().end() - 2);
  const Shape batch = broadcastShapes(batchA, batchB, "matmul");
  const std::size_t R = batch.size();
  Shape full = batch;
  full.insert(full.end(), {m, n, k});

  std::vector<int64_t> aShape(R - batchA.size(), 1);
  aShape.insert(aShape.end(), batchA.begin(), batchA.end());
  aShape.insert(aShape.end(), {m, 1, k});
  Value ea = broadcastTo(reshape(x, aShape), full);

  std::vector<int64_t> bShape(R - batchB.size(), 1);
  bShape.insert(bShape.end(), batchB.begin(), batchB.end());
  bShape.insert(bShape.end(), {1, n, k});
  Value eb = broadcastTo(reshape(transpose(y, -1, -2), bShape), full);

  Value s = prim::reduce(prim::binary(BinaryOp::Mul, ea, eb), ReduceOp::Sum, {static_cast<int>(R + 2)});
  if (aVec || bVec) {
    std::vector<int64_t> outShape(batch.begin(), batch.end());
    if (!aVec) outShape.push_back(m);
    if (!bVec) outShape.push_back(n);
    s = reshape(s, outShape);
  }
  return cast(s, t);
}

Value linear(Value x, Value w, std::optional<Value> b) {
  Value y = matmul(x, w);
  return b ? add(y, *b) : y;
}

// ---------------------------------------------------------------- softmax family
namespace {
// Float dtype an op on x produces (ints and bool -> f32, as PyTorch does).
DType floatResult(Value x) { return isFloat(x.dtype()) ? x.dtype() : DType::F32; }
}  // namespace

// softmax = e / expand(sum(e)), e = exp(x - expand(max(x))): the max shift keeps it stable.
Value softmax(Value x, int64_t axis) {
  const DType t = floatResult(x);
  if (x.rank() == 0) return reshape(softmax(reshape(x, {1}), 0), {});
  const int ax = normalizeAxis(axis, x.rank(), "softmax");
  Value xf = cast(x, computeType(t));
  Value e = exp(sub(xf, max(xf, {ax}, true)));
  return cast(div(e, sum(e, {ax}, true)), t);
}

// log_softmax = (x - m) - log(sum(exp(x - m))), m = max(x).
Value logSoftmax(Value x, int64_t axis) {
  const DType t = floatResult(x);
  if (x.rank() == 0) return reshape(logSoftmax(reshape(x, {1}), 0), {});
  const int ax = normalizeAxis(axis, x.rank(), "log_softmax");
  Value xf = cast(x, computeType(t));
  Value shifted = sub(xf, max(xf, {ax}, true));
  return cast(sub(shifted, log(sum(exp(shifted), {ax}, true))), t);
}

// ---------------------------------------------------------------- normalizations
namespace {
std::vector<int64_t> lastAxes(Value x, int64_t count, const char* name) {
  if (count < 1 || count > x.rank())
    prim::fail(x, ErrorCode::Axis, name,
               "cannot normalize over the last " + std::to_string(count) + " dimensions of " + prim::describe(x));
  std::vector<int64_t> axes;
  for (int64_t i = x.rank() - count; i < x.rank(); ++i) axes.push_back(i);
  return axes;
}
}  // namespace

// layer_norm = (x - mean) * rsqrt(var_biased + eps) * weight + bias over the last dims.
Value layerNorm(Value x, std::optional<Value> weight, std::optional<Value> bias, int64_t normalizedDims, double eps) {
  const DType t = floatResult(x);
  const std::vector<int64_t> axes = lastAxes(x, normalizedDims, "layer_norm");
  Value xf = cast(x, computeType(t));
  Value xc = sub(xf, mean(xf, axes, true));
  Value var = mean(mul(xc, xc), axes, true);
  Value y = mul(xc, rsqrt(add(var, eps)));
  if (weight) y = mul(y, cast(*weight, computeType(t)));
  if (bias) y = add(y, cast(*bias, computeType(t)));
  return cast(y, t);
}

// rms_norm = x * rsqrt(mean(x^2) + eps) * weight over the last dims.
Value rmsNorm(Value x, std::optional<Value> weight, int64_t normalizedDims, double eps) {
  const DType t = floatResult(x);
  const std::vector<int64_t> axes = lastAxes(x, normalizedDims, "rms_norm");
  Value xf = cast(x, computeType(t));
  Value y = mul(xf, rsqrt(add(mean(mul(xf, xf), axes, true), eps)));
  if (weight) y = mul(y, cast(*weight, computeType(t)));
  return cast(y, t);
}

// batch_norm (inference): (x - mean) * rsqrt(var + eps) * weight + bias with per-channel
// statistics on axis 1, broadcast as [C, 1, 1, ...].
Value batchNorm(Value x, Value mean, Value var, std::optional<Value> weight, std::optional<Value> bias, double eps) {
  const DType t = floatResult(x);
  if (x.rank() < 2) prim::fail(x, ErrorCode::Shape, "batch_norm", "needs a tensor of rank >= 2, got " + prim::describe(x));
  const int64_t c = x.dim(1);
  std::vector<int64_t> chShape(static_cast<std::size_t>(x.rank() - 1), 1);
  chShape[0] = c;
  auto channel = [&](Value v, const char* what) {
    if (v.rank() != 1 || v.dim(0) != c)
      prim::fail(v, ErrorCode::Shape, "batch_norm",
                 std::string(what) + " must have shape [" + std::to_string(c) + "], got " + prim::describe(v));
    return reshape(cast(v, computeType(t)), chShape);
  };
  const DType ct = computeType(t);
  Value y = mul(sub(cast(x, ct), channel(mean, "running mean")), rsqrt(add(channel(var, "running var"), eps)));
  if (weight) y = mul(y, channel(*weight, "weight"));
  if (bias) y = add(y, channel(*bias, "bias"));
  return cast(y, t);
}

}  // namespace ks::op
