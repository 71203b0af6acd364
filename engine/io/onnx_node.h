// An ONNX node in engine terms (no protobuf types): op type, operands, attributes, and the
// lowering context that turns one node into program-builder values.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/host_tensor.h"
#include "engine/program/builder.h"

namespace ks {

struct OnnxAttr {
  enum class Kind : uint8_t { Float, Int, String, Tensor, Floats, Ints, Strings, Other };
  Kind kind = Kind::Other;
  double f = 0.0;
  int64_t i = 0;
  std::string s;
  std::shared_ptr<const HostTensor> t;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
};

struct OnnxNode {
  std::string name;  // node name, or "<op type>_<index>" when the model leaves it empty
  std::string opType;
  int64_t opset = 0;  // the model's default-domain opset
  std::vector<std::string> inputs;   // "" = absent optional input
  std::vector<std::string> outputs;  // "" = unused optional output
  std::map<std::string, OnnxAttr> attrs;

  bool has(const std::string& a) const { return attrs.count(a) > 0; }
  int64_t attrInt(const std::string& a, int64_t fallback) const;
  double attrFloat(const std::string& a, double fallback) const;
  std::string attrString(const std::string& a, const std::string& fallback) const;
  std::vector<int64_t> attrInts(const std::string& a, std::vector<int64_t> fallback = {}) const;
  std::vector<double> attrFloats(const std::string& a, std::vector<double> fallback = {}) const;
};

// One operand or result of a node: a constant known at import time (initializer, Constant, a
// folded subgraph) or a value of the program, or both.
struct OnnxValue {
  bool present = false;
  std::string name;         // the ONNX tensor name
  bool initializer = false;  // a model initializer (materialized as a parameter when large)
  std::optional<HostTensor> constant;
  Value value;  // valid once materialized in the builder
  DType dtype() const { return constant ? constant->dtype() : value.dtype(); }
  Shape shape() const { return constant ? constant->shape() : value.shape(); }
  static OnnxValue of(Value v) { OnnxValue r; r.present = true; r.value = v; return r; }
  static OnnxValue of(HostTensor t) { OnnxValue r; r.present = true; r.constant = std::move(t); return r; }
};

// What a lowering function sees: the node, its operands and the builder to add values to.
class OnnxContext {
 public:
  OnnxContext(ProgramBuilder& b, const OnnxNode& n, std::vector<OnnxValue>& in,
              std::function<Value(OnnxValue&)> materialize, SourceLoc loc)
      : b(b), node(n), in_(in), materialize_(std::move(materialize)), loc_(std::move(loc)) {}
  ProgramBuilder& b;
  const OnnxNode& node;

  std::size_t count() const { return in_.size(); }
  bool has(std::size_t i) const { return i < in_.size() && in_[i].present; }
  DType dtype(std::size_t i) const { return operand(i).dtype(); }
  Shape shape(std::size_t i) const { return operand(i).shape(); }
  Value value(std::size_t i);               // the operand as a program value
  bool isConstant(std::size_t i) const { return has(i) && in_[i].constant.has_value(); }
  const HostTensor& constant(std::size_t i, const char* what) const;  // throws Unsupported if not constant
  std::vector<int64_t> ints(std::size_t i, const char* what) const;   // a constant int tensor's values
  double scalarValue(std::size_t i, const char* what) const;          // a constant one-element tensor

  [[noreturn]] void fail(const std::string& msg, ErrorCode code = ErrorCode::Unsupported) const;
  // Guards import-time tensors against hostile shapes: fails (Allocation) above 2^28 elements.
  const Shape& checkSize(const Shape& s) const;
  const SourceLoc& loc() const { return loc_; }

 private:
  const OnnxValue& operand(std::size_t i) const;
  std::vector<OnnxValue>& in_;
  std::function<Value(OnnxValue&)> materialize_;
  SourceLoc loc_;
};

using OnnxLowering = std::vector<OnnxValue> (*)(OnnxContext&);

// The lowering of an op type, or nullptr when it is not supported.
OnnxLowering findOnnxLowering(const std::string& opType);
// Operand positions that must be import-time constants (shape operands: Reshape's shape,
// Slice's bounds, axes, pads, ...), for the importer's look-ahead.
std::vector<int> onnxShapeOperands(const std::string& opType);
// The engine dtype of an ONNX TensorProto.DataType code (nullopt: not supported by the engine).
std::optional<DType> onnxDTypeOf(int64_t code);
const char* onnxDTypeName(int64_t code);  // "FLOAT", "UINT16", ...
// Every op type with a lowering, sorted.
std::vector<std::string> onnxSupportedOps();

}  // namespace ks
