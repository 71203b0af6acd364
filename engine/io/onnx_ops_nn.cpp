// ONNX network ops: MatMul, Gemm, Einsum, N-d Conv/ConvTranspose and pools (as sliding windows of
// movement ops), normalizations, softmax family, reductions, arg-reductions and losses.
#include <algorithm>
#include <cmath>
#include <set>

#include "engine/io/onnx_ops.h"

namespace ks::onnxops {
namespace {

using V = std::vector<OnnxValue>;

// ---------------------------------------------------------------- matmul family
V matmul(OnnxContext& c) { return one(op::matmul(c.value(0), c.value(1))); }

V gemm(OnnxContext& c) {
  Value a = c.value(0), b = c.value(1);
  if (c.node.attrInt("transA", 0)) a = op::transpose(a);
  if (c.node.attrInt("transB", 0)) b = op::transpose(b);
  const double alpha = c.node.attrFloat("alpha", 1.0), beta = c.node.attrFloat("beta", 1.0);
  Value y = op::matmul(a, b);
  if (alpha != 1.0) y = op::mul(y, scalarLike(y, alpha));
  if (c.has(2)) {
    Value cc = c.value(2);
    y = op::add(y, beta == 1.0 ? cc : op::mul(cc, scalarLike(cc, beta)));
  }
  return one(op::cast(y, c.dtype(0)));
}

// Takes the diagonal of two equal axes i < j: the result drops j and puts the diagonal last.
Value diagonal(Value x, int i, int j) {
  const int r = x.rank();
  std::vector<int64_t> perm;
  for (int k = 0; k < r; ++k)
    if (k != i && k != j) perm.push_back(k);
  perm.push_back(i), perm.push_back(j);
  x = op::permute(x, perm);
  const int64_t n = x.dim(-1);
  std::vector<int64_t> s = dims(x.shape());
  s.pop_back();
  s.back() = n * n;
  x = op::reshape(x, s);
  return stepSlice(x, r - 2, 0, n, n + 1);
}

V einsum(OnnxContext& c) {
  std::string eq;
  for (char ch : c.node.attrString("equation", ""))
    if (ch != ' ') eq += ch;
  const std::size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (std::size_t p = 0;;) {
    std::size_t q = lhs.find(',', p);
    terms.push_back(lhs.substr(p, q == std::string::npos ? std::string::npos : q - p));
    if (q == std::string::npos) break;
    p = q + 1;
  }
  std::size_t nIn = 0;
  for (std::size_t i = 0; i < c.count(); ++i) nIn += c.has(i);
  if (terms.size() != nIn) c.fail("equation '" + eq + "' names " + std::to_string(terms.size()) + " operands", ErrorCode::Usage);
  // Ellipsis dims become the characters '0'..'9', right-aligned across operands.
  int ell = 0;
  for (std::size_t t = 0; t < terms.size(); ++t) {
    const std::size_t e = terms[t].find("...");
    if (e != std::string::npos) ell = std::max<int>(ell, c.value(t).rank() - static_cast<int>(terms[t].size() - 3));
  }
  auto expandEllipsis = [&](std::string s, int rank) {
    const std::size_t e = s.find("...");
    if (e == std::string::npos) return s;
    const int k = rank - static_cast<int>(s.size() - 3);
    std::string mid;
    for (int i = ell - k; i < ell; ++i) mid += static_cast<char>('0' + i);
    return s.substr(0, e) + mid + s.substr(e + 3);
  };
  std::vector<Value> xs;
  std::map<char, int> counts;
  for (std::size_t t = 0; t < terms.size(); ++t) {
    Value x = c.value(t);
    terms[t] = expandEllipsis(terms[t], x.rank());
    if (static_cast<int>(terms[t].size()) != x.rank()) c.fail("term '" + terms[t] + "' does not match rank " + std::to_string(x.rank()), ErrorCode::Shape);
    // Repeated letters inside one term: take diagonals first.
    for (bool again = true; again;) {
      again = false;
      for (std::size_t i = 0; i < terms[t].size() && !again; ++i)
        for (std::size_t j = i + 1; j < terms[t].size() && !again; ++j)
          if (terms[t][i] == terms[t][j]) {
            x = diagonal(x, static_cast<int>(i), static_cast<int>(j));
            const char ch = terms[t][i];
            std::string rest;
            for (std::size_t k = 0; k < terms[t].size(); ++k)
              if (k != i && k != j) rest += terms[t][k];
            terms[t] = rest + ch;
            again = true;
          }
    }
    for (char ch : terms[t]) counts[ch]++;
    xs.push_back(x);
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    std::string m;
    for (int i = 0; i < ell; ++i) m += static_cast<char>('0' + i);
    const std::size_t e = out.find("...");
    if (e != std::string::npos) out = out.substr(0, e) + m + out.substr(e + 3);
  } else {
    for (auto& [ch, n] : counts)
      if (n == 1 || std::isdigit(static_cast<unsigned char>(ch))) out += ch;
    std::sort(out.begin(), out.end());  // digits (ellipsis) sort before letters
  }
  std::string order = out;
  for (auto& [ch, n] : counts)
    if (order.find(ch) == std::string::npos) order += ch;
  Value prod;
  for (std::size_t t = 0; t < xs.size(); ++t) {
    std::vector<int64_t> perm;
    std::vector<int64_t> shape;
    for (char ch : order) {
      const std::size_t p = terms[t].find(ch);
      if (p != std::string::npos) perm.push_back(static_cast<int64_t>(p));
    }
    Value x = op::permute(xs[t], perm);
    int k = 0;
    for (char ch : order) shape.push_back(terms[t].find(ch) != std::string::npos ? x.shape()[k++] : 1);
    x = op::reshape(x, shape);
    prod = t == 0 ? x : op::mul(prod, x);
  }
  std::vector<int64_t> sumAxes;
  for (std::size_t i = out.size(); i < order.size(); ++i) sumAxes.push_back(static_cast<int64_t>(i));
  Value r = sumAxes.empty() ? prod : op::sum(prod, sumAxes);
  return one(op::cast(r, c.dtype(0)));
}

// ---------------------------------------------------------------- windows (conv, pools)
struct Window {
  std::vector<int64_t> kernel, stride, dilation, padBegin, padEnd, out;
};

// Kernel, strides, dilations, pads and output sizes of a conv/pool node over spatial dims `sp`.
Window windowOf(const OnnxContext& c, const Shape& sp, std::vector<int64_t> kernel, bool ceilMode) {
  const std::size_t n = sp.size();
  Window w;
  w.kernel = std::move(kernel);
  if (w.kernel.size() != n) c.fail("kernel rank differs from the spatial rank", ErrorCode::Shape);
  w.stride = c.node.attrInts("strides", std::vector<int64_t>(n, 1));
  w.dilation = c.node.attrInts("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = c.node.attrInts("pads", std::vector<int64_t>(2 * n, 0));
  if (w.stride.size() != n || w.dilation.size() != n || pads.size() != 2 * n)
    c.fail("strides/dilations/pads do not match the spatial rank", ErrorCode::Shape);
  for (std::size_t i = 0; i < n; ++i)
    if (w.kernel[i] < 1 || w.stride[i] < 1 || w.dilation[i] < 1 || pads[i] < 0 || pads[i + n] < 0 ||
        w.kernel[i] > (int64_t{1} << 24) || w.stride[i] > (int64_t{1} << 24) || w.dilation[i] > (int64_t{1} << 24))
      c.fail("kernel, strides and dilations must be positive and pads non-negative", ErrorCode::Shape);
  const std::string autoPad = c.node.attrString("auto_pad", "NOTSET");
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t k = (w.kernel[i] - 1) * w.dilation[i] + 1;
    int64_t pb = pads[i], pe = pads[i + n];
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      const int64_t o = (sp[i] + w.stride[i] - 1) / w.stride[i];
      const int64_t total = std::max<int64_t>(0, (o - 1) * w.stride[i] + k - sp[i]);
      pb = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else if (autoPad == "VALID") {
      pb = pe = 0;
    } else if (autoPad != "NOTSET") {
      c.fail("auto_pad '" + autoPad + "' is not supported");
    }
    const int64_t span = sp[i] + pb + pe - k;
    if (span < 0) c.fail("kernel larger than the padded input", ErrorCode::Shape);
    int64_t o = span / w.stride[i] + 1;
    if (ceilMode) {
      o = (span + w.stride[i] - 1) / w.stride[i] + 1;
      if ((o - 1) * w.stride[i] >= sp[i] + pb) --o;  // a window must start inside data or left pad
    }
    w.padBegin.push_back(pb);
    w.padEnd.push_back(pe);
    w.out.push_back(o);
  }
  return w;
}

// The window's pads on the spatial axes of [N, C, *sp].
Value padWindows(Value x, const Window& w, double padValue) {
  const std::size_t n = w.kernel.size();
  std::vector<std::pair<int64_t, int64_t>> pp(2 + n, {0, 0});
  for (std::size_t i = 0; i < n; ++i) {
    // Enough right padding for the last window (ceil mode may need more than the pads).
    const int64_t need = (w.out[i] - 1) * w.stride[i] + (w.kernel[i] - 1) * w.dilation[i] + 1;
    const int64_t have = x.shape()[2 + i] + w.padBegin[i] + w.padEnd[i];
    pp[2 + i] = {w.padBegin[i], w.padEnd[i] + std::max<int64_t>(0, need - have)};
  }
  return op::pad(x, pp, padValue);
}

// The sliding windows of the last axis (length i, padded already): [..., i] -> [..., k, o] with
// out[..., kk, oo] = x[..., kk*d + oo*s], from movement ops alone (no select per offset, so a
// consumer reads each window element straight from x): expand to [..., k, i], flatten to k*i, pad
// the end by k*d and view as [..., k, i + d], which shifts row kk by kk*d (every index read stays
// inside row kk's copy); then keep o columns with step s.
Value windowsLast(Value x, int64_t k, int64_t s, int64_t d, int64_t o) {
  const int r = x.rank();
  if (k == 1) return op::unsqueeze(stepSlice(x, r - 1, 0, o, s), r - 1);
  const int64_t i = x.shape().back();
  std::vector<int64_t> one = dims(x.shape());
  one.insert(one.end() - 1, 1);
  std::vector<int64_t> ex = one;
  ex[r - 1] = k;
  Value e = op::expand(op::reshape(x, one), ex);  // [..., k, i]
  std::vector<int64_t> flat(x.shape().begin(), x.shape().end() - 1);
  flat.push_back(k * i);
  std::vector<std::pair<int64_t, int64_t>> pads(static_cast<std::size_t>(r), {0, 0});
  pads[r - 1] = {0, k * d};
  std::vector<int64_t> rows(x.shape().begin(), x.shape().end() - 1);
  rows.insert(rows.end(), {k, i + d});
  Value z = op::reshape(op::pad(op::reshape(e, flat), pads), rows);  // z[..., kk, u] = x[..., kk*d + u]
  return stepSlice(z, r, 0, o, s);
}

// Moves axis `a` of x last (the others keep their order); `labels` follows the permutation.
Value moveLast(Value x, std::vector<int>& labels, int a) {
  std::vector<int64_t> perm;
  for (int i = 0; i < x.rank(); ++i)
    if (i != a) perm.push_back(i);
  perm.push_back(a);
  const int l = labels[a];
  labels.erase(labels.begin() + a);
  labels.push_back(l);
  return a == x.rank() - 1 ? x : op::permute(x, perm);
}

// [N, C, *sp] -> [N, C, K, *out]: the window of every output position, kernel offsets in
// row-major order along K, built one spatial axis at a time with windowsLast.
Value windows(Value x, const Window& w, double padValue) {
  const int n = static_cast<int>(w.kernel.size());
  x = padWindows(x, w, padValue);
  // Axis labels: 0 = N, 1 = C, 2 + j = spatial j, then kernel j = 2 + n + j, output j = 2 + 2n + j.
  std::vector<int> labels;
  for (int i = 0; i < 2 + n; ++i) labels.push_back(i);
  for (int j = 0; j < n; ++j) {
    const int a = static_cast<int>(std::find(labels.begin(), labels.end(), 2 + j) - labels.begin());
    x = moveLast(x, labels, a);
    x = windowsLast(x, w.kernel[j], w.stride[j], w.dilation[j], w.out[j]);
    labels.back() = 2 + n + j;
    labels.push_back(2 + 2 * n + j);
  }
  std::vector<int64_t> perm;
  for (int want = 0; want < 2 + 3 * n; ++want)
    if (want < 2 || want >= 2 + n) perm.push_back(std::find(labels.begin(), labels.end(), want) - labels.begin());
  x = op::permute(x, perm);  // [N, C, k_0..k_{n-1}, o_0..o_{n-1}]
  int64_t K = 1;
  for (int64_t k : w.kernel) K *= k;
  std::vector<int64_t> s = {x.dim(0), x.dim(1), K};
  s.insert(s.end(), w.out.begin(), w.out.end());
  return op::reshape(x, s);
}

std::vector<int64_t> spatialKernel(OnnxContext& c, const Shape& wShape) {
  std::vector<int64_t> k = c.node.attrInts("kernel_shape");
  if (k.empty()) {
    // (out channels, in channels / groups, kernel...): a weight of lower rank has no kernel axes
    if (wShape.size() < 2) c.fail("the weight has rank " + std::to_string(wShape.size()) + ", expected at least 2", ErrorCode::Shape);
    k.assign(wShape.begin() + 2, wShape.end());
  }
  return k;
}

Value convCore(OnnxContext& c, Value x, Value w, const Window& win, int64_t groups) {
  if (w.rank() != x.rank()) c.fail("weight rank differs from input rank", ErrorCode::Shape);
  const int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0);
  if (groups < 1 || C % groups != 0 || M % groups != 0 || w.dim(1) * groups != C)
    c.fail("channels " + std::to_string(C) + " and weight " + shapeStr(w.shape()) + " do not fit group " + std::to_string(groups), ErrorCode::Shape);
  int64_t K = 1, O = 1;
  for (int64_t k : win.kernel) K *= k;
  for (int64_t o : win.out) O *= o;
  Value cols = windows(x, win, 0.0);                                   // [N, C, K, *out]
  cols = op::reshape(cols, {N, groups, (C / groups) * K, O});           // [N, g, Cg*K, O]
  Value wr = op::reshape(w, {1, groups, M / groups, (C / groups) * K});  // [1, g, Mg, Cg*K]
  Value y = op::matmul(wr, cols);                                        // [N, g, Mg, O]
  std::vector<int64_t> s = {N, M};
  s.insert(s.end(), win.out.begin(), win.out.end());
  return op::reshape(y, s);
}

Value addChannelBias(Value y, Value b) {
  std::vector<int64_t> s(y.rank(), 1);
  s[1] = numel(b.shape());
  return op::add(y, op::reshape(b, s));
}

V conv(OnnxContext& c) {
  Value x = c.value(0), w = c.value(1);
  if (x.rank() < 3) c.fail("input must have rank >= 3", ErrorCode::Shape);
  const Shape sp(x.shape().begin() + 2, x.shape().end());
  Window win = windowOf(c, sp, spatialKernel(c, w.shape()), false);
  Value y = convCore(c, x, w, win, c.node.attrInt("group", 1));
  if (c.has(2)) y = addChannelBias(y, c.value(2));
  return one(y);
}

// Integer inputs minus their zero point, in i32 (a per-channel zero point lies along axis 1 of
// a weight when `channelAxis0` is set: [M] -> [M, 1, ...]).
Value minusZeroPoint(OnnxContext& c, Value v, std::size_t zpInput, bool channelAxis0) {
  Value r = op::cast(v, DType::I32);
  if (!c.has(zpInput)) return r;
  Value zp = op::cast(c.value(zpInput), DType::I32);
  if (channelAxis0 && zp.rank() == 1 && zp.dim(0) > 1) {
    std::vector<int64_t> s(r.rank(), 1);
    s[0] = zp.dim(0);
    zp = op::reshape(zp, s);
  } else if (numel(zp.shape()) == 1) {
    zp = op::reshape(zp, {});
  }
  return op::sub(r, zp);
}

Value convOf(OnnxContext& c, Value x, Value w) {
  if (x.rank() < 3) c.fail("input must have rank >= 3", ErrorCode::Shape);
  const Shape sp(x.shape().begin() + 2, x.shape().end());
  Window win = windowOf(c, sp, spatialKernel(c, w.shape()), false);
  return convCore(c, x, w, win, c.node.attrInt("group", 1));
}

V convInteger(OnnxContext& c) {
  return one(convOf(c, minusZeroPoint(c, c.value(0), 2, false), minusZeroPoint(c, c.value(1), 3, true)));
}

V matMulInteger(OnnxContext& c) {
  Value a = minusZeroPoint(c, c.value(0), 2, false);
  if (c.has(2) && c.value(2).rank() == 1 && c.value(2).dim(0) > 1)  // per-row zero point of A: [M] -> [M, 1]
    a = op::sub(op::cast(c.value(0), DType::I32), op::unsqueeze(op::cast(c.value(2), DType::I32), -1));
  return one(op::matmul(a, minusZeroPoint(c, c.value(1), 3, false)));
}

// Requantizes an i32 accumulator: round(acc * multiplier) + zero point, saturated to its dtype.
Value requantize(OnnxContext& c, Value acc, Value multiplier, std::size_t zpInput) {
  const DType out = c.dtype(zpInput);
  Value y = op::round(op::mul(op::cast(acc, DType::F32), multiplier));
  y = op::add(y, op::cast(op::reshape(c.value(zpInput), {}), DType::F32));
  const double lo = out == DType::U8 ? 0 : -128, hi = out == DType::U8 ? 255 : 127;
  return op::cast(op::minimum(op::maximum(y, scalarLike(y, lo)), scalarLike(y, hi)), out);
}

V qlinearMatMul(OnnxContext& c) {
  Value a = op::sub(op::cast(c.value(0), DType::I32), op::cast(op::reshape(c.value(2), {}), DType::I32));
  Value b = op::sub(op::cast(c.value(3), DType::I32), op::cast(op::reshape(c.value(5), {}), DType::I32));
  Value m = op::div(op::mul(op::reshape(c.value(1), {}), op::reshape(c.value(4), {})), op::reshape(c.value(6), {}));
  return one(requantize(c, op::matmul(a, b), m, 7));
}

V qlinearConv(OnnxContext& c) {
  Value x = op::sub(op::cast(c.value(0), DType::I32), op::cast(op::reshape(c.value(2), {}), DType::I32));
  Value w = minusZeroPoint(c, c.value(3), 5, true);
  Value acc = convOf(c, x, w);
  if (c.has(8)) acc = addChannelBias(acc, op::cast(c.value(8), DType::I32));
  Value ws = c.value(4);
  if (ws.rank() == 1 && ws.dim(0) > 1) {
    std::vector<int64_t> s(acc.rank(), 1);
    s[1] = ws.dim(0);
    ws = op::reshape(ws, s);
  } else {
    ws = op::reshape(ws, {});
  }
  Value m = op::div(op::mul(op::reshape(c.value(1), {}), ws), op::reshape(c.value(6), {}));
  return one(requantize(c, acc, m, 7));
}

V convTranspose(OnnxContext& c) {
  Value x = c.value(0), w = c.value(1);
  if (x.rank() < 3) c.fail("input must have rank >= 3", ErrorCode::Shape);
  const std::size_t n = x.rank() - 2;
  const int64_t g = c.node.attrInt("group", 1);
  const std::vector<int64_t> k = spatialKernel(c, w.shape());
  const auto s = c.node.attrInts("strides", std::vector<int64_t>(n, 1));
  const auto d = c.node.attrInts("dilations", std::vector<int64_t>(n, 1));
  auto outPad = c.node.attrInts("output_padding", std::vector<int64_t>(n, 0));
  auto pads = c.node.attrInts("pads", std::vector<int64_t>(2 * n, 0));
  const auto outShape = c.node.attrInts("output_shape");
  const std::string autoPad = c.node.attrString("auto_pad", "NOTSET");
  if (s.size() != n || d.size() != n || outPad.size() != n || pads.size() != 2 * n || k.size() != n)
    c.fail("attributes do not match the spatial rank", ErrorCode::Shape);
  if (w.rank() != x.rank() || g < 1 || w.dim(0) % g != 0) c.fail("weight shape does not fit the input and group", ErrorCode::Shape);
  for (std::size_t i = 0; i < n; ++i)
    if (k[i] < 1 || s[i] < 1 || d[i] < 1 || outPad[i] < 0 || k[i] > (int64_t{1} << 24) || s[i] > (int64_t{1} << 24) ||
        d[i] > (int64_t{1} << 24))
      c.fail("kernel, strides and dilations must be positive", ErrorCode::Shape);
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t in = x.shape()[2 + i], ke = (k[i] - 1) * d[i] + 1;
    if (!outShape.empty() || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      const int64_t target = !outShape.empty() ? outShape[outShape.size() - n + i] : in * s[i];
      const int64_t total = s[i] * (in - 1) + outPad[i] + ke - target;
      // Floor division: a negative total (output_shape larger than the full result) grows the end.
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      if (autoPad == "SAME_UPPER") pads[i] = half, pads[i + n] = total - half;
      else pads[i] = total - half, pads[i + n] = half;
    }
  }
  // Transposed conv = conv of the stride-dilated input (zeros between elements), padded by
  // ke - 1 - pad, with the flipped kernel whose in/out channels are swapped per group.
  for (std::size_t i = 0; i < n; ++i) {
    const int axis = static_cast<int>(2 + i);
    if (s[i] > 1) {
      const int64_t len = x.shape()[axis];
      Value y = op::unsqueeze(x, axis + 1);
      std::vector<std::pair<int64_t, int64_t>> pp(axis + 2, {0, 0});
      pp[axis + 1] = {0, s[i] - 1};
      y = op::pad(y, pp);
      std::vector<int64_t> sh = dims(x.shape());
      sh[axis] = len * s[i];
      x = op::narrow(op::reshape(y, sh), axis, 0, (len - 1) * s[i] + 1);
    }
  }
  std::vector<std::pair<int64_t, int64_t>> pp(2 + n, {0, 0});
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t ke = (k[i] - 1) * d[i] + 1;
    pp[2 + i] = {ke - 1 - pads[i], ke - 1 - pads[i + n] + outPad[i]};
  }
  x = op::pad(x, pp);
  const int64_t C = w.dim(0), Mg = w.dim(1);
  std::vector<int64_t> ws = {g, C / g, Mg};
  ws.insert(ws.end(), k.begin(), k.end());
  std::vector<int64_t> perm = {0, 2, 1};
  for (std::size_t i = 0; i < n; ++i) perm.push_back(static_cast<int64_t>(3 + i));
  Value wt = op::permute(op::reshape(w, ws), perm);  // [g, Mg, Cg, k...]
  std::vector<int64_t> flipAxes;
  for (std::size_t i = 0; i < n; ++i) flipAxes.push_back(static_cast<int64_t>(3 + i));
  wt = op::flip(wt, flipAxes);
  std::vector<int64_t> ws2 = {g * Mg, C / g};
  ws2.insert(ws2.end(), k.begin(), k.end());
  wt = op::reshape(wt, ws2);
  Window win;
  win.kernel = k;
  win.stride.assign(n, 1);
  win.dilation = d;
  win.padBegin.assign(n, 0);
  win.padEnd.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) win.out.push_back(x.shape()[2 + i] - ((k[i] - 1) * d[i] + 1) + 1);
  Value y = convCore(c, x, wt, win, g);
  if (c.has(2)) y = addChannelBias(y, c.value(2));
  return one(y);
}

