// conv2d and 2-D pooling as sliding windows built from pad/reshape/expand/narrow/permute.
#include <limits>

#include "engine/program/prim_ops.h"

namespace ks::op {

namespace {

struct Window {
  int64_t k, s, d, o;  // kernel, stride, dilation, output length
};

// The sliding windows of the last axis (length i): [..., i] -> [..., k, o] with
// out[..., kk, oo] = x[..., kk*d + oo*s]. Each row kk must start kk*d further in: expand to
// [..., k, i], flatten to k*i, pad the end by k*d and view as [..., k, i + d], which shifts row kk
// by kk*d (every index read stays inside row kk's copy); then keep (o-1)*s + 1 columns and every
// s-th of them.
Value windows(Value x, const Window& w) {
  const int r = x.rank();
  // One offset: every s-th element, a view of x itself when s is 1 (a 1x1 convolution then reads
  // its input in place, as a GEMM operand too).
  if (w.k == 1) return unsqueeze(slice(narrow(x, -1, 0, (w.o - 1) * w.s + 1), -1, 0, std::nullopt, w.s), -2);
  const int64_t i = x.shape().back();
  std::vector<int64_t> sh = prim::toVec(x.shape());
  sh.insert(sh.end() - 1, 1);
  Shape ex(sh.begin(), sh.end());
  ex[r - 1] = w.k;
  Value e = broadcastTo(reshape(x, sh), ex);  // [..., k, i]
  std::vector<int64_t> flat(x.shape().begin(), x.shape().end() - 1);
  flat.push_back(w.k * i);
  Value f = reshape(e, flat);
  std::vector<std::pair<int64_t, int64_t>> pads(static_cast<std::size_t>(r), {0, 0});
  pads[r - 1] = {0, w.k * w.d};
  std::vector<int64_t> rows(x.shape().begin(), x.shape().end() - 1);
  rows.insert(rows.end(), {w.k, i + w.d});
  Value z = reshape(pad(f, pads), rows);  // z[..., kk, u] = x[..., kk*d + u] for kk*d + u < i
  return slice(narrow(z, -1, 0, (w.o - 1) * w.s + 1), -1, 0, std::nullopt, w.s);
}

Window window(Value x, const char* name, int64_t size, int64_t k, int64_t s, int64_t p, int64_t d) {
  if (k < 1 || s < 1 || d < 1 || p < 0)
    prim::fail(x, ErrorCode::Usage, name, "kernel, stride and dilation must be positive and padding non-negative");
  const int64_t span = d * (k - 1) + 1;
  if (size + 2 * p < span)
    prim::fail(x, ErrorCode::Shape, name,
               "window of " + std::to_string(span) + " does not fit a padded size of " + std::to_string(size + 2 * p) +
                   " (input " + prim::describe(x) + ")");
  return {k, s, d, (size + 2 * p - span) / s + 1};
}

std::vector<int64_t> pair(std::vector<int64_t> v, const char* what, Value x, const char* name) {
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2)
    prim::fail(x, ErrorCode::Usage, name, std::string(what) + " needs 1 or 2 values, got " + std::to_string(v.size()));
  return v;
}

// [N, C, H, W] (already padded) -> [N, C, OH, OW, kh, kw].
Value windows2d(Value x, const Window& wh, const Window& ww) {
  Value a = windows(x, ww);                           // [N, C, H, kw, OW]
  Value b = windows(permute(a, {0, 1, 3, 4, 2}), wh);  // [N, C, kw, OW, kh, OH]
  return permute(b, {0, 1, 5, 3, 4, 2});              // [N, C, OH, OW, kh, kw]
}

Value pad2d(Value x, int64_t ph, int64_t pw, double value) {
  if (ph == 0 && pw == 0) return x;
  return pad(x, {{0, 0}, {0, 0}, {ph, ph}, {pw, pw}}, value);
}

void check4d(Value x, const char* name) {
  if (x.rank() != 4) prim::fail(x, ErrorCode::Shape, name, "needs an [N, C, H, W] input, got " + prim::describe(x));
}

}  // namespace

