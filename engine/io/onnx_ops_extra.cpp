// Less common ONNX ops: inverse trigonometry (series after argument reduction), BitShift,
// quantization, and the index-driven ops whose indices are import-time constants (Compress,
// NonZero, GatherND, Scatter*, TopK via pairwise ranks).
#include <algorithm>
#include <cmath>

#include "engine/io/onnx_ops.h"

namespace ks::onnxops {
namespace {

using V = std::vector<OnnxValue>;

// atan in f32/f64: fold |x| > 1 onto 1/|x|, halve the angle twice (t / (1 + sqrt(1 + t^2))), so
// |t| <= tan(pi/16) and the odd Taylor series to t^15 is exact to ~1e-13.
Value atanOf(Value x) {
  Value a = op::abs(x);
  Value big = op::gt(a, scalarLike(a, 1));
  Value t = op::where(big, op::reciprocal(a), a);
  for (int i = 0; i < 2; ++i) t = op::div(t, op::add(op::sqrt(op::add(op::mul(t, t), scalarLike(t, 1))), scalarLike(t, 1)));
  Value t2 = op::mul(t, t);
  Value s = scalarLike(t, 0);
  for (int k = 15; k >= 1; k -= 2) {
    const double c = ((k / 2) % 2 ? -1.0 : 1.0) / k;
    s = op::add(op::mul(s, t2), scalarLike(t, c));  // Horner in t^2 over c_k = (-1)^j / (2j+1)
  }
  Value r = op::mul(op::mul(s, t), scalarLike(t, 4));
  r = op::where(big, op::sub(scalarLike(r, M_PI / 2), r), r);
  return op::where(op::lt(x, scalarLike(x, 0)), op::neg(r), r);
}
Value asinOf(Value x) { return atanOf(op::div(x, op::sqrt(op::sub(scalarLike(x, 1), op::mul(x, x))))); }

template <Value (*F)(Value)>
V floatFn(OnnxContext& c) {
  Value x = c.value(0);
  const DType t = x.dtype();
  Value y = t == DType::F64 ? x : op::cast(x, DType::F32);
  return one(op::cast(F(y), t));
}
Value acosOf(Value x) { return op::sub(scalarLike(x, M_PI / 2), asinOf(x)); }

V bitShift(OnnxContext& c) {
  Value x = c.value(0), y = c.value(1);
  if (!isInt(x.dtype())) c.fail("needs integer inputs", ErrorCode::DType);
  Value p = op::pow(scalarLike(x, 2), y);  // exact integer power, wrapped to the dtype
  const std::string dir = c.node.attrString("direction", "");
  if (dir == "LEFT") return one(op::mul(x, p));
  if (dir == "RIGHT") return one(op::div(x, p));
  c.fail("direction must be LEFT or RIGHT");
}

// A per-axis (1-D) or scalar quantization parameter shaped to broadcast against x.
Value alongAxis(OnnxContext& c, Value v, const Value& x) {
  if (v.rank() == 0 || numel(v.shape()) == 1) return op::reshape(v, {});
  const int axis = axisOf(c, c.node.attrInt("axis", 1), x.rank());
  std::vector<int64_t> s(x.rank(), 1);
  s[axis] = numel(v.shape());
  return op::reshape(v, s);
}

Value saturate(Value v, DType t) {
  const double lo = t == DType::U8 ? 0 : t == DType::I8 ? -128 : lowestOf(t);
  const double hi = t == DType::U8 ? 255 : t == DType::I8 ? 127 : 2147483647.0;
  return op::cast(op::minimum(op::maximum(v, scalarLike(v, lo)), scalarLike(v, hi)), t);
}

V quantizeLinear(OnnxContext& c) {
  Value x = op::cast(c.value(0), DType::F32);
  Value scale = op::cast(alongAxis(c, c.value(1), x), DType::F32);
  const DType out = c.has(2) ? c.dtype(2) : DType::U8;
  if (out != DType::U8 && out != DType::I8) c.fail("zero point dtype must be uint8 or int8", ErrorCode::DType);
  Value q = op::round(op::div(x, scale));
  if (c.has(2)) q = op::add(q, op::cast(alongAxis(c, c.value(2), x), DType::F32));
  return one(saturate(q, out));
}

V dequantizeLinear(OnnxContext& c) {
  Value x = c.value(0);
  Value xf = op::cast(x, DType::F32);
  if (c.has(2)) xf = op::sub(xf, op::cast(alongAxis(c, c.value(2), x), DType::F32));
  return one(op::mul(xf, op::cast(alongAxis(c, c.value(1), x), DType::F32)));
}

V dynamicQuantizeLinear(OnnxContext& c) {
  Value x = op::cast(c.value(0), DType::F32);
  Value lo = op::minimum(op::min(x), scalarLike(x, 0)), hi = op::maximum(op::max(x), scalarLike(x, 0));
  Value scale = op::div(op::sub(hi, lo), scalarLike(x, 255));
  Value zp = saturate(op::round(op::div(op::neg(lo), scale)), DType::U8);
  Value y = saturate(op::add(op::round(op::div(x, scale)), op::cast(zp, DType::F32)), DType::U8);
  return {OnnxValue::of(y), OnnxValue::of(scale), OnnxValue::of(zp)};
}

// Elements `idx` of `x` along `axis` (known positions): narrow+concat for a few, one-hot otherwise.
Value takeConstant(OnnxContext& c, Value x, int axis, const std::vector<int64_t>& idx) {
  if (idx.empty()) return op::narrow(x, axis, 0, 0);
  if (idx.size() <= 16) {
    std::vector<Value> parts;
    for (int64_t k : idx) parts.push_back(op::narrow(x, axis, k, 1));
    return concatAxis(parts, axis);
  }
  HostTensor t(DType::I64, {static_cast<Dim>(idx.size())});
  for (std::size_t i = 0; i < idx.size(); ++i) t.setInt(static_cast<int64_t>(i), idx[i]);
  return gatherAxis(x, c.b.constant(t), axis);
}

V compress(OnnxContext& c) {
  Value x = c.value(0);
  const HostTensor& cond = c.constant(1, "condition");
  int axis = 0;
  if (c.node.has("axis")) axis = axisOf(c, c.node.attrInt("axis", 0), x.rank());
  else x = op::reshape(x, {numel(x.shape())});
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < cond.numel() && i < x.dim(axis); ++i)
    if (cond.getInt(i)) idx.push_back(i);
  return one(takeConstant(c, x, axis, idx));
}

V nonZero(OnnxContext& c) {
  const HostTensor& x = c.constant(0, "input");
  const Shape s = x.shape().empty() ? Shape{1} : x.shape();
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (isFloat(x.dtype()) ? x.getDouble(i) != 0 : x.getInt(i) != 0) hits.push_back(i);
  const int64_t r = static_cast<int64_t>(s.size()), n = static_cast<int64_t>(hits.size());
  HostTensor out(DType::I64, c.checkSize({r, n}));
  const Shape strides = rowMajorStrides(s);
  for (int64_t k = 0; k < n; ++k)
    for (int64_t a = 0; a < r; ++a) out.setInt(a * n + k, (hits[k] / strides[a]) % s[a]);
  return one(out);
}

V gatherND(OnnxContext& c) {
  Value data = c.value(0);
  const HostTensor& ind = c.constant(1, "indices");
  const int64_t b = c.node.attrInt("batch_dims", 0);
  const Shape ds = data.shape(), is = ind.shape();
  if (is.empty()) c.fail("indices must have rank >= 1", ErrorCode::Shape);
  const int64_t k = is.back();
  if (b < 0 || k < 0 || b >= static_cast<int64_t>(is.size()) || b + k > static_cast<int64_t>(ds.size()))
    c.fail("indices address more dims than data has", ErrorCode::Shape);
  int64_t B = 1, Q = 1, R = 1, P = 1;
  for (int64_t i = 0; i < b; ++i) B *= ds[i];
  for (std::size_t i = b; i + 1 < is.size(); ++i) Q *= is[i];
  for (int64_t i = b; i < b + k; ++i) P *= ds[i];
  for (std::size_t i = b + k; i < ds.size(); ++i) R *= ds[i];
  std::vector<int64_t> rows;
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t q = 0; q < Q; ++q) {
      int64_t lin = 0;
      for (int64_t j = 0; j < k; ++j) {
        int64_t v = ind.getInt((bi * Q + q) * k + j);
        const int64_t dim = ds[b + j];
        if (v < 0) v += dim;
        if (v < 0 || v >= dim) c.fail("index out of range", ErrorCode::Shape);
        lin = lin * dim + v;
      }
      rows.push_back(bi * P + lin);
    }
  Value flat = op::reshape(data, {B * P, R});
  Value g = takeConstant(c, flat, 0, rows);
  std::vector<int64_t> out(ds.begin(), ds.begin() + b);
  out.insert(out.end(), is.begin() + b, is.end() - 1);
  out.insert(out.end(), ds.begin() + b + k, ds.end());
  return one(op::reshape(g, out));
}