// Max/sum pooling is separable: reduce one spatial axis at a time over its k window offsets, so
// a 60x80 window costs 140 terms instead of 4800.
Value pool(Value x, const Window& w, double padValue, bool isMax, bool addPads = true) {
  const std::size_t n = w.kernel.size();
  if (addPads) x = padWindows(x, w, padValue);
  const int r = x.rank();
  for (std::size_t i = 0; i < n; ++i) {
    const int axis = static_cast<int>(2 + i);
    std::vector<int> labels(static_cast<std::size_t>(r));
    for (int a = 0; a < r; ++a) labels[a] = a;
    Value v = windowsLast(moveLast(x, labels, axis), w.kernel[i], w.stride[i], w.dilation[i], w.out[i]);  // [..., k, o]
    v = isMax ? op::max(v, {r - 1}) : op::cast(op::sum(v, {r - 1}), x.dtype());                        // [..., o]
    std::vector<int64_t> back;  // the pooled axis from last to its place
    for (int a = 0; a < r; ++a) back.push_back(a < axis ? a : a == axis ? r - 1 : a - 1);
    x = axis == r - 1 ? v : op::permute(v, back);
  }
  return x;
}

// MaxPool's Indices output: the argmax over the window stack, mapped through a host table
// (kernel offset, output position) -> flat input position, plus each (n, c) plane's offset.
Value maxPoolIndices(OnnxContext& c, Value x, const Window& win) {
  const std::size_t n = win.kernel.size();
  const Shape sp(x.shape().begin() + 2, x.shape().end());
  Value cols = windows(x, win, lowestOf(x.dtype()));  // [N, C, K, *out]
  Value arg = op::argmax(cols, 2, true);              // [N, C, 1, *out]
  int64_t K = 1, O = 1, plane = 1;
  for (int64_t k : win.kernel) K *= k;
  for (int64_t o : win.out) O *= o;
  for (Dim d : sp) plane *= d;
  const bool colMajor = c.node.attrInt("storage_order", 0) != 0;
  Shape ts = {K};
  ts.insert(ts.end(), win.out.begin(), win.out.end());
  HostTensor table(DType::I64, c.checkSize(ts));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t o = 0; o < O; ++o) {
      int64_t kr = k, orem = o, flat = 0;
      std::vector<int64_t> coord(n);
      for (std::size_t i = n; i-- > 0;) {
        const int64_t off = kr % win.kernel[i], pos = orem % win.out[i];
        kr /= win.kernel[i], orem /= win.out[i];
        coord[i] = pos * win.stride[i] + off * win.dilation[i] - win.padBegin[i];
      }
      if (colMajor)
        for (std::size_t i = n; i-- > 0;) flat = flat * sp[i] + coord[i];
      else
        for (std::size_t i = 0; i < n; ++i) flat = flat * sp[i] + coord[i];
      table.setInt(k * O + o, flat);
    }
  Shape tshape = {1, 1};
  tshape.insert(tshape.end(), ts.begin(), ts.end());
  Value hit = op::eq(arg, arangeAlong(c.b, K, 2, x.rank() + 1));
  Value within = op::sum(op::where(hit, c.b.constant(table.reshaped(tshape)), scalarLike(arg, 0)), {2});
  HostTensor base(DType::I64, {x.dim(0), x.dim(1)});
  for (int64_t i = 0; i < base.numel(); ++i) base.setInt(i, i * plane);
  Shape bs = {x.dim(0), x.dim(1)};
  bs.resize(x.rank(), 1);
  return op::add(within, c.b.constant(base.reshaped(bs)));
}

