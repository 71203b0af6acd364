// The ONNX importer: parses a ModelProto with libonnx's protobuf classes, binds inputs and
// initializers, lowers every node through the op table (onnx_ops_*.cpp), and folds nodes whose
// operands are all constants by evaluating them with the host executor at import time.
#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "engine/core/file_io.h"
#include "engine/eval/host_executor.h"
#include "engine/io/onnx_importer.h"
#include "engine/io/onnx_proto.h"
#include "engine/io/program_source.h"

namespace ks {
namespace {

bool isDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

class Importer {
 public:
  Importer(const onnx::ModelProto& m, std::string file, const OnnxImportOptions& opt)
      : model_(m), file_(std::move(file)), opt_(opt), b_(std::filesystem::path(file_).stem().string()) {}

  OnnxImportResult run() {
    for (const auto& o : model_.opset_import())
      if (isDefaultDomain(o.domain())) opset_ = o.version();
    if (opset_ == 0) opset_ = 1;  // IR v3 models without an opset entry use opset 1
    const onnx::GraphProto& g = model_.graph();
    if (g.sparse_initializer_size() > 0) throw Error(ErrorCode::Unsupported, "sparse initializers are not supported", {file_});
    for (const auto& t : g.initializer()) {
      if (t.name().empty()) throw Error(ErrorCode::Parse, "an initializer has no name", {file_});
      OnnxValue v = OnnxValue::of(tensorFromProto(t, "initializer '" + t.name() + "'", {file_}));
      v.name = t.name();
      v.initializer = true;
      values_[t.name()] = std::move(v);
    }
    markShapeOperands(g);
    for (const auto& in : g.input()) bindInput(in);
    for (int i = 0; i < g.node_size(); ++i) lowerNode(g.node(i), static_cast<std::size_t>(i));
    if (g.output_size() == 0) throw Error(ErrorCode::Usage, "the model declares no output", {file_});
    for (const auto& o : g.output()) {
      auto it = values_.find(o.name());
      if (it == values_.end()) throw Error(ErrorCode::Parse, "graph output '" + o.name() + "' is not produced by any node", {file_});
      b_.output(o.name(), materialize(it->second));
    }
    OnnxImportResult r{b_.finish(), constantInputs_, opset_};
    r.program.onnxNodes = std::move(nodes_);  // the classes each node made are in program.places
    return r;
  }

 private:
  // Names whose values some node needs at import time, found backwards through the producers:
  // a node producing a needed value needs its own operands as constants too (Shape and Size need
  // only the operand's shape).
  void markShapeOperands(const onnx::GraphProto& g) {
    for (int i = g.node_size() - 1; i >= 0; --i) {
      const auto& n = g.node(i);
      for (int k : onnxShapeOperands(n.op_type()))
        if (k < n.input_size() && !n.input(k).empty()) needConst_.insert(n.input(k));
      bool outNeeded = false;
      for (const auto& o : n.output()) outNeeded = outNeeded || needConst_.count(o);
      if (outNeeded && n.op_type() != "Shape" && n.op_type() != "Size")
        for (const auto& in : n.input())
          if (!in.empty()) needConst_.insert(in);
    }
  }

