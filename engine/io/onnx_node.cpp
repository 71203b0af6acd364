// OnnxNode attribute access, the lowering context, and the op registry over the lowering files.
#include "engine/io/onnx_node.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/io/onnx_ops.h"

namespace ks {

int64_t OnnxNode::attrInt(const std::string& a, int64_t fallback) const {
  auto it = attrs.find(a);
  return it == attrs.end() ? fallback : (it->second.kind == OnnxAttr::Kind::Float ? static_cast<int64_t>(it->second.f) : it->second.i);
}
double OnnxNode::attrFloat(const std::string& a, double fallback) const {
  auto it = attrs.find(a);
  return it == attrs.end() ? fallback : (it->second.kind == OnnxAttr::Kind::Int ? static_cast<double>(it->second.i) : it->second.f);
}
std::string OnnxNode::attrString(const std::string& a, const std::string& fallback) const {
  auto it = attrs.find(a);
  return it == attrs.end() ? fallback : it->second.s;
}
std::vector<int64_t> OnnxNode::attrInts(const std::string& a, std::vector<int64_t> fallback) const {
  auto it = attrs.find(a);
  return it == attrs.end() ? fallback : it->second.ints;
}
std::vector<double> OnnxNode::attrFloats(const std::string& a, std::vector<double> fallback) const {
  auto it = attrs.find(a);
  return it == attrs.end() ? fallback : it->second.floats;
}

const OnnxValue& OnnxContext::operand(std::size_t i) const {
  if (!has(i)) fail("input " + std::to_string(i) + " is missing", ErrorCode::Usage);
  return in_[i];
}

Value OnnxContext::value(std::size_t i) {
  operand(i);
  if (!in_[i].value.valid()) in_[i].value = materialize_(in_[i]);
  return in_[i].value;
}

const HostTensor& OnnxContext::constant(std::size_t i, const char* what) const {
  const OnnxValue& v = operand(i);
  if (!v.constant)
    fail(std::string("input ") + std::to_string(i) + " ('" + node.inputs[i] + "', " + what +
         ") must be a constant known at import time");
  return *v.constant;
}

std::vector<int64_t> OnnxContext::ints(std::size_t i, const char* what) const {
  const HostTensor& t = constant(i, what);
  if (!isInt(t.dtype())) fail(std::string(what) + " must be an integer tensor", ErrorCode::DType);
  std::vector<int64_t> r(t.numel());
  for (int64_t k = 0; k < t.numel(); ++k) r[k] = t.getInt(k);
  return r;
}

double OnnxContext::scalarValue(std::size_t i, const char* what) const {
  const HostTensor& t = constant(i, what);
  if (t.numel() != 1) fail(std::string(what) + " must hold one element, got shape " + shapeStr(t.shape()), ErrorCode::Shape);
  return isFloat(t.dtype()) ? t.getDouble(0) : static_cast<double>(t.getInt(0));
}

const Shape& OnnxContext::checkSize(const Shape& s) const {
  long double n = 1;
  for (Dim d : s) {
    if (d < 0) fail("negative dimension in " + shapeStr(s), ErrorCode::Shape);
    n *= static_cast<long double>(d);
  }
  if (n > static_cast<long double>(int64_t{1} << 28))
    fail("a tensor of shape " + shapeStr(s) + " is too large to make at import time", ErrorCode::Allocation);
  return s;
}

void OnnxContext::fail(const std::string& msg, ErrorCode code) const {
  throw Error(code, msg, loc_, node.opType);
}

std::optional<DType> onnxDTypeOf(int64_t code) {
  switch (code) {
    case 1: return DType::F32;
    case 2: return DType::U8;
    case 3: return DType::I8;
    case 5: return DType::I16;
    case 6: return DType::I32;
    case 7: return DType::I64;
    case 9: return DType::Bool;
    case 10: return DType::F16;
    case 11: return DType::F64;
    case 12: return DType::U32;
    default: return std::nullopt;
  }
}

const char* onnxDTypeName(int64_t code) {
  static const char* const names[] = {"UNDEFINED", "FLOAT",  "UINT8",     "INT8",       "UINT16",   "INT16",
                                      "INT32",     "INT64",  "STRING",    "BOOL",       "FLOAT16",  "DOUBLE",
                                      "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
  return code >= 0 && code <= 16 ? names[code] : "UNKNOWN";
}

namespace {
const onnxops::Table& table() {
  static const onnxops::Table t = [] {
    onnxops::Table r;
    onnxops::addElementwise(r);
    onnxops::addTensor(r);
    onnxops::addNn(r);
    onnxops::addResize(r);
    onnxops::addExtra(r);
    return r;
  }();
  return t;
}
}  // namespace

OnnxLowering findOnnxLowering(const std::string& opType) {
  auto it = table().find(opType);
  return it == table().end() ? nullptr : it->second;
}

std::vector<std::string> onnxSupportedOps() {
  std::vector<std::string> r;
  for (auto& [k, v] : table()) r.push_back(k);
  return r;
}

std::vector<int> onnxShapeOperands(const std::string& op) {
  static const std::map<std::string, std::vector<int>> m = {
      {"Reshape", {1}},   {"Expand", {1}},         {"Tile", {1}},      {"Slice", {1, 2, 3, 4}},
      {"Pad", {1, 2, 3}},    {"Squeeze", {1}},        {"Unsqueeze", {1}}, {"Split", {1}},
      {"ConstantOfShape", {0}}, {"Range", {0, 1, 2}}, {"OneHot", {1}}, {"CumSum", {1}},
      {"Trilu", {1}},     {"TopK", {1}},           {"Resize", {1, 2, 3}}, {"Upsample", {1}},
      {"ReduceSum", {1}}, {"ReduceMean", {1}},     {"ReduceMax", {1}}, {"ReduceMin", {1}},
      {"ReduceProd", {1}}, {"ReduceL1", {1}},      {"ReduceL2", {1}},  {"ReduceLogSum", {1}},
      {"ReduceLogSumExp", {1}}, {"ReduceSumSquare", {1}}, {"Dropout", {1, 2}},
      {"Compress", {1}},  {"NonZero", {0}},        {"GatherND", {1}},  {"ScatterElements", {1}},
      {"Scatter", {1}},   {"ScatterND", {1}},      {"HannWindow", {0}}, {"HammingWindow", {0}},
      {"BlackmanWindow", {0}}, {"Adagrad", {1}}, {"Momentum", {1}}, {"Adam", {1}},
  };
  auto it = m.find(op);
  return it == m.end() ? std::vector<int>{} : it->second;
}

namespace onnxops {

Value scalarLike(Value x, double v) { return x.builder()->scalar(v, x.dtype()); }

double lowestOf(DType t) {
  switch (t) {
    case DType::Bool: case DType::U8: case DType::U32: return 0.0;
    case DType::I8: return -128.0;
    case DType::I16: return -32768.0;
    case DType::I32: return -2147483648.0;
    case DType::I64: return static_cast<double>(std::numeric_limits<int64_t>::min());
    default: return -std::numeric_limits<double>::infinity();
  }
}

std::vector<int64_t> dims(const Shape& s) { return std::vector<int64_t>(s.begin(), s.end()); }

Value stepSlice(Value x, int64_t axis, int64_t start, int64_t count, int64_t step) {
  const int a = normalizeAxis(axis, x.rank(), "slice");
  if (count <= 0) return op::narrow(x, a, 0, 0);
  if (step == 1) return op::narrow(x, a, start, count);
  // Take count*step elements from start (padding past the end), view them as [count, step] and
  // keep column 0: strided access from contiguous primitives.
  const int64_t n = x.shape()[a];
  const int64_t avail = std::min(n - start, count * step);
  Value y = op::narrow(x, a, start, avail);
  if (avail < count * step) {
    std::vector<std::pair<int64_t, int64_t>> pads(a + 1, {0, 0});
    pads[a] = {0, count * step - avail};
    y = op::pad(y, pads);
  }
  std::vector<int64_t> s = dims(y.shape());
  s[a] = step;
  s.insert(s.begin() + a, count);
  y = op::reshape(y, s);
  y = op::narrow(y, a + 1, 0, 1);
  s.erase(s.begin() + a + 1);
  return op::reshape(y, s);
}

Value arangeAlong(ProgramBuilder& b, int64_t n, int axis, int rank, DType t) {
  HostTensor h(t, {n});
  for (int64_t i = 0; i < n; ++i) h.setInt(i, i);
  Shape s(rank, 1);
  s[axis] = n;
  return b.constant(h.reshaped(s));
}

Value gatherAxis(Value data, Value indices, int axis) {
  ProgramBuilder& b = *data.builder();
  const Shape ds = data.shape();
  const int64_t n = ds[axis];
  int64_t pre = 1, post = 1;
  for (int i = 0; i < axis; ++i) pre *= ds[i];
  for (std::size_t i = axis + 1; i < ds.size(); ++i) post *= ds[i];
  const Shape is = indices.shape();
  const int64_t ni = numel(is);
  Value idx = op::cast(indices, DType::I64);
  idx = op::where(op::lt(idx, scalarLike(idx, 0)), op::add(idx, scalarLike(idx, static_cast<double>(n))), idx);
  idx = op::reshape(idx, {1, ni, 1, 1});
  // One-hot select with a max reduction: exact for every dtype, and NaN/inf outside the picked
  // element never leak (a real select, not a multiply).
  Value mask = op::eq(idx, arangeAlong(b, n, 2, 4));
  Value d = data.dtype() == DType::Bool ? op::cast(data, DType::U8) : data;
  d = op::reshape(d, {pre, 1, n, post});
  Value picked = op::where(mask, d, scalarLike(d, lowestOf(d.dtype())));
  Value r = op::max(picked, {2});
  if (data.dtype() == DType::Bool) r = op::cast(r, DType::Bool);
  std::vector<int64_t> out(ds.begin(), ds.begin() + axis);
  out.insert(out.end(), is.begin(), is.end());
  out.insert(out.end(), ds.begin() + axis + 1, ds.end());
  return op::reshape(r, out);
}

Value concatAxis(const std::vector<Value>& xs, int axis) {
  if (xs.size() == 1) return xs[0];
  return op::concat(xs, axis);
}

int axisOf(const OnnxContext& c, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank)
    c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank), ErrorCode::Axis);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace onnxops
}  // namespace ks