V maxPool(OnnxContext& c) {
  Value x = c.value(0);
  if (x.rank() < 3) c.fail("input must have rank >= 3", ErrorCode::Shape);
  const Shape sp(x.shape().begin() + 2, x.shape().end());
  Window win = windowOf(c, sp, c.node.attrInts("kernel_shape"), c.node.attrInt("ceil_mode", 0) != 0);
  V out = one(pool(x, win, lowestOf(x.dtype()), true));
  if (c.node.outputs.size() > 1 && !c.node.outputs[1].empty()) out.push_back(OnnxValue::of(maxPoolIndices(c, x, win)));
  return out;
}

V averagePool(OnnxContext& c) {
  Value x = c.value(0);
  if (x.rank() < 3) c.fail("input must have rank >= 3", ErrorCode::Shape);
  const Shape sp(x.shape().begin() + 2, x.shape().end());
  Window win = windowOf(c, sp, c.node.attrInts("kernel_shape"), c.node.attrInt("ceil_mode", 0) != 0);
  const bool includePad = c.node.attrInt("count_include_pad", 0) != 0;
  Value sum = pool(x, win, 0.0, false);
  // Divisor per output: windows of a mask that is 1 on data (and on explicit pads when they
  // count), 0 on the extra right padding ceil mode adds.
  const std::size_t n = sp.size();
  Shape ms = {1, 1};
  std::vector<int64_t> extra(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t need = (win.out[i] - 1) * win.stride[i] + (win.kernel[i] - 1) * win.dilation[i] + 1;
    const int64_t have = sp[i] + win.padBegin[i] + win.padEnd[i];
    extra[i] = std::max<int64_t>(0, need - have);
    ms.push_back(have + extra[i]);
  }
  HostTensor mask(x.dtype() == DType::F64 ? DType::F64 : DType::F32, c.checkSize(ms));
  const int64_t total = mask.numel();
  for (int64_t e = 0; e < total; ++e) {
    int64_t rem = e;
    bool on = true;
    for (std::size_t i = n; i-- > 0;) {
      const int64_t p = rem % ms[2 + i];
      rem /= ms[2 + i];
      const bool data = p >= win.padBegin[i] && p < win.padBegin[i] + sp[i];
      const bool pad = !data && p < win.padBegin[i] + sp[i] + win.padEnd[i];
      on = on && (data || (includePad && pad));
    }
    mask.setDouble(e, on ? 1.0 : 0.0);
  }
  Value count = pool(c.b.constant(mask), win, 0.0, false, false);
  return one(op::cast(op::div(sum, op::cast(count, sum.dtype())), x.dtype()));
}