  void bindInput(const onnx::ValueInfoProto& in) {
    if (values_.count(in.name())) return;  // an initializer with a graph-input entry: a default value
    SourceLoc at(file_, 0, 0, "input '" + in.name() + "'");
    if (!in.type().has_tensor_type())
      throw Error(ErrorCode::Unsupported, "input '" + in.name() + "' is not a tensor (sequences, maps and optionals are not supported)", at);
    const auto& tt = in.type().tensor_type();
    const auto dt = onnxDTypeOf(tt.elem_type());
    if (!dt) throw Error(ErrorCode::Unsupported, "input '" + in.name() + "' has dtype " + onnxDTypeName(tt.elem_type()) + ", which the engine does not support", at);
    auto data = opt_.inputData.find(in.name());
    Shape shape;
    bool symbolic = !tt.has_shape();
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value() && d.dim_value() >= 0) shape.push_back(d.dim_value());
      else symbolic = true, shape.push_back(-1);
    }
    if (data != opt_.inputData.end()) {
      if (data->second.dtype() != *dt && !opt_.castInputData)
        throw Error(ErrorCode::DType, "data for input '" + in.name() + "' is " + std::string(dtypeName(data->second.dtype())) + ", the model says " + std::string(dtypeName(*dt)), at);
      const HostTensor t = data->second.dtype() == *dt ? data->second : data->second.castTo(*dt);
      // Symbolic dims take any size; the rank and the fixed dims must match.
      bool ok = !tt.has_shape() || t.shape().size() == shape.size();
      for (std::size_t i = 0; ok && tt.has_shape() && i < shape.size(); ++i) ok = shape[i] < 0 || shape[i] == t.shape()[i];
      if (!ok) throw Error(ErrorCode::Shape, "data for input '" + in.name() + "' has shape " + shapeStr(t.shape()) + ", the model says " + shapeStr(shape), at);
      shape = t.shape();
      if (needConst_.count(in.name())) {
        OnnxValue v = OnnxValue::of(t);
        v.name = in.name();
        values_[in.name()] = std::move(v);
        constantInputs_.push_back(in.name());
        return;
      }
    } else if (symbolic) {
      throw Error(ErrorCode::Unsupported, "input '" + in.name() + "' has a symbolic or unknown shape " + shapeStr(shape) + " (give its data to fix it)", at);
    }
    long double elems = 1;
    for (Dim d : shape) elems *= static_cast<long double>(d);
    if (elems > static_cast<long double>(int64_t{1} << 40))
      throw Error(ErrorCode::Allocation, "input '" + in.name() + "' of shape " + shapeStr(shape) + " is too large", at);
    b_.setLocation(at);
    OnnxValue v = OnnxValue::of(b_.input(in.name(), *dt, shape));
    v.name = in.name();
    values_[in.name()] = std::move(v);
  }

  Value materialize(OnnxValue& v) {
    OnnxValue* slot = &v;
    if (!v.name.empty()) {
      auto it = values_.find(v.name);
      if (it != values_.end()) slot = &it->second;
    }
    if (!slot->value.valid()) {
      const HostTensor& t = *slot->constant;
      if (slot->initializer && t.numel() > opt_.paramThreshold) {
        ParamInit init;
        init.kind = ParamInit::Kind::Data;
        init.data = std::make_shared<HostTensor>(t);
        slot->value = b_.param(slot->name, t.dtype(), t.shape(), init);
      } else {
        slot->value = b_.constant(t, slot->name);
      }
    }
    v.value = slot->value;
    return slot->value;
  }

