// Reductions built from the primitive ones: var/std, argmax/argmin and cumsum.
#include "engine/program/prim_ops.h"

namespace ks::op {

// var = sum((x - mean)^2) / max(0, N - correction) (N/0 gives inf or NaN, as PyTorch does).
Value var(Value x, std::vector<int64_t> axes, double correction, bool keepdim) {
  const std::vector<int> ax = normalizeAxes(axes, x.rank(), "var");
  const DType t = isFloat(x.dtype()) ? x.dtype() : DType::F32;
  Value xf = cast(x, prim::computeType(t));
  std::vector<int64_t> ax64(ax.begin(), ax.end());
  int64_t n = 1;
  for (int a : ax) n *= x.shape()[a];
  Value d = sub(xf, mean(xf, ax64, true));
  Value s = sum(mul(d, d), ax64, keepdim);
  const double divisor = std::max(0.0, static_cast<double>(n) - correction);
  return cast(div(s, divisor), t);
}

Value std(Value x, std::vector<int64_t> axes, double correction, bool keepdim) {
  const DType t = isFloat(x.dtype()) ? x.dtype() : DType::F32;
  // var of the widened tensor, so an f16 result is rounded once (after the sqrt), not twice
  return cast(sqrt(var(cast(x, prim::computeType(t)), std::move(axes), correction, keepdim)), t);
}

namespace {
// First index along `axis` where x equals its max (min); NaN counts as the extreme, as in PyTorch.
// index = min over the axis of where(x == extreme or isnan(x), arange, size).
Value argExtreme(Value x, int64_t axis, bool keepdim, bool isMax, const char* name) {
  if (x.rank() == 0) {
    Value r = argExtreme(reshape(x, {1}), 0, false, isMax, name);
    return reshape(r, {});
  }
  const int a = normalizeAxis(axis, x.rank(), name);
  const int64_t d = x.shape()[a];
  if (d == 0) prim::fail(x, ErrorCode::Shape, name, "cannot take " + std::string(name) + " of an empty dimension of " + prim::describe(x));
  Value ext = isMax ? max(x, {a}, true) : min(x, {a}, true);
  Value hit = eq(x, ext);
  if (isFloat(x.dtype())) hit = logicalOr(hit, isnan(x));
  HostTensor idx(DType::I64, {d});
  for (int64_t i = 0; i < d; ++i) idx.setInt(i, i);
  std::vector<int64_t> idxShape(static_cast<std::size_t>(x.rank()), 1);
  idxShape[a] = d;
  const Shape xShape = x.shape();  // a copy: adding nodes moves the graph's shapes
  Value ar = broadcastTo(reshape(x.builder()->constant(idx), idxShape), xShape);
  Value cand = where(hit, ar, Operand(d));
  Value r = prim::reduce(cand, ReduceOp::Min, {a});
  return keepdim ? reshape(r, prim::keptShape(x.shape(), {a})) : r;
}
}  // namespace

Value argmax(Value x, int64_t axis, bool keepdim) { return argExtreme(x, axis, keepdim, true, "argmax"); }
Value argmin(Value x, int64_t axis, bool keepdim) { return argExtreme(x, axis, keepdim, false, "argmin"); }

// cumsum along an axis: out[i] = sum_{j <= i} x[j], as a masked sum over a [.., n, n] expansion
// (mask = lower-triangular constant, selected with Where so that NaN/inf stay where they are).
// Ints and bool accumulate in i64, floats in their dtype (f16 in f32), as PyTorch does.
Value cumsum(Value x, int64_t axis) {
  if (x.rank() == 0) return cast(x, sumResultType(x.dtype()));
  const int a = normalizeAxis(axis, x.rank(), "cumsum");
  const DType t = sumResultType(x.dtype());
  const int64_t n = x.shape()[a];
  Value xm = transpose(cast(x, prim::computeType(t)), a, -1);  // the axis last
  Shape full = xm.shape();
  full.push_back(n);  // [..., n(out), n(in)]
  std::vector<int64_t> rowShape = prim::toVec(xm.shape());
  rowShape.insert(rowShape.end() - 1, 1);  // [..., 1, n]
  Value rows = broadcastTo(reshape(xm, rowShape), full);
  HostTensor tri(DType::Bool, {n, n});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) tri.setInt(i * n + j, 1);
  Value mask = broadcastTo(x.builder()->constant(tri), full);
  Value r = prim::reduce(where(mask, rows, Operand(0)), ReduceOp::Sum, {static_cast<int>(full.size()) - 1});
  return cast(transpose(r, a, -1), t);
}

}  // namespace ks::op