std::vector<int64_t> spatialAxes(int rank) {
  std::vector<int64_t> a;
  for (int i = 2; i < rank; ++i) a.push_back(i);
  return a;
}
V globalAveragePool(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::cast(op::mean(x, spatialAxes(x.rank()), true), x.dtype()));
}
V globalMaxPool(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::max(x, spatialAxes(x.rank()), true));
}

// ---------------------------------------------------------------- normalizations
Value channelVec(Value v, int rank) {
  if (rank < 2) throw Error(ErrorCode::Shape, "input must have rank >= 2 (a channel axis)");
  std::vector<int64_t> s(rank, 1);
  s[1] = numel(v.shape());
  return op::reshape(v, s);
}

// Training mode: normalize with the batch statistics and output the updated running ones.
V batchNormTraining(OnnxContext& c) {
  Value x = c.value(0);
  const int r = x.rank();
  const double eps = c.node.attrFloat("epsilon", 1e-5), mom = c.node.attrFloat("momentum", 0.9);
  std::vector<int64_t> axes = {0};
  for (int i = 2; i < r; ++i) axes.push_back(i);
  Value m = op::mean(x, axes, true);
  Value d = op::sub(x, m);
  Value var = op::mean(op::mul(d, d), axes, true);
  Value y = op::mul(d, op::rsqrt(op::add(var, scalarLike(var, eps))));
  y = op::add(op::mul(y, channelVec(c.value(1), r)), channelVec(c.value(2), r));
  V out{OnnxValue::of(op::cast(y, x.dtype()))};
  auto running = [&](std::size_t i, Value batch) {
    Value old = c.value(i);
    Value b = op::reshape(batch, dims(old.shape()));
    return OnnxValue::of(op::add(op::mul(old, scalarLike(old, mom)), op::mul(op::cast(b, old.dtype()), scalarLike(old, 1 - mom))));
  };
  if (c.node.outputs.size() > 1) out.push_back(running(3, m));
  if (c.node.outputs.size() > 2) out.push_back(running(4, var));
  return out;
}