  void lowerNode(const onnx::NodeProto& np, std::size_t index) {
    SourceLoc at(file_);
    OnnxNode n = nodeFromProto(np, opset_, index, at);
    at.node = n.name;
    const bool training = np.domain() == "ai.onnx.preview.training" &&
                          (n.opType == "Adagrad" || n.opType == "Momentum" || n.opType == "Adam");
    if (!isDefaultDomain(np.domain()) && !training)
      throw Error(ErrorCode::Unsupported, "unsupported op " + n.opType + " (domain '" + np.domain() + "')", at, n.opType);
    OnnxLowering lower = findOnnxLowering(n.opType);
    if (!lower) throw Error(ErrorCode::Unsupported, "unsupported op " + n.opType, at, n.opType);
    std::vector<OnnxValue> in;
    bool allConst = true;
    int64_t constElems = 0;
    for (const auto& name : n.inputs) {
      if (name.empty()) {
        in.emplace_back();
        continue;
      }
      auto it = values_.find(name);
      if (it == values_.end())
        throw Error(ErrorCode::Parse, "input '" + name + "' is not defined by an earlier node, a graph input or an initializer", at, n.opType);
      in.push_back(it->second);
      if (it->second.constant) constElems += it->second.constant->numel();
      else allConst = false;
    }
    std::vector<OnnxValue> out;
    try {
      if (allConst && constElems <= opt_.foldLimit) out = fold(n, in, lower, at);
      else {
        b_.setLocation(at);
        OnnxContext ctx(b_, n, in, [this](OnnxValue& v) { return materialize(v); }, at);
        out = lower(ctx);
      }
    } catch (const Error& e) {
      if (e.op() == n.opType) throw e.at(at);
      throw Error(e.code(), (e.op().empty() ? "" : e.op() + ": ") + e.message(), e.where().known() ? e.where() : at, n.opType);
    } catch (const std::exception& e) {
      throw Error(ErrorCode::Internal, std::string("failed: ") + e.what(), at, n.opType);
    }
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      if (k >= out.size() || !out[k].present)
        throw Error(ErrorCode::Unsupported, "output " + std::to_string(k) + " ('" + n.outputs[k] + "') is not supported", at, n.opType);
      out[k].name = n.outputs[k];
      out[k].initializer = false;
      values_[n.outputs[k]] = out[k];
    }
    recordNode(n, out);
  }

  // The node's row of Program::onnxNodes; its classes come from provenance (noted under `at`).
  void recordNode(const OnnxNode& n, const std::vector<OnnxValue>& out) {
    OnnxNodeInfo info{n.name, n.opType, n.inputs, n.outputs, {}, {}};
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      const bool known = !n.outputs[k].empty() && k < out.size() && out[k].present;
      info.outputShapes.push_back(known ? out[k].shape() : Shape{});
      info.outputDTypes.push_back(known ? out[k].dtype() : DType::F32);
    }
    nodes_.push_back(std::move(info));
  }

  // Lowers a node whose operands are all constants into a scratch program and evaluates it.
  std::vector<OnnxValue> fold(const OnnxNode& n, std::vector<OnnxValue> in, OnnxLowering lower, const SourceLoc& at) {
    ProgramBuilder tb("fold");
    tb.setLocation(at);
    for (auto& v : in) v.value = Value(), v.name.clear(), v.initializer = false;
    OnnxContext ctx(tb, n, in, [&tb](OnnxValue& v) { return v.value = tb.constant(*v.constant); }, at);
    std::vector<OnnxValue> out = lower(ctx);
    std::vector<ClassId> classes;
    std::vector<std::size_t> which;
    for (std::size_t k = 0; k < out.size(); ++k)
      if (out[k].present && !out[k].constant) classes.push_back(out[k].value.id()), which.push_back(k);
    if (!classes.empty()) {
      std::vector<HostTensor> leaves;
      for (const LeafInfo& l : tb.graph().leaves()) leaves.push_back(l.data ? *l.data : HostTensor(l.dtype, l.shape));
      std::vector<HostTensor> vals = HostExecutor::run(tb.graph(), classes, leaves);
      for (std::size_t i = 0; i < which.size(); ++i) out[which[i]] = OnnxValue::of(std::move(vals[i]));
    }
    return out;
  }

  const onnx::ModelProto& model_;
  std::string file_;
  const OnnxImportOptions& opt_;
  ProgramBuilder b_;
  int64_t opset_ = 0;
  std::unordered_map<std::string, OnnxValue> values_;
  std::set<std::string> needConst_;
  std::vector<std::string> constantInputs_;
  std::vector<OnnxNodeInfo> nodes_;
};

std::string readAll(const std::string& path) { return readFile(path, "an ONNX model (.onnx)"); }

onnx::ModelProto parseModel(const std::string& bytes, const std::string& file) {
  onnx::ModelProto m;
  if (bytes.empty()) throw Error(ErrorCode::Parse, "empty file is not an ONNX model", {file});
  if (!m.ParseFromString(bytes)) throw Error(ErrorCode::Parse, "not a valid ONNX model (truncated or malformed protobuf)", {file});
  if (!m.has_graph()) throw Error(ErrorCode::Parse, "the ONNX model has no graph", {file});
  return m;
}

}  // namespace

OnnxImportResult importOnnxBytes(const std::string& bytes, const std::string& file, const OnnxImportOptions& options) {
  onnx::ModelProto m = parseModel(bytes, file);
  OnnxImportResult r = Importer(m, file, options).run();
  r.program.name = std::filesystem::path(file).stem().string();
  return r;
}

OnnxImportResult importOnnxModel(const std::string& path, const OnnxImportOptions& options) {
  return importOnnxBytes(readAll(path), path, options);
}

std::vector<std::string> onnxModelOpTypes(const std::string& path) {
  std::vector<std::string> r;
  onnx::ModelProto m;
  if (!m.ParseFromString(readAll(path))) return r;
  for (const auto& n : m.graph().node())
    if (std::find(r.begin(), r.end(), n.op_type()) == r.end()) r.push_back(n.op_type());
  return r;
}

std::vector<std::string> onnxModelInputs(const std::string& path) {
  onnx::ModelProto m = parseModel(readAll(path), path);
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  std::vector<std::string> r;
  for (const auto& i : m.graph().input()) {
    if (inits.count(i.name())) continue;
    if (!i.type().has_tensor_type())
      throw Error(ErrorCode::Unsupported, "input '" + i.name() + "' is not a tensor (sequences, maps and optionals are not supported)", {path});
    r.push_back(i.name());
  }
  return r;
}

Program importOnnx(const std::string& path) { return importOnnxModel(path).program; }

}  // namespace ks