// Writes rows of `updates` [U, R] into rows of `data` [D, R] at known targets. Writes to one row
// are applied in order: each "level" is the l-th write to its row, a gather plus a select.
Value scatterRows(OnnxContext& c, Value data, Value updates, const std::vector<int64_t>& target, const std::string& red) {
  const int64_t D = data.dim(0), R = data.dim(1);
  std::vector<std::vector<int64_t>> levels;  // level -> source update per data row (-1 = none)
  std::vector<int64_t> seen(D, 0);
  for (std::size_t u = 0; u < target.size(); ++u) {
    const int64_t l = seen[target[u]]++;
    if (static_cast<int64_t>(levels.size()) <= l) levels.emplace_back(D, -1);
    levels[l][target[u]] = static_cast<int64_t>(u);
  }
  Value out = data;
  for (const auto& lvl : levels) {
    std::vector<int64_t> src;
    HostTensor mask(DType::Bool, c.checkSize({D, 1}));
    for (int64_t d = 0; d < D; ++d) {
      src.push_back(lvl[d] < 0 ? 0 : lvl[d]);
      mask.setInt(d, lvl[d] >= 0);
    }
    Value g = takeConstant(c, updates, 0, src);
    Value m = op::broadcastTo(c.b.constant(mask), Shape{D, R});
    if (red == "none") out = op::where(m, g, out);
    else if (red == "add") out = op::where(m, op::add(out, g), out);
    else if (red == "mul") out = op::where(m, op::mul(out, g), out);
    else if (red == "max") out = op::where(m, op::maximum(out, g), out);
    else if (red == "min") out = op::where(m, op::minimum(out, g), out);
    else c.fail("reduction '" + red + "' is not supported");
  }
  return op::cast(out, data.dtype());
}