V batchNorm(OnnxContext& c) {
  if (c.node.attrInt("training_mode", 0)) return batchNormTraining(c);
  for (std::size_t i = 1; i < c.node.outputs.size(); ++i)
    if (!c.node.outputs[i].empty()) c.fail("training outputs (running mean/var) need training_mode=1");
  Value x = c.value(0);
  const int r = x.rank();
  const double eps = c.node.attrFloat("epsilon", 1e-5);
  Value scale = op::cast(channelVec(c.value(1), r), x.dtype()), bias = op::cast(channelVec(c.value(2), r), x.dtype());
  Value mean = op::cast(channelVec(c.value(3), r), x.dtype()), var = op::cast(channelVec(c.value(4), r), x.dtype());
  Value inv = op::rsqrt(op::add(var, scalarLike(var, eps)));
  return one(op::add(op::mul(op::mul(op::sub(x, mean), inv), scale), bias));
}

V instanceNorm(OnnxContext& c) {
  Value x = c.value(0);
  const int r = x.rank();
  const double eps = c.node.attrFloat("epsilon", 1e-5);
  const auto axes = spatialAxes(r);
  Value m = op::mean(x, axes, true);
  Value d = op::sub(x, m);
  Value var = op::mean(op::mul(d, d), axes, true);
  Value y = op::mul(d, op::rsqrt(op::add(var, scalarLike(var, eps))));
  return one(op::add(op::mul(y, channelVec(c.value(1), r)), channelVec(c.value(2), r)));
}