// conv2d: x [N, Cin, H, W], w [Cout, Cin/groups, kh, kw]. With g groups, cpg = Cin/g, opg = Cout/g:
// windows [N, g, 1, OH, OW, cpg, kh, kw] * weights [1, g, opg, 1, 1, cpg, kh, kw], summed over the
// three trailing axes -> [N, g, opg, OH, OW] -> [N, Cout, OH, OW].
Value conv2d(Value x, Value w, std::optional<Value> b, std::vector<int64_t> stride, std::vector<int64_t> padding,
             std::vector<int64_t> dilation, int64_t groups) {
  check4d(x, "conv2d");
  if (w.rank() != 4) prim::fail(w, ErrorCode::Shape, "conv2d", "needs a [Cout, Cin/groups, kh, kw] weight, got " + prim::describe(w));
  stride = pair(stride, "stride", x, "conv2d");
  padding = pair(padding, "padding", x, "conv2d");
  dilation = pair(dilation, "dilation", x, "conv2d");
  const int64_t n = x.dim(0), cin = x.dim(1), cout = w.dim(0);
  if (groups < 1 || cin % groups != 0 || cout % groups != 0 || w.dim(1) * groups != cin)
    prim::fail(x, ErrorCode::Shape, "conv2d",
               "input " + prim::describe(x) + " and weight " + prim::describe(w) + " do not fit groups=" + std::to_string(groups));
  PromotionOperand ps[2] = {{x.dtype(), PromotionOperand::Priority::Tensor}, {w.dtype(), PromotionOperand::Priority::Tensor}};
  const DType t = resultType(ps, 2);
  if (t == DType::Bool) prim::fail(x, ErrorCode::DType, "conv2d", "conv2d of bool tensors");
  const DType ct = prim::computeType(t);
  const Window wh = window(x, "conv2d", x.dim(2), w.dim(2), stride[0], padding[0], dilation[0]);
  const Window ww = window(x, "conv2d", x.dim(3), w.dim(3), stride[1], padding[1], dilation[1]);
  const int64_t g = groups, cpg = cin / g, opg = cout / g;
  Value win = windows2d(pad2d(cast(x, ct), padding[0], padding[1], 0.0), wh, ww);  // [N, Cin, OH, OW, kh, kw]
  win = reshape(win, {n, g, cpg, wh.o, ww.o, wh.k, ww.k});
  win = permute(win, {0, 1, 3, 4, 2, 5, 6});                                        // [N, g, OH, OW, cpg, kh, kw]
  win = reshape(win, {n, g, 1, wh.o, ww.o, cpg, wh.k, ww.k});
  const Shape full{n, g, opg, wh.o, ww.o, cpg, wh.k, ww.k};
  Value wt = reshape(cast(w, ct), {1, g, opg, 1, 1, cpg, wh.k, ww.k});
  Value prod = prim::binary(BinaryOp::Mul, broadcastTo(win, full), broadcastTo(wt, full));
  Value y = reshape(prim::reduce(prod, ReduceOp::Sum, {5, 6, 7}), {n, cout, wh.o, ww.o});
  if (b) {
    if (b->rank() != 1 || b->dim(0) != cout)
      prim::fail(*b, ErrorCode::Shape, "conv2d", "bias must have shape [" + std::to_string(cout) + "], got " + prim::describe(*b));
    y = add(y, reshape(cast(*b, ct), {1, cout, 1, 1}));
  }
  return cast(y, t);
}

// max_pool2d pads with -inf (the dtype's lowest value for ints) so padding never wins.
Value maxPool2d(Value x, std::vector<int64_t> kernel, std::vector<int64_t> stride, std::vector<int64_t> padding,
                std::vector<int64_t> dilation) {
  check4d(x, "max_pool2d");
  kernel = pair(kernel, "kernel", x, "max_pool2d");
  stride = stride.empty() ? kernel : pair(stride, "stride", x, "max_pool2d");
  padding = pair(padding, "padding", x, "max_pool2d");
  dilation = pair(dilation, "dilation", x, "max_pool2d");
  const Window wh = window(x, "max_pool2d", x.dim(2), kernel[0], stride[0], padding[0], dilation[0]);
  const Window ww = window(x, "max_pool2d", x.dim(3), kernel[1], stride[1], padding[1], dilation[1]);
  double low = -std::numeric_limits<double>::infinity();
  switch (x.dtype()) {
    case DType::I8: low = -128.0; break;
    case DType::I16: low = -32768.0; break;
    case DType::I32: low = -2147483648.0; break;
    case DType::I64: low = -9223372036854775808.0; break;
    case DType::Bool:
    case DType::U8:
    case DType::U32: low = 0.0; break;
    default: break;
  }
  Value win = windows2d(pad2d(x, padding[0], padding[1], low), wh, ww);
  return max(win, {4, 5});
}

// avg_pool2d: zero padding; the divisor is kh*kw (count_include_pad) or the number of real
// elements in each window (computed the same way from a padded ones tensor).
Value avgPool2d(Value x, std::vector<int64_t> kernel, std::vector<int64_t> stride, std::vector<int64_t> padding,
                bool countIncludePad) {
  check4d(x, "avg_pool2d");
  kernel = pair(kernel, "kernel", x, "avg_pool2d");
  stride = stride.empty() ? kernel : pair(stride, "stride", x, "avg_pool2d");
  padding = pair(padding, "padding", x, "avg_pool2d");
  const Window wh = window(x, "avg_pool2d", x.dim(2), kernel[0], stride[0], padding[0], 1);
  const Window ww = window(x, "avg_pool2d", x.dim(3), kernel[1], stride[1], padding[1], 1);
  const DType t = isFloat(x.dtype()) ? x.dtype() : DType::F32;
  const DType ct = prim::computeType(t);
  Value s = sum(windows2d(pad2d(cast(x, ct), padding[0], padding[1], 0.0), wh, ww), {4, 5});
  if (countIncludePad || (padding[0] == 0 && padding[1] == 0)) return cast(div(s, static_cast<double>(wh.k * ww.k)), t);
  Value ones = broadcastTo(reshape(prim::constant(x.builder(), ct, 1.0), {1, 1, 1, 1}), {1, 1, x.dim(2), x.dim(3)});
  Value count = sum(windows2d(pad2d(ones, padding[0], padding[1], 0.0), wh, ww), {4, 5});
  return cast(div(s, count), t);
}

}  // namespace ks::op
