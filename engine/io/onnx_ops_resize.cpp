// ONNX Resize and Upsample with import-time scales/sizes. Interpolation is separable, so each
// resized axis becomes a matmul with a host-computed [out, in] weight matrix (one-hot rows for
// nearest, two taps for linear, four for cubic), following the ONNX reference's neighbour and
// coefficient rules exactly.
#include <algorithm>
#include <cmath>

#include "engine/io/onnx_ops.h"

namespace ks::onnxops {
namespace {

using V = std::vector<OnnxValue>;

struct ResizeAttrs {
  std::string mode = "nearest", transform = "half_pixel", nearest = "round_prefer_floor";
  double cubicA = -0.75, extrapolation = 0.0;
  bool excludeOutside = false;
};

// Source coordinate of output position `o` along an axis, or NaN when tf_crop_and_resize puts it
// outside the input (extrapolated).
double sourceCoord(const OnnxContext& c, const ResizeAttrs& a, int64_t o, int64_t in, int64_t out, double scale,
                   double roiStart, double roiEnd) {
  const double x = static_cast<double>(o);
  const std::string& t = a.transform;
  // Like the reference, the "resized length" in these formulas is in * scale, not rounded.
  const double outLen = static_cast<double>(in) * scale;
  (void)out;
  if (t == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (t == "pytorch_half_pixel") return outLen > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (t == "align_corners") return outLen == 1 ? 0.0 : x * static_cast<double>(in - 1) / (outLen - 1);
  if (t == "asymmetric") return x / scale;
  if (t == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (t == "tf_crop_and_resize") {
    const double v = outLen > 1 ? roiStart * static_cast<double>(in - 1) +
                                      x * (roiEnd - roiStart) * static_cast<double>(in - 1) / (outLen - 1)
                             : 0.5 * (roiStart + roiEnd) * static_cast<double>(in - 1);
    return (v < 0 || v > static_cast<double>(in - 1)) ? NAN : v;
  }
  c.fail("coordinate_transformation_mode '" + t + "' is not supported");
}

std::vector<double> coeffs(const ResizeAttrs& a, double ratio, bool integral) {
  if (a.mode == "nearest") {
    if (integral) return {0, 1};
    if (a.nearest == "round_prefer_ceil") return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    if (a.nearest == "floor") return {1, 0};
    if (a.nearest == "ceil") return {0, 1};
    return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};
  }
  if (a.mode == "linear") return {1 - ratio, ratio};
  const double A = a.cubicA, r = ratio, s = 1 - ratio;
  return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A, ((A + 2) * r - (A + 3)) * r * r + 1,
          ((A + 2) * s - (A + 3)) * s * s + 1, ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A};
}

// [out, in] weights of one axis; `outside` marks extrapolated output positions.
HostTensor axisWeights(const OnnxContext& c, const ResizeAttrs& a, int64_t in, int64_t out, double scale, double r0,
                       double r1, std::vector<bool>& outside) {
  HostTensor w(DType::F64, c.checkSize({out, in}));
  outside.assign(out, false);
  for (int64_t o = 0; o < out; ++o) {
    const double x = sourceCoord(c, a, o, in, out, scale, r0, r1);
    if (std::isnan(x)) {
      outside[o] = true;
      continue;
    }
    // The ONNX reference's neighbours: for an integral x the left point set ends at x (ratio 1).
    int64_t base = static_cast<int64_t>(std::floor(x));
    double ratio = x - static_cast<double>(base);
    const bool integral = ratio == 0.0;
    if (integral) base -= 1, ratio = 1.0;
    std::vector<double> k = coeffs(a, ratio, integral);
    const int64_t first = k.size() == 2 ? base : base - 1;
    if (a.excludeOutside) {
      double sum = 0;
      for (std::size_t i = 0; i < k.size(); ++i) {
        const int64_t idx = first + static_cast<int64_t>(i);
        if (idx < 0 || idx >= in) k[i] = 0;
        sum += k[i];
      }
      if (sum != 0)
        for (double& v : k) v /= sum;
    }
    for (std::size_t i = 0; i < k.size(); ++i) {
      const int64_t idx = std::clamp<int64_t>(first + static_cast<int64_t>(i), 0, in - 1);  // edge padding
      w.setDouble(o * in + idx, w.getDouble(o * in + idx) + k[i]);
    }
  }
  return w;
}

Value resizeWith(OnnxContext& c, Value x, const ResizeAttrs& a, std::vector<double> scales, std::vector<int64_t> sizes,
                 std::vector<double> roi) {
  const int r = x.rank();
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic") c.fail("mode '" + a.mode + "' is not supported");
  if (!sizes.empty()) {
    if (static_cast<int>(sizes.size()) != r) c.fail("sizes length differs from the rank", ErrorCode::Shape);
    scales.clear();
    for (int i = 0; i < r; ++i) scales.push_back(static_cast<double>(sizes[i]) / static_cast<double>(x.dim(i)));
  } else {
    if (static_cast<int>(scales.size()) != r) c.fail("scales length differs from the rank", ErrorCode::Shape);
    for (int i = 0; i < r; ++i) {
      const double n = scales[i] * static_cast<double>(x.dim(i));
      if (!(scales[i] > 0 && n < static_cast<double>(int64_t{1} << 28))) c.fail("bad scale", ErrorCode::Shape);
      sizes.push_back(static_cast<int64_t>(n));
    }
  }
  for (int i = 0; i < r; ++i)
    if (sizes[i] < 1 || x.dim(i) < 1 || !(scales[i] > 0)) c.fail("sizes and scales must be positive", ErrorCode::Shape);
  if (roi.size() != static_cast<std::size_t>(2 * r)) {
    roi.assign(2 * r, 0.0);
    for (int i = 0; i < r; ++i) roi[r + i] = 1.0;
  }
  const DType t = x.dtype();
  const DType ct = t == DType::F64 ? DType::F64 : DType::F32;
  Value y = op::cast(x, ct);
  Value outsideMask;
  for (int i = 0; i < r; ++i) {
    const int64_t in = x.dim(i), out = sizes[i];
    std::vector<bool> outside;
    HostTensor w = axisWeights(c, a, in, out, scales[i], roi[i], roi[r + i], outside);
    bool identity = in == out;
    for (int64_t o = 0; identity && o < out; ++o)
      for (int64_t k = 0; identity && k < in; ++k) identity = w.getDouble(o * in + k) == (o == k ? 1.0 : 0.0);
    if (!identity) {
      // Move axis i last, multiply by W^T, move it back.
      std::vector<int64_t> perm;
      for (int k = 0; k < r; ++k)
        if (k != i) perm.push_back(k);
      perm.push_back(i);
      std::vector<int64_t> inv(r);
      for (int k = 0; k < r; ++k) inv[perm[k]] = k;
      HostTensor wt(ct, {in, out});
      for (int64_t o = 0; o < out; ++o)
        for (int64_t k = 0; k < in; ++k) wt.setDouble(k * out + o, w.getDouble(o * in + k));
      y = op::permute(op::matmul(op::permute(y, perm), c.b.constant(wt)), inv);
    }
    if (std::find(outside.begin(), outside.end(), true) != outside.end()) {
      HostTensor m(DType::Bool, c.checkSize({out}));
      for (int64_t o = 0; o < out; ++o) m.setInt(o, outside[o]);
      Shape ms(r, 1);
      ms[i] = out;
      Value mv = c.b.constant(m.reshaped(ms));
      outsideMask = outsideMask.valid() ? op::logicalOr(outsideMask, mv) : mv;
    }
  }
  if (outsideMask.valid()) y = op::where(outsideMask, scalarLike(y, a.extrapolation), y);
  return op::cast(y, t);
}

std::vector<double> doubles(const HostTensor& t) {
  std::vector<double> r;
  for (int64_t i = 0; i < t.numel(); ++i) r.push_back(t.getDouble(i));
  return r;
}

V resize(OnnxContext& c) {
  ResizeAttrs a;
  a.mode = c.node.attrString("mode", "nearest");
  a.transform = c.node.attrString("coordinate_transformation_mode", c.node.opset < 11 ? "asymmetric" : "half_pixel");
  a.nearest = c.node.attrString("nearest_mode", c.node.opset < 11 ? "floor" : "round_prefer_floor");
  a.cubicA = c.node.attrFloat("cubic_coeff_a", -0.75);
  a.excludeOutside = c.node.attrInt("exclude_outside", 0) != 0;
  a.extrapolation = c.node.attrFloat("extrapolation_value", 0.0);
  if (c.node.has("axes") || c.node.has("antialias")) c.fail("the opset-18 attributes axes/antialias are not supported");
  if (c.node.opset < 11) return one(resizeWith(c, c.value(0), a, doubles(c.constant(1, "scales")), {}, {}));
  std::vector<double> roi, scales;
  std::vector<int64_t> sizes;
  if (c.has(1) && c.constant(1, "roi").numel() > 0) roi = doubles(c.constant(1, "roi"));
  if (c.has(2) && c.constant(2, "scales").numel() > 0) scales = doubles(c.constant(2, "scales"));
  if (c.has(3) && c.constant(3, "sizes").numel() > 0) sizes = c.ints(3, "sizes");
  if (scales.empty() && sizes.empty()) c.fail("needs scales or sizes", ErrorCode::Shape);
  return one(resizeWith(c, c.value(0), a, scales, sizes, roi));
}

V upsample(OnnxContext& c) {
  ResizeAttrs a;
  a.mode = c.node.attrString("mode", "nearest");
  a.transform = "asymmetric";
  a.nearest = "floor";
  std::vector<double> scales = c.has(1) ? doubles(c.constant(1, "scales")) : c.node.attrFloats("scales");
  return one(resizeWith(c, c.value(0), a, scales, {}, {}));
}

}  // namespace

void addResize(Table& t) {
  t["Resize"] = resize;
  t["Upsample"] = upsample;
}

}  // namespace ks::onnxops