V layerNorm(OnnxContext& c) {
  Value x = c.value(0);
  const int r = x.rank();
  const int axis = axisOf(c, c.node.attrInt("axis", -1), r);
  const double eps = c.node.attrFloat("epsilon", 1e-5);
  const bool stashF32 = c.node.attrInt("stash_type", 1) == 1;
  std::vector<int64_t> axes;
  for (int i = axis; i < r; ++i) axes.push_back(i);
  Value xs = stashF32 ? op::cast(x, DType::F32) : x;
  Value m = op::mean(xs, axes, true);
  Value d = op::sub(xs, m);
  Value var = op::mean(op::mul(d, d), axes, true);
  Value inv = op::rsqrt(op::add(var, scalarLike(var, eps)));
  Value y = op::cast(op::mul(d, inv), x.dtype());
  y = op::mul(y, c.value(1));
  if (c.has(2)) y = op::add(y, c.value(2));
  V out{OnnxValue::of(op::cast(y, x.dtype()))};
  if (c.node.outputs.size() > 1) out.push_back(OnnxValue::of(m));
  if (c.node.outputs.size() > 2) out.push_back(OnnxValue::of(inv));
  return out;
}

V meanVarianceNorm(OnnxContext& c) {
  Value x = c.value(0);
  const auto axes = c.node.attrInts("axes", {0, 2, 3});
  Value m = op::mean(x, axes, true);
  Value d = op::sub(x, m);
  Value var = op::mean(op::mul(d, d), axes, true);
  return one(op::div(d, op::add(op::sqrt(var), scalarLike(var, 1e-9))));
}