V scatterElements(OnnxContext& c) {
  Value data = c.value(0), upd = c.value(2);
  const HostTensor& ind = c.constant(1, "indices");
  const int r = data.rank();
  const int axis = axisOf(c, c.node.attrInt("axis", 0), r);
  const Shape ds = data.shape(), is = ind.shape();
  if (static_cast<int>(is.size()) != r || upd.shape() != is) c.fail("indices and updates must have the data's rank and one shape", ErrorCode::Shape);
  for (int a = 0; a < r; ++a)
    if (a != axis && is[a] > ds[a]) c.fail("indices larger than data", ErrorCode::Shape);
  const Shape dstr = rowMajorStrides(ds), istr = rowMajorStrides(is);
  std::vector<int64_t> target;
  for (int64_t e = 0; e < ind.numel(); ++e) {
    int64_t lin = 0;
    for (int a = 0; a < r; ++a) {
      int64_t p = (e / istr[a]) % is[a];
      if (a == axis) {
        p = ind.getInt(e);
        if (p < 0) p += ds[a];
        if (p < 0 || p >= ds[a]) c.fail("index out of range", ErrorCode::Shape);
      }
      lin += p * dstr[a];
    }
    target.push_back(lin);
  }
  Value flatData = op::reshape(data, {numel(ds), 1});
  Value flatUpd = op::reshape(upd, {numel(upd.shape()), 1});
  return one(op::reshape(scatterRows(c, flatData, flatUpd, target, c.node.attrString("reduction", "none")), dims(ds)));
}

V scatterND(OnnxContext& c) {
  Value data = c.value(0), upd = c.value(2);
  const HostTensor& ind = c.constant(1, "indices");
  const Shape ds = data.shape(), is = ind.shape();
  if (is.empty() || is.back() < 0 || is.back() > static_cast<int64_t>(ds.size()))
    c.fail("indices do not fit the data", ErrorCode::Shape);
  const int64_t k = is.back();
  int64_t P = 1, R = 1, Q = 1;
  for (int64_t i = 0; i < k; ++i) P *= ds[i];
  for (std::size_t i = k; i < ds.size(); ++i) R *= ds[i];
  for (std::size_t i = 0; i + 1 < is.size(); ++i) Q *= is[i];
  std::vector<int64_t> target;
  for (int64_t q = 0; q < Q; ++q) {
    int64_t lin = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t v = ind.getInt(q * k + j);
      if (v < 0) v += ds[j];
      if (v < 0 || v >= ds[j]) c.fail("index out of range", ErrorCode::Shape);
      lin = lin * ds[j] + v;
    }
    target.push_back(lin);
  }
  Value out = scatterRows(c, op::reshape(data, {P, R}), op::reshape(upd, {Q, R}), target, c.node.attrString("reduction", "none"));
  return one(op::reshape(out, dims(ds)));
}

