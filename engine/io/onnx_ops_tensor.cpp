// ONNX shape and movement ops, gathers, and the ops that make constants (Constant, Shape, Size,
// ConstantOfShape, Range, EyeLike). Shape operands are import-time constants.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/io/onnx_ops.h"

namespace ks::onnxops {
namespace {

using V = std::vector<OnnxValue>;

HostTensor i64Tensor(const std::vector<int64_t>& v, bool scalar = false) {
  HostTensor t(DType::I64, scalar ? Shape{} : Shape{static_cast<Dim>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) t.setInt(static_cast<int64_t>(i), v[i]);
  return t;
}

// Axes from an attribute (older opsets) or an optional input (newer ones).
std::vector<int64_t> axesOf(OnnxContext& c, std::size_t input, const char* attr = "axes") {
  if (c.has(input)) return c.ints(input, "axes");
  return c.node.attrInts(attr);
}

V reshape(OnnxContext& c) {
  Value x = c.value(0);
  std::vector<int64_t> s = c.node.opset < 5 ? c.node.attrInts("shape") : c.ints(1, "shape");
  const bool allowZero = c.node.attrInt("allowzero", 0) != 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == 0 && !allowZero) {
      if (static_cast<int>(i) >= x.rank()) c.fail("shape entry 0 at axis " + std::to_string(i) + " has no input dim", ErrorCode::Shape);
      s[i] = x.shape()[i];
    }
  return one(op::reshape(x, s));
}

V transpose(OnnxContext& c) {
  Value x = c.value(0);
  std::vector<int64_t> perm = c.node.attrInts("perm");
  if (perm.empty())
    for (int i = x.rank() - 1; i >= 0; --i) perm.push_back(i);
  return one(op::permute(x, perm));
}

V flatten(OnnxContext& c) {
  Value x = c.value(0);
  const int r = x.rank();
  int64_t axis = c.node.attrInt("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) c.fail("axis out of range", ErrorCode::Axis);
  int64_t a = 1, b = 1;
  for (int i = 0; i < r; ++i) (i < axis ? a : b) *= x.shape()[i];
  return one(op::reshape(x, {a, b}));
}

V squeeze(OnnxContext& c) {
  Value x = c.value(0);
  std::vector<int64_t> axes = axesOf(c, 1);
  return one(op::squeeze(x, axes));
}

V unsqueeze(OnnxContext& c) {
  Value x = c.value(0);
  std::vector<int64_t> axes = axesOf(c, 1);
  const int r = x.rank() + static_cast<int>(axes.size());
  std::vector<int> ax;
  for (int64_t a : axes) ax.push_back(axisOf(c, a, r));
  std::sort(ax.begin(), ax.end());
  std::vector<int64_t> s = dims(x.shape());
  for (int a : ax) s.insert(s.begin() + a, 1);
  return one(op::reshape(x, s));
}

V concat(OnnxContext& c) {
  std::vector<Value> xs;
  int rank = -1;
  for (std::size_t i = 0; i < c.count(); ++i) {
    if (!c.has(i)) continue;
    const int r = static_cast<int>(c.shape(i).size());
    if (rank >= 0 && r != rank)
      c.fail("input " + std::to_string(i) + " has rank " + std::to_string(r) + ", the others " + std::to_string(rank),
             ErrorCode::Shape);
    rank = r;
    xs.push_back(c.value(i));
  }
  if (xs.empty()) c.fail("no inputs", ErrorCode::Usage);
  const int axis = axisOf(c, c.node.attrInt("axis", 0), rank);
  // Empty pieces (a 0-length axis) contribute nothing.
  std::vector<Value> keep;
  for (Value v : xs)
    if (v.shape()[axis] != 0) keep.push_back(v);
  if (keep.empty()) return one(xs[0]);
  return one(concatAxis(keep, axis));
}

V split(OnnxContext& c) {
  Value x = c.value(0);
  const int axis = axisOf(c, c.node.attrInt("axis", 0), x.rank());
  std::vector<int64_t> sizes = c.has(1) ? c.ints(1, "split") : c.node.attrInts("split");
  const int64_t n = x.shape()[axis];
  const int64_t outs = static_cast<int64_t>(c.node.outputs.size());
  if (sizes.empty()) {
    const int64_t parts = c.node.attrInt("num_outputs", outs);
    if (parts < 1) c.fail("no outputs to split into", ErrorCode::Shape);
    const int64_t each = (n + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::min(each, n - i * each));
  }
  V r;
  int64_t at = 0;
  for (int64_t s : sizes) {
    if (s < 0 || s > n) c.fail("bad split size " + std::to_string(s), ErrorCode::Shape);
    r.push_back(OnnxValue::of(op::narrow(x, axis, at, s)));
    at += s;
  }
  if (at != n) c.fail("split sizes add up to " + std::to_string(at) + ", axis has " + std::to_string(n), ErrorCode::Shape);
  return r;
}

// NumPy-style slicing of one axis with clamping, any nonzero step.
Value sliceAxis(OnnxContext& c, Value x, int axis, int64_t start, int64_t end, int64_t step) {
  const int64_t n = x.shape()[axis];
  if (step == 0 || step > (int64_t{1} << 40) || step < -(int64_t{1} << 40)) c.fail("slice step out of range", ErrorCode::Shape);
  start = std::clamp<int64_t>(start, -(int64_t{1} << 50), int64_t{1} << 50);
  end = std::clamp<int64_t>(end, -(int64_t{1} << 50), int64_t{1} << 50);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, n);
    end = std::clamp<int64_t>(end, 0, n);
    const int64_t count = end > start ? (end - start + step - 1) / step : 0;
    return stepSlice(x, axis, start, count, step);
  }
  start = std::clamp<int64_t>(start, 0, n - 1);
  end = std::clamp<int64_t>(end, -1, n - 1);
  const int64_t count = start > end ? (start - end - step - 1) / (-step) : 0;
  if (count == 0) return op::narrow(x, axis, 0, 0);
  // Reverse the axis: element i of the flipped tensor is element n-1-i.
  return stepSlice(op::flip(x, {axis}), axis, n - 1 - start, count, -step);
}

V slice(OnnxContext& c) {
  Value x = c.value(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.node.opset < 10) {
    starts = c.node.attrInts("starts");
    ends = c.node.attrInts("ends");
    axes = c.node.attrInts("axes");
  } else {
    starts = c.ints(1, "starts");
    ends = c.ints(2, "ends");
    if (c.has(3)) axes = c.ints(3, "axes");
    if (c.has(4)) steps = c.ints(4, "steps");
  }
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    c.fail("starts, ends, axes and steps differ in length", ErrorCode::Shape);
  for (std::size_t i = 0; i < starts.size(); ++i)
    x = sliceAxis(c, x, axisOf(c, axes[i], x.rank()), starts[i], ends[i], steps[i]);
  return one(x);
}

V gather(OnnxContext& c) {
  Value data = c.value(0);
  const int axis = axisOf(c, c.node.attrInt("axis", 0), data.rank());
  if (c.isConstant(1) && c.constant(1, "indices").numel() <= 16) {
    // A few known indices: narrow and concatenate (what shape subgraphs and embeddings of a few
    // tokens need), no one-hot tensor.
    const HostTensor& idx = c.constant(1, "indices");
    const int64_t n = data.shape()[axis];
    std::vector<Value> parts;
    for (int64_t i = 0; i < idx.numel(); ++i) {
      int64_t k = idx.getInt(i);
      if (k < 0) k += n;
      if (k < 0 || k >= n) c.fail("index " + std::to_string(idx.getInt(i)) + " out of range for axis of size " + std::to_string(n), ErrorCode::Shape);
      parts.push_back(op::narrow(data, axis, k, 1));
    }
    std::vector<int64_t> out = dims(data.shape());
    out.erase(out.begin() + axis);
    out.insert(out.begin() + axis, idx.shape().begin(), idx.shape().end());
    if (parts.empty()) c.fail("empty index tensor", ErrorCode::Shape);
    return one(op::reshape(concatAxis(parts, axis), out));
  }
  return one(gatherAxis(data, c.value(1), axis));
}

V gatherElements(OnnxContext& c) {
  Value data = c.value(0), idx = op::cast(c.value(1), DType::I64);
  const int r = data.rank();
  if (idx.rank() != r) c.fail("indices rank differs from data rank", ErrorCode::Shape);
  const int axis = axisOf(c, c.node.attrInt("axis", 0), r);
  const int64_t n = data.shape()[axis];
  // Crop data to the index shape on every other axis, then select along `axis` with a one-hot
  // mask placed on a new axis right after it.
  Value d = data;
  for (int i = 0; i < r; ++i)
    if (i != axis) d = op::narrow(d, i, 0, idx.shape()[i]);
  idx = op::where(op::lt(idx, scalarLike(idx, 0)), op::add(idx, scalarLike(idx, static_cast<double>(n))), idx);
  Value mask = op::eq(op::unsqueeze(idx, axis + 1), arangeAlong(c.b, n, axis + 1, r + 1));
  if (d.dtype() == DType::Bool) d = op::cast(d, DType::U8);
  Value dd = op::unsqueeze(d, axis);  // [.., 1 (index pos), n, ..]
  Value picked = op::where(mask, dd, scalarLike(dd, lowestOf(dd.dtype())));
  Value out = op::max(picked, {axis + 1});
  return one(op::cast(out, data.dtype()));
}

V expand(OnnxContext& c) {
  Value x = c.value(0);
  std::vector<int64_t> s = c.ints(1, "shape");
  Shape target = broadcastShapes(x.shape(), Shape(s.begin(), s.end()), "Expand");
  return one(op::broadcastTo(x, target));
}

V tile(OnnxContext& c) {
  Value x = c.value(0);
  std::vector<int64_t> reps = c.ints(1, "repeats");
  if (static_cast<int>(reps.size()) != x.rank()) c.fail("repeats length differs from rank", ErrorCode::Shape);
  // x[d0, d1] -> [1, d0, 1, d1] -> expand [r0, d0, r1, d1] -> [r0*d0, r1*d1].
  std::vector<int64_t> s1, s2, s3;
  for (int i = 0; i < x.rank(); ++i) {
    s1.push_back(1), s1.push_back(x.shape()[i]);
    s2.push_back(reps[i]), s2.push_back(x.shape()[i]);
    s3.push_back(reps[i] * x.shape()[i]);
  }
  return one(op::reshape(op::expand(op::reshape(x, s1), s2), s3));
}

V pad(OnnxContext& c) {
  Value x = c.value(0);
  const int r = x.rank();
  std::vector<int64_t> pads;
  double value = 0.0;
  if (c.node.opset < 11) {
    pads = c.node.attrInts("pads");
    value = c.node.attrFloat("value", 0.0);
  } else {
    pads = c.ints(1, "pads");
    if (c.has(2)) value = c.scalarValue(2, "constant_value");
  }
  std::vector<int64_t> axes;
  if (c.has(3)) axes = c.ints(3, "axes");
  else
    for (int i = 0; i < r; ++i) axes.push_back(i);
  if (pads.size() != 2 * axes.size()) c.fail("pads has " + std::to_string(pads.size()) + " entries for " + std::to_string(axes.size()) + " axes", ErrorCode::Shape);
  std::vector<std::pair<int64_t, int64_t>> pp(r, {0, 0});
  for (std::size_t i = 0; i < axes.size(); ++i) pp[axisOf(c, axes[i], r)] = {pads[i], pads[i + axes.size()]};
  const std::string mode = c.node.attrString("mode", "constant");
  if (mode == "constant") return one(op::pad(x, pp, value));
  if (mode != "reflect" && mode != "edge" && mode != "wrap") c.fail("mode '" + mode + "' is not supported");
  for (int a = 0; a < r; ++a) {
    auto [lp, rp] = pp[a];
    if (lp < 0 || rp < 0) c.fail("negative pads in mode " + mode);
    if (lp == 0 && rp == 0) continue;
    const int64_t n = x.shape()[a];
    std::vector<Value> parts;
    if (mode == "edge") {
      auto edge = [&](int64_t at, int64_t count) {
        std::vector<int64_t> s = dims(x.shape());
        s[a] = count;
        return op::expand(op::narrow(x, a, at, 1), s);
      };
      if (lp) parts.push_back(edge(0, lp));
      parts.push_back(x);
      if (rp) parts.push_back(edge(n - 1, rp));
    } else if (mode == "reflect") {
      if (lp >= n || rp >= n) c.fail("reflect pads must be smaller than the axis", ErrorCode::Shape);
      if (lp) parts.push_back(op::flip(op::narrow(x, a, 1, lp), {a}));
      parts.push_back(x);
      if (rp) parts.push_back(op::flip(op::narrow(x, a, n - 1 - rp, rp), {a}));
    } else {
      if (lp > n || rp > n) c.fail("wrap pads must not exceed the axis", ErrorCode::Shape);
      if (lp) parts.push_back(op::narrow(x, a, n - lp, lp));
      parts.push_back(x);
      if (rp) parts.push_back(op::narrow(x, a, 0, rp));
    }
    x = concatAxis(parts, a);
  }
  return one(x);
}

V constant(OnnxContext& c) {
  const OnnxNode& n = c.node;
  if (n.has("value")) {
    const OnnxAttr& a = n.attrs.at("value");
    if (!a.t) c.fail("value is not a tensor", ErrorCode::Usage);
    return one(*a.t);
  }
  if (n.has("value_float")) {
    HostTensor t(DType::F32, {});
    t.setDouble(0, n.attrFloat("value_float", 0));
    return one(t);
  }
  if (n.has("value_floats")) {
    auto f = n.attrFloats("value_floats");
    HostTensor t(DType::F32, {static_cast<Dim>(f.size())});
    for (std::size_t i = 0; i < f.size(); ++i) t.setDouble(static_cast<int64_t>(i), f[i]);
    return one(t);
  }
  if (n.has("value_int")) return one(i64Tensor({n.attrInt("value_int", 0)}, true));
  if (n.has("value_ints")) return one(i64Tensor(n.attrInts("value_ints")));
  c.fail("only tensor, float(s) and int(s) values are supported (sparse and string values are not)");
}

V constantOfShape(OnnxContext& c) {
  std::vector<int64_t> s = c.ints(0, "shape");
  HostTensor fill(DType::F32, {});
  if (c.node.has("value")) {
    const OnnxAttr& a = c.node.attrs.at("value");
    if (!a.t || a.t->numel() != 1) c.fail("value must be a one-element tensor", ErrorCode::Shape);
    fill = a.t->reshaped({});
  }
  for (int64_t d : s)
    if (d < 0) c.fail("negative dimension", ErrorCode::Shape);
  HostTensor t(fill.dtype(), c.checkSize(Shape(s.begin(), s.end())));
  const std::size_t e = dtypeSize(t.dtype());
  for (int64_t i = 0; i < t.numel(); ++i) std::memcpy(t.bytes() + i * e, fill.bytes(), e);
  return one(t);
}

V shape(OnnxContext& c) {
  const Shape s = c.shape(0);
  const int64_t r = static_cast<int64_t>(s.size());
  int64_t start = c.node.attrInt("start", 0), end = c.node.attrInt("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<int64_t> v;
  for (int64_t i = start; i < end; ++i) v.push_back(s[i]);
  return one(i64Tensor(v));
}

V size(OnnxContext& c) { return one(i64Tensor({numel(c.shape(0))}, true)); }

V range(OnnxContext& c) {
  const HostTensor& st = c.constant(0, "start");
  const double start = c.scalarValue(0, "start"), limit = c.scalarValue(1, "limit"), delta = c.scalarValue(2, "delta");
  if (delta == 0) c.fail("delta is 0", ErrorCode::Shape);
  const double count = std::ceil((limit - start) / delta);
  if (!(count < static_cast<double>(int64_t{1} << 28))) c.fail("the range is too long", ErrorCode::Allocation);
  const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  HostTensor t(st.dtype(), c.checkSize({n}));
  for (int64_t i = 0; i < n; ++i) {
    if (isFloat(t.dtype())) t.setDouble(i, start + static_cast<double>(i) * delta);
    else t.setInt(i, static_cast<int64_t>(start) + i * static_cast<int64_t>(delta));
  }
  return one(t);
}

V eyeLike(OnnxContext& c) {
  const Shape s = c.shape(0);
  if (s.size() != 2) c.fail("input must be 2-D", ErrorCode::Shape);
  DType t = c.dtype(0);
  if (c.node.has("dtype")) {
    const int64_t code = c.node.attrInt("dtype", 1);
    auto d = onnxDTypeOf(code);
    if (!d) c.fail(std::string("dtype ") + onnxDTypeName(code) + " is not supported");
    t = *d;
  }
  const int64_t k = c.node.attrInt("k", 0);
  HostTensor r(t, c.checkSize(s));
  for (int64_t i = 0; i < s[0]; ++i)
    if (i + k >= 0 && i + k < s[1]) r.setInt(i * s[1] + i + k, 1);
  return one(r);
}

V trilu(OnnxContext& c) {
  Value x = c.value(0);
  if (x.rank() < 2) c.fail("input must have rank >= 2", ErrorCode::Shape);
  const int64_t k = c.has(1) ? static_cast<int64_t>(c.scalarValue(1, "k")) : 0;
  const bool upper = c.node.attrInt("upper", 1) != 0;
  const int64_t rows = x.dim(-2), cols = x.dim(-1);
  HostTensor m(DType::Bool, c.checkSize({rows, cols}));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) m.setInt(i * cols + j, upper ? (j - i >= k) : (j - i <= k));
  return one(op::where(c.b.constant(m), x, scalarLike(x, 0)));
}

V oneHot(OnnxContext& c) {
  Value idx = op::cast(c.value(0), DType::I64);
  const double depthValue = c.scalarValue(1, "depth");
  if (!(depthValue >= 1 && depthValue < static_cast<double>(int64_t{1} << 24))) c.fail("depth out of range", ErrorCode::Shape);
  const int64_t depth = static_cast<int64_t>(depthValue);
  Value values = c.value(2);
  const int r = idx.rank() + 1;
  const int axis = axisOf(c, c.node.attrInt("axis", -1), r);
  idx = op::where(op::lt(idx, scalarLike(idx, 0)), op::add(idx, scalarLike(idx, static_cast<double>(depth))), idx);
  Value mask = op::eq(op::unsqueeze(idx, axis), arangeAlong(c.b, depth, axis, r));
  Value off = op::reshape(op::narrow(op::reshape(values, {2}), 0, 0, 1), {});
  Value on = op::reshape(op::narrow(op::reshape(values, {2}), 0, 1, 1), {});
  Shape full = mask.shape();
  return one(op::where(mask, op::broadcastTo(on, full), op::broadcastTo(off, full)));
}

V dropout(OnnxContext& c) {
  if (c.has(2) && c.scalarValue(2, "training_mode") != 0) {
    const double ratio = c.has(1) ? c.scalarValue(1, "ratio") : 0.5;
    if (ratio != 0) c.fail("training mode (random masks) is not supported");
  }
  V r{c.isConstant(0) ? OnnxValue::of(c.constant(0, "data")) : OnnxValue::of(c.value(0))};
  if (c.node.outputs.size() > 1 && !c.node.outputs[1].empty()) {
    HostTensor m(DType::Bool, c.checkSize(c.shape(0)));
    for (int64_t i = 0; i < m.numel(); ++i) m.setInt(i, 1);
    r.push_back(OnnxValue::of(m));
  }
  return r;
}

V cumSum(OnnxContext& c) {
  Value x = c.value(0);
  const int axis = axisOf(c, static_cast<int64_t>(c.scalarValue(1, "axis")), x.rank());
  const bool exclusive = c.node.attrInt("exclusive", 0), reverse = c.node.attrInt("reverse", 0);
  Value y = reverse ? op::flip(x, {axis}) : x;
  y = op::cast(op::cumsum(y, axis), x.dtype());
  if (exclusive) {
    std::vector<std::pair<int64_t, int64_t>> p(axis + 1, {0, 0});
    p[axis] = {1, -1};
    y = op::pad(y, p);
  }
  if (reverse) y = op::flip(y, {axis});
  return one(y);
}

V depthToSpace(OnnxContext& c) {
  Value x = c.value(0);
  if (x.rank() != 4) c.fail("input must be 4-D", ErrorCode::Shape);
  const int64_t b = c.node.attrInt("blocksize", 1), n = x.dim(0), ch = x.dim(1), h = x.dim(2), w = x.dim(3);
  const bool crd = c.node.attrString("mode", "DCR") == "CRD";
  if (b < 1 || ch % (b * b) != 0) c.fail("channels must divide by blocksize^2", ErrorCode::Shape);
  Value y = crd ? op::permute(op::reshape(x, {n, ch / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3})
                : op::permute(op::reshape(x, {n, b, b, ch / (b * b), h, w}), {0, 3, 4, 1, 5, 2});
  return one(op::reshape(y, {n, ch / (b * b), h * b, w * b}));
}

V spaceToDepth(OnnxContext& c) {
  Value x = c.value(0);
  if (x.rank() != 4) c.fail("input must be 4-D", ErrorCode::Shape);
  const int64_t b = c.node.attrInt("blocksize", 1), n = x.dim(0), ch = x.dim(1), h = x.dim(2), w = x.dim(3);
  if (b < 1 || h % b != 0 || w % b != 0) c.fail("height and width must divide by blocksize", ErrorCode::Shape);
  Value y = op::permute(op::reshape(x, {n, ch, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
  return one(op::reshape(y, {n, ch * b * b, h / b, w / b}));
}

}  // namespace

void addTensor(Table& t) {
  t["Reshape"] = reshape;
  t["Transpose"] = transpose;
  t["Flatten"] = flatten;
  t["Squeeze"] = squeeze;
  t["Unsqueeze"] = unsqueeze;
  t["Concat"] = concat;
  t["Split"] = split;
  t["Slice"] = slice;
  t["Gather"] = gather;
  t["GatherElements"] = gatherElements;
  t["Expand"] = expand;
  t["Tile"] = tile;
  t["Pad"] = pad;
  t["Constant"] = constant;
  t["ConstantOfShape"] = constantOfShape;
  t["Shape"] = shape;
  t["Size"] = size;
  t["Range"] = range;
  t["EyeLike"] = eyeLike;
  t["Trilu"] = trilu;
  t["OneHot"] = oneHot;
  t["Dropout"] = dropout;
  t["CumSum"] = cumSum;
  t["DepthToSpace"] = depthToSpace;
  t["SpaceToDepth"] = spaceToDepth;
}

}  // namespace ks::onnxops