V lrn(OnnxContext& c) {
  Value x = c.value(0);
  const int64_t size = c.node.attrInt("size", 1);
  const double alpha = c.node.attrFloat("alpha", 1e-4), beta = c.node.attrFloat("beta", 0.75), bias = c.node.attrFloat("bias", 1.0);
  if (size < 1 || size > 4096 || x.rank() < 2) c.fail("size must be positive and the input have a channel axis", ErrorCode::Shape);
  const int64_t lo = (size - 1) / 2, hi = size - 1 - lo, C = x.dim(1);
  Value sq = op::mul(x, x);
  std::vector<std::pair<int64_t, int64_t>> pp(2, {0, 0});
  pp[1] = {lo, hi};
  Value padded = op::pad(sq, pp);
  Value sum;
  for (int64_t k = 0; k < size; ++k) {
    Value part = op::narrow(padded, 1, k, C);
    sum = k == 0 ? part : op::add(sum, part);
  }
  Value den = op::pow(op::add(op::mul(sum, scalarLike(x, alpha / static_cast<double>(size))), scalarLike(x, bias)),
                      scalarLike(x, beta));
  return one(op::div(x, den));
}

// ---------------------------------------------------------------- softmax family
// Older opsets (< 13) coerce the input to 2-D at `axis` and normalize over the flattened tail.
template <Value (*F)(Value, int64_t)>
V softmaxLike(OnnxContext& c) {
  Value x = c.value(0);
  const int r = std::max(1, x.rank());
  if (c.node.opset >= 13) return one(op::cast(F(x, axisOf(c, c.node.attrInt("axis", -1), r)), x.dtype()));
  const int axis = axisOf(c, c.node.attrInt("axis", 1), r);
  int64_t a = 1, b = 1;
  for (int i = 0; i < x.rank(); ++i) (i < axis ? a : b) *= x.shape()[i];
  Value y = F(op::reshape(x, {a, b}), 1);
  return one(op::cast(op::reshape(y, dims(x.shape())), x.dtype()));
}

Value hardmaxOf(Value x, int64_t axis) {
  Value idx = op::argmax(x, axis, true);
  Value hit = op::eq(idx, arangeAlong(*x.builder(), x.dim(axis), static_cast<int>(axis), x.rank()));
  return op::cast(hit, x.dtype());
}

// ---------------------------------------------------------------- reductions
struct ReduceArgs {
  std::vector<int64_t> axes;
  bool keep = true;
  bool identity = false;  // empty axes with noop_with_empty_axes
};
ReduceArgs reduceArgs(OnnxContext& c) {
  ReduceArgs a;
  a.axes = c.has(1) ? c.ints(1, "axes") : c.node.attrInts("axes");
  a.keep = c.node.attrInt("keepdims", 1) != 0;
  a.identity = a.axes.empty() && c.node.attrInt("noop_with_empty_axes", 0) != 0;
  return a;
}

enum class Red { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };
template <Red R>
V reduceOp(OnnxContext& c) {
  Value x = c.value(0);
  ReduceArgs a = reduceArgs(c);
  if (a.identity) return one(x);
  Value y;
  switch (R) {
    case Red::Sum: y = op::sum(x, a.axes, a.keep); break;
    case Red::Mean: y = op::mean(x, a.axes, a.keep); break;
    case Red::Max: y = op::max(x, a.axes, a.keep); break;
    case Red::Min: y = op::min(x, a.axes, a.keep); break;
    case Red::Prod: y = op::prod(x, a.axes, a.keep); break;
    case Red::L1: y = op::sum(op::abs(x), a.axes, a.keep); break;
    case Red::L2: y = op::sqrt(op::sum(op::mul(x, x), a.axes, a.keep)); break;
    case Red::LogSum: y = op::log(op::sum(x, a.axes, a.keep)); break;
    case Red::LogSumExp: y = op::log(op::sum(op::exp(x), a.axes, a.keep)); break;
    case Red::SumSquare: y = op::sum(op::mul(x, x), a.axes, a.keep); break;
  }
  return one(op::cast(y, x.dtype()));
}

