// TensorProto / NodeProto conversion and the .pb tensor file reader (needs libonnx).
#include <cstring>

#include "engine/core/file_io.h"
#include "engine/io/onnx_proto.h"
#include "engine/io/tensor_file.h"

namespace ks {
namespace {

template <class Field, class Set>
void fillTyped(const Field& f, Set set) {
  for (int i = 0; i < f.size(); ++i) set(i, f.Get(i));
}

}  // namespace

HostTensor tensorFromProto(const onnx::TensorProto& t, const std::string& what, const SourceLoc& where) {
  auto fail = [&](ErrorCode c, const std::string& m) -> Error { return Error(c, what + ": " + m, where); };
  const auto dt = onnxDTypeOf(t.data_type());
  if (!dt) throw fail(ErrorCode::Unsupported, std::string("dtype ") + onnxDTypeName(t.data_type()) + " is not supported");
  if (t.data_location() == onnx::TensorProto::EXTERNAL || t.external_data_size() > 0)
    throw fail(ErrorCode::Unsupported, "external tensor data is not supported");
  Shape shape;
  long double elems = 1;
  for (int i = 0; i < t.dims_size(); ++i) {
    if (t.dims(i) < 0) throw fail(ErrorCode::Shape, "negative dimension " + std::to_string(t.dims(i)));
    shape.push_back(t.dims(i));
    elems *= static_cast<long double>(t.dims(i));
  }
  const std::size_t esize = dtypeSize(*dt);
  if (t.has_raw_data()) {
    if (static_cast<long double>(t.raw_data().size()) != elems * esize)
      throw fail(ErrorCode::Parse, "raw data has " + std::to_string(t.raw_data().size()) + " bytes, shape " +
                                       shapeStr(shape) + " needs " + std::to_string(static_cast<long long>(elems * esize)));
    HostTensor r(*dt, shape);
    std::memcpy(r.bytes(), t.raw_data().data(), r.byteSize());
    if (*dt == DType::Bool)
      for (std::size_t i = 0; i < r.byteSize(); ++i) r.bytes()[i] = std::byte{r.bytes()[i] != std::byte{0}};
    return r;
  }
  int64_t have = 0;
  switch (*dt) {
    case DType::F32: have = t.float_data_size(); break;
    case DType::F64: have = t.double_data_size(); break;
    case DType::I64: have = t.int64_data_size(); break;
    case DType::U32: have = t.uint64_data_size(); break;
    default: have = t.int32_data_size(); break;  // int8/16/32, uint8, bool, f16 bits
  }
  if (static_cast<long double>(have) != elems)
    throw fail(ErrorCode::Parse, "holds " + std::to_string(have) + " values, shape " + shapeStr(shape) + " needs " +
                                     std::to_string(static_cast<long long>(elems)));
  HostTensor r(*dt, shape);
  switch (*dt) {
    case DType::F32: fillTyped(t.float_data(), [&](int i, float v) { r.data<float>()[i] = v; }); break;
    case DType::F64: fillTyped(t.double_data(), [&](int i, double v) { r.data<double>()[i] = v; }); break;
    case DType::I64: fillTyped(t.int64_data(), [&](int i, int64_t v) { r.data<int64_t>()[i] = v; }); break;
    case DType::U32: fillTyped(t.uint64_data(), [&](int i, uint64_t v) { r.data<uint32_t>()[i] = static_cast<uint32_t>(v); }); break;
    case DType::F16: fillTyped(t.int32_data(), [&](int i, int32_t v) { r.data<uint16_t>()[i] = static_cast<uint16_t>(v); }); break;
    default: fillTyped(t.int32_data(), [&](int i, int32_t v) { r.setInt(i, v); }); break;
  }
  return r;
}

OnnxNode nodeFromProto(const onnx::NodeProto& n, int64_t opset, std::size_t index, const SourceLoc& where) {
  OnnxNode r;
  r.opType = n.op_type();
  r.name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  r.opset = opset;
  for (const auto& i : n.input()) r.inputs.push_back(i);
  for (const auto& o : n.output()) r.outputs.push_back(o);
  SourceLoc at = where;
  at.node = r.name;
  for (const auto& a : n.attribute()) {
    OnnxAttr v;
    switch (a.type()) {
      case onnx::AttributeProto::FLOAT: v.kind = OnnxAttr::Kind::Float, v.f = a.f(); break;
      case onnx::AttributeProto::INT: v.kind = OnnxAttr::Kind::Int, v.i = a.i(); break;
      case onnx::AttributeProto::STRING: v.kind = OnnxAttr::Kind::String, v.s = a.s(); break;
      case onnx::AttributeProto::TENSOR:
        v.kind = OnnxAttr::Kind::Tensor;
        v.t = std::make_shared<HostTensor>(tensorFromProto(a.t(), "attribute '" + a.name() + "'", at));
        break;
      case onnx::AttributeProto::FLOATS:
        v.kind = OnnxAttr::Kind::Floats;
        for (float f : a.floats()) v.floats.push_back(f);
        break;
      case onnx::AttributeProto::INTS:
        v.kind = OnnxAttr::Kind::Ints;
        for (int64_t i : a.ints()) v.ints.push_back(i);
        break;
      case onnx::AttributeProto::STRINGS:
        v.kind = OnnxAttr::Kind::Strings;
        for (const auto& s : a.strings()) v.strings.push_back(s);
        break;
      default: v.kind = OnnxAttr::Kind::Other; break;  // graphs, sparse tensors, type protos
    }
    if (!a.ref_attr_name().empty())
      throw Error(ErrorCode::Unsupported, r.opType + ": attribute references (function bodies) are not supported", at, r.opType);
    r.attrs[a.name()] = std::move(v);
  }
  return r;
}

HostTensor readOnnxTensorFile(const std::string& path, std::string* name) {
  onnx::TensorProto t;
  if (!t.ParseFromString(readFile(path, "an ONNX TensorProto (.pb)"))) throw Error(ErrorCode::Parse, "not a valid onnx.TensorProto (truncated or malformed)", {path});
  if (name) *name = t.name();
  return tensorFromProto(t, "tensor '" + t.name() + "'", {path});
}

}  // namespace ks