// TopK by pairwise ranks: rank_i = #{j : x_j beats x_i} + #{j < i : x_j == x_i}; output slot p
// takes the element whose rank is p (values by a one-hot max, indices by a one-hot sum).
V topK(OnnxContext& c) {
  Value x = c.value(0);
  const int r = x.rank();
  const int axis = axisOf(c, c.node.attrInt("axis", -1), r);
  const int64_t k = static_cast<int64_t>(c.scalarValue(1, "K"));
  const bool largest = c.node.attrInt("largest", 1) != 0;
  const int64_t n = x.dim(axis);
  if (k < 0 || k > n) c.fail("K out of range", ErrorCode::Shape);
  Value xi = op::unsqueeze(x, axis + 1);  // [.., n(i), 1, ..]
  Value xj = op::unsqueeze(x, axis);      // [.., 1, n(j), ..]
  Value beats = largest ? op::gt(xj, xi) : op::lt(xj, xi);
  HostTensor before(DType::Bool, c.checkSize({n, n}));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) before.setInt(i * n + j, j < i);
  Shape bs(r + 1, 1);
  bs[axis] = n, bs[axis + 1] = n;
  Value tie = op::logicalAnd(op::eq(xj, xi), c.b.constant(before.reshaped(bs)));
  Value rank = op::sum(op::cast(op::logicalOr(beats, tie), DType::I64), {axis + 1});  // [.., n(i), ..]
  // slot p along a new axis after `axis`: hit[.., i, p, ..] = rank_i == p
  Value hit = op::eq(op::unsqueeze(rank, axis + 1), arangeAlong(c.b, k, axis + 1, r + 1));
  Value xv = op::unsqueeze(x, axis + 1);
  Value values = op::max(op::where(hit, xv, scalarLike(xv, lowestOf(x.dtype()))), {axis});
  Value idx = op::sum(op::where(hit, arangeAlong(c.b, n, axis, r + 1), scalarLike(rank, 0)), {axis});
  return {OnnxValue::of(values), OnnxValue::of(op::cast(idx, DType::I64))};
}

// Hann / Hamming / Blackman windows: generalized cosine windows of a known length.
template <int Kind>
V windowFn(OnnxContext& c) {
  const double sizeValue = c.scalarValue(0, "size");
  if (!(sizeValue >= 0 && sizeValue < static_cast<double>(int64_t{1} << 24))) c.fail("size out of range", ErrorCode::Shape);
  const int64_t n = static_cast<int64_t>(sizeValue);
  const bool periodic = c.node.attrInt("periodic", 1) != 0;
  const auto dt = onnxDTypeOf(c.node.attrInt("output_datatype", 1));
  if (!dt) c.fail("output_datatype is not supported");
  const double N = static_cast<double>(periodic ? n : n - 1);
  HostTensor w(*dt, {n});
  for (int64_t i = 0; i < n; ++i) {
    const double x = 2 * M_PI * static_cast<double>(i) / N;
    double v = 0;
    if (Kind == 0) v = 0.5 - 0.5 * std::cos(x);
    if (Kind == 1) v = 25.0 / 46.0 - (21.0 / 46.0) * std::cos(x);
    if (Kind == 2) v = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x);
    w.setDouble(i, v);
  }
  return one(w);
}

// ---------------------------------------------------------------- training optimizers
// (domain ai.onnx.preview.training): inputs R (rate), T (step, import-time constant), then n
// tensors per group; outputs are the updated groups in the same order.
struct OptimizerArgs {
  Value rate;
  int64_t step = 0;
  int64_t n = 0;
};
OptimizerArgs optimizerArgs(OnnxContext& c, int groups) {
  OptimizerArgs a;
  a.rate = op::reshape(c.value(0), {});
  a.step = static_cast<int64_t>(c.scalarValue(1, "T"));
  if ((static_cast<int64_t>(c.count()) - 2) % groups != 0) c.fail("input count does not match the groups", ErrorCode::Shape);
  a.n = (static_cast<int64_t>(c.count()) - 2) / groups;
  return a;
}
Value gradReg(OnnxContext& c, Value x, Value g) {
  return op::add(op::mul(x, scalarLike(x, c.node.attrFloat("norm_coefficient", 0.0))), g);
}