template <bool IsMax>
V argReduce(OnnxContext& c) {
  Value x = c.value(0);
  const int axis = axisOf(c, c.node.attrInt("axis", 0), std::max(1, x.rank()));
  const bool keep = c.node.attrInt("keepdims", 1) != 0;
  if (c.node.attrInt("select_last_index", 0)) {
    // The last index of the extreme = n-1 - first index in the flipped tensor.
    Value f = op::flip(x, {axis});
    Value i = IsMax ? op::argmax(f, axis, keep) : op::argmin(f, axis, keep);
    return one(op::sub(op::cast(scalarLike(i, static_cast<double>(x.dim(axis) - 1)), DType::I64), i));
  }
  return one(IsMax ? op::argmax(x, axis, keep) : op::argmin(x, axis, keep));
}

// ---------------------------------------------------------------- losses
Value nllLoss(OnnxContext& c, Value logp, Value target, std::optional<Value> weight) {
  const int r = logp.rank();
  if (r < 2) c.fail("input must have rank >= 2", ErrorCode::Shape);
  const int64_t C = logp.dim(1);
  Value t = op::cast(target, DType::I64);
  Value mask = op::eq(op::unsqueeze(t, 1), arangeAlong(c.b, C, 1, r));  // [N, C, d...]
  Value zero = scalarLike(logp, 0);
  Value picked = op::sum(op::where(mask, logp, zero), {1});
  Value w = weight ? op::sum(op::where(mask, op::cast(channelVec(*weight, r), logp.dtype()), zero), {1})
                   : op::cast(op::sum(op::cast(mask, DType::I32), {1}), logp.dtype());
  if (c.node.has("ignore_index")) {
    Value valid = op::ne(t, scalarLike(t, static_cast<double>(c.node.attrInt("ignore_index", 0))));
    w = op::where(valid, w, zero);
  }
  Value loss = op::neg(op::mul(picked, w));
  const std::string red = c.node.attrString("reduction", "mean");
  if (red == "none") return loss;
  if (red == "sum") return op::cast(op::sum(loss), logp.dtype());
  if (red != "mean") c.fail("reduction '" + red + "' is not supported");
  return op::cast(op::div(op::sum(loss), op::sum(w)), logp.dtype());
}

V nll(OnnxContext& c) {
  std::optional<Value> w;
  if (c.has(2)) w = c.value(2);
  return one(nllLoss(c, c.value(0), c.value(1), w));
}

V softmaxCrossEntropy(OnnxContext& c) {
  Value scores = c.value(0);
  Value logp = op::cast(op::logSoftmax(scores, 1), scores.dtype());
  std::optional<Value> w;
  if (c.has(2)) w = c.value(2);
  V out{OnnxValue::of(nllLoss(c, logp, c.value(1), w))};
  if (c.node.outputs.size() > 1) out.push_back(OnnxValue::of(logp));
  return out;
}

}  // namespace

void addNn(Table& t) {
  t["MatMul"] = matmul;
  t["Gemm"] = gemm;
  t["Einsum"] = einsum;
  t["Conv"] = conv;
  t["ConvTranspose"] = convTranspose;
  t["ConvInteger"] = convInteger;
  t["MatMulInteger"] = matMulInteger;
  t["QLinearMatMul"] = qlinearMatMul;
  t["QLinearConv"] = qlinearConv;
  t["MaxPool"] = maxPool;
  t["AveragePool"] = averagePool;
  t["GlobalAveragePool"] = globalAveragePool;
  t["GlobalMaxPool"] = globalMaxPool;
  t["BatchNormalization"] = batchNorm;
  t["InstanceNormalization"] = instanceNorm;
  t["LayerNormalization"] = layerNorm;
  t["MeanVarianceNormalization"] = meanVarianceNorm;
  t["LRN"] = lrn;
  t["Softmax"] = softmaxLike<op::softmax>;
  t["LogSoftmax"] = softmaxLike<op::logSoftmax>;
  t["Hardmax"] = softmaxLike<hardmaxOf>;
  t["ReduceSum"] = reduceOp<Red::Sum>;
  t["ReduceMean"] = reduceOp<Red::Mean>;
  t["ReduceMax"] = reduceOp<Red::Max>;
  t["ReduceMin"] = reduceOp<Red::Min>;
  t["ReduceProd"] = reduceOp<Red::Prod>;
  t["ReduceL1"] = reduceOp<Red::L1>;
  t["ReduceL2"] = reduceOp<Red::L2>;
  t["ReduceLogSum"] = reduceOp<Red::LogSum>;
  t["ReduceLogSumExp"] = reduceOp<Red::LogSumExp>;
  t["ReduceSumSquare"] = reduceOp<Red::SumSquare>;
  t["ArgMax"] = argReduce<true>;
  t["ArgMin"] = argReduce<false>;
  t["NegativeLogLikelihoodLoss"] = nll;
  t["SoftmaxCrossEntropyLoss"] = softmaxCrossEntropy;
}

}  // namespace ks::onnxops
