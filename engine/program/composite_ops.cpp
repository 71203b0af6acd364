// Composite ops lowered to primitives: matmul, linear and the normalizations built on reductions.
#include <cmath>
#include <limits>
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

// ---------------------------------------------------------------- attention
// scaled_dot_product_attention = softmax(q k^T * scale [masked]) v, scale = 1/sqrt(E) by default.
// The causal mask keeps key j for query i when j <= i (top-left aligned, as PyTorch's is_causal);
// masked scores become -inf through Where, so they contribute exactly 0.
Value scaledDotProductAttention(Value q, Value k, Value v, bool causal, std::optional<double> scale) {
  if (q.rank() < 2 || k.rank() < 2 || v.rank() < 2)
    prim::fail(q, ErrorCode::Shape, "scaled_dot_product_attention",
               "q, k, v need rank >= 2, got " + prim::describe(q) + ", " + prim::describe(k) + ", " + prim::describe(v));
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(q.dim(-1)));
  Value scores = mul(matmul(q, transpose(k, -2, -1)), sc);
  if (causal) {
    const int64_t l = q.dim(-2), s = k.dim(-2);
    HostTensor tri(DType::Bool, {l, s});
    for (int64_t i = 0; i < l; ++i)
      for (int64_t j = 0; j <= i && j < s; ++j) tri.setInt(i * s + j, 1);
    Value mask = q.builder()->constant(tri);
    scores = where(mask, scores, -std::numeric_limits<double>::infinity());
  }
  return matmul(softmax(scores, -1), v);
}

// ---------------------------------------------------------------- gather and losses
namespace {
// [..., n] bool: indices[...] == j for j < n (a constant arange compared against the indices).
Value oneHotMask(Value indices, int64_t n, const char* name) {
  if (!isInt(indices.dtype()))
    prim::fail(indices, ErrorCode::DType, name, "indices must be integers, got " + prim::describe(indices));
  if (n < 0) prim::fail(indices, ErrorCode::Usage, name, "negative number of classes " + std::to_string(n));
  HostTensor ar(DType::I64, {n});
  for (int64_t j = 0; j < n; ++j) ar.setInt(j, j);
  return eq(unsqueeze(cast(indices, DType::I64), -1), indices.builder()->constant(ar));
}
}  // namespace

// embedding gathers rows with a one-hot Where and a sum over the table's rows: exact (a NaN in an
// unselected row never leaks, unlike a multiply-reduce). Out-of-range indices give zero rows.
Value embedding(Value indices, Value table) {
  if (table.rank() != 2) prim::fail(table, ErrorCode::Shape, "embedding", "table must be [rows, dim], got " + prim::describe(table));
  const int64_t rows = table.dim(0), dim = table.dim(1);
  Value mask = oneHotMask(indices, rows, "embedding");  // [..., V]
  std::vector<int64_t> ms = prim::toVec(mask.shape());
  ms.push_back(1);
  Shape full(ms.begin(), ms.end());
  full.back() = dim;  // [..., V, D]
  Value picked = where(broadcastTo(reshape(mask, ms), full), broadcastTo(table, full),
                       prim::constant(table.builder(), table.dtype(), 0.0));
  const DType ct = prim::computeType(table.dtype());
  return cast(prim::reduce(cast(picked, ct), ReduceOp::Sum, {static_cast<int>(full.size()) - 2}), table.dtype());
}

Value oneHot(Value indices, int64_t numClasses) { return cast(oneHotMask(indices, numClasses, "one_hot"), DType::I64); }

// cross_entropy = mean over the batch of -log_softmax(logits)[n, target[n]]; logits [N, C] or [C].
Value crossEntropy(Value logits, Value target) {
  if (logits.rank() == 1) return crossEntropy(unsqueeze(logits, 0), unsqueeze(target, 0));
  if (logits.rank() != 2 || target.rank() != 1 || target.dim(0) != logits.dim(0))
    prim::fail(logits, ErrorCode::Shape, "cross_entropy",
               "needs logits [N, C] and targets [N], got " + prim::describe(logits) + " and " + prim::describe(target));
  Value ls = logSoftmax(logits, -1);
  Value picked = where(oneHotMask(target, logits.dim(1), "cross_entropy"), ls, 0.0);
  return neg(mean(sum(picked, {1})));
}

Value mse(Value a, Value b) {
  Value d = sub(a, b);
  if (!isFloat(d.dtype())) d = toFloat(d);
  return mean(mul(d, d));
}

}  // namespace ks::op