V adagrad(OnnxContext& c) {
  OptimizerArgs a = optimizerArgs(c, 3);
  const double eps = c.node.attrFloat("epsilon", 1e-6), decay = c.node.attrFloat("decay_factor", 0.0);
  V xs, hs;
  for (int64_t i = 0; i < a.n; ++i) {
    Value x = c.value(2 + i), g = gradReg(c, x, c.value(2 + a.n + i)), h = c.value(2 + 2 * a.n + i);
    Value r = op::cast(op::div(a.rate, scalarLike(a.rate, 1 + static_cast<double>(a.step) * decay)), x.dtype());
    Value hNew = op::add(h, op::mul(g, g));
    Value hs2 = op::add(op::sqrt(hNew), scalarLike(hNew, eps));
    xs.push_back(OnnxValue::of(op::sub(x, op::div(op::mul(r, g), hs2))));
    hs.push_back(OnnxValue::of(hNew));
  }
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

V momentum(OnnxContext& c) {
  OptimizerArgs a = optimizerArgs(c, 3);
  const double alpha = c.node.attrFloat("alpha", 0.9), beta = a.step > 0 ? c.node.attrFloat("beta", 1.0) : 1.0;
  const std::string mode = c.node.attrString("mode", "standard");
  if (mode != "standard" && mode != "nesterov") c.fail("mode '" + mode + "' is not supported");
  V xs, vs;
  for (int64_t i = 0; i < a.n; ++i) {
    Value x = c.value(2 + i), g = gradReg(c, x, c.value(2 + a.n + i)), v = c.value(2 + 2 * a.n + i);
    Value r = op::cast(a.rate, x.dtype());
    Value vNew = op::add(op::mul(v, scalarLike(v, alpha)), op::mul(g, scalarLike(g, beta)));
    Value step = mode == "standard" ? vNew : op::add(g, op::mul(vNew, scalarLike(vNew, alpha)));
    xs.push_back(OnnxValue::of(op::sub(x, op::mul(r, step))));
    vs.push_back(OnnxValue::of(vNew));
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  return xs;
}

V adam(OnnxContext& c) {
  OptimizerArgs a = optimizerArgs(c, 4);
  const double alpha = c.node.attrFloat("alpha", 0.9), beta = c.node.attrFloat("beta", 0.999);
  const double eps = c.node.attrFloat("epsilon", 1e-6), post = c.node.attrFloat("norm_coefficient_post", 0.0);
  const double t = static_cast<double>(a.step);
  const double adjust = a.step > 0 ? std::sqrt(1 - std::pow(beta, t)) / (1 - std::pow(alpha, t)) : 1.0;
  V xs, vs, hs;
  for (int64_t i = 0; i < a.n; ++i) {
    Value x = c.value(2 + i), g = gradReg(c, x, c.value(2 + a.n + i));
    Value v = c.value(2 + 2 * a.n + i), h = c.value(2 + 3 * a.n + i);
    Value vNew = op::add(op::mul(v, scalarLike(v, alpha)), op::mul(g, scalarLike(g, 1 - alpha)));
    Value hNew = op::add(op::mul(h, scalarLike(h, beta)), op::mul(op::mul(g, g), scalarLike(g, 1 - beta)));
    Value hSqrt = op::add(op::sqrt(hNew), scalarLike(hNew, eps));
    Value r = op::mul(op::cast(a.rate, x.dtype()), scalarLike(x, adjust));
    Value xNew = op::sub(x, op::mul(r, op::div(vNew, hSqrt)));
    xs.push_back(OnnxValue::of(op::mul(xNew, scalarLike(xNew, 1 - post))));
    vs.push_back(OnnxValue::of(vNew));
    hs.push_back(OnnxValue::of(hNew));
  }
  xs.insert(xs.end(), vs.begin(), vs.end());
  xs.insert(xs.end(), hs.begin(), hs.end());
  return xs;
}

}  // namespace

void addExtra(Table& t) {
  t["Adagrad"] = adagrad;
  t["Momentum"] = momentum;
  t["Adam"] = adam;
  t["HannWindow"] = windowFn<0>;
  t["HammingWindow"] = windowFn<1>;
  t["BlackmanWindow"] = windowFn<2>;
  t["Atan"] = floatFn<atanOf>;
  t["Asin"] = floatFn<asinOf>;
  t["Acos"] = floatFn<acosOf>;
  t["BitShift"] = bitShift;
  t["QuantizeLinear"] = quantizeLinear;
  t["DequantizeLinear"] = dequantizeLinear;
  t["DynamicQuantizeLinear"] = dynamicQuantizeLinear;
  t["Compress"] = compress;
  t["NonZero"] = nonZero;
  t["GatherND"] = gatherND;
  t["ScatterElements"] = scatterElements;
  t["Scatter"] = scatterElements;
  t["ScatterND"] = scatterND;
  t["TopK"] = topK;
}

}  // namespace ks::onnxops
