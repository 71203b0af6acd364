// Internal to the ONNX lowering files: the op tables each file fills and the helpers they share.
#pragma once
#include <map>
#include <string>

#include "engine/io/onnx_node.h"

namespace ks::onnxops {

using Table = std::map<std::string, OnnxLowering>;
void addElementwise(Table& t);  // onnx_ops_elementwise.cpp
void addTensor(Table& t);       // onnx_ops_tensor.cpp: shapes, movement, gathers, constants
void addNn(Table& t);           // onnx_ops_nn.cpp: matmul, conv, pools, norms, reductions, losses
void addResize(Table& t);       // onnx_ops_resize.cpp: Resize, Upsample
void addExtra(Table& t);        // onnx_ops_extra.cpp: inverse trig, quantization, scatters, TopK

inline std::vector<OnnxValue> one(Value v) { return {OnnxValue::of(v)}; }
inline std::vector<OnnxValue> one(HostTensor t) { return {OnnxValue::of(std::move(t))}; }

// A rank-0 constant of x's dtype (keeps x's dtype through promotion).
Value scalarLike(Value x, double v);
// The lowest value of a dtype (-inf for floats): the identity of max.
double lowestOf(DType t);
// Shape as int64 values.
std::vector<int64_t> dims(const Shape& s);
// x sliced along axis with a positive step: elements start, start+step, ... (count of them).
Value stepSlice(Value x, int64_t axis, int64_t start, int64_t count, int64_t step);
// i64 tensor [0, 1, ..., n-1] reshaped so that it lies along `axis` of a rank-`rank` tensor.
Value arangeAlong(ProgramBuilder& b, int64_t n, int axis, int rank, DType t = DType::I64);
// Selects along `axis` with an index tensor (negative indices wrap), NumPy take semantics.
Value gatherAxis(Value data, Value indices, int axis);
// Concatenation along an axis.
Value concatAxis(const std::vector<Value>& xs, int axis);
// Normalizes an ONNX axis against a rank (throws naming the node).
int axisOf(const OnnxContext& c, int64_t axis, int rank);

}  // namespace ks::onnxops
