// ProgramBuilder and the tensor ops of the user-facing language. Broadcasting (NumPy rules),
// dtype promotion (PyTorch rules) and negative axes are resolved here; the graph below only sees
// primitives of equal shapes and dtypes. Composite ops (matmul, conv2d, softmax, ...) are lowered
// to primitives here too, in the forms later stages pattern-match (matmul = broadcast-multiply-
// reduce over the last axis, as zyx produces it).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/program/program.h"

namespace ks {

class ProgramBuilder;

// A tensor value under construction: an e-class of the builder's graph.
class Value {
 public:
  Value() = default;
  Value(ProgramBuilder* b, ClassId c) : b_(b), c_(c) {}
  ProgramBuilder* builder() const { return b_; }
  ClassId id() const { return c_; }
  bool valid() const { return b_ != nullptr; }
  const Shape& shape() const;
  DType dtype() const;
  int rank() const { return static_cast<int>(shape().size()); }
  int64_t dim(int64_t axis) const;  // negative axes allowed

 private:
  ProgramBuilder* b_ = nullptr;
  ClassId c_;
};

// An operand of an elementwise op: a tensor, or a Python-style scalar that promotes like one
// (a float scalar makes an int tensor f32; an int scalar does not widen an i8 tensor).
struct Operand {
  Operand(Value v) : value(v) {}
  Operand(double v) : isScalar(true), kind(DTypeKind::Float), f(v) {}
  Operand(float v) : Operand(static_cast<double>(v)) {}
  Operand(int v) : isScalar(true), kind(DTypeKind::Int), i(v) {}
  Operand(int64_t v) : isScalar(true), kind(DTypeKind::Int), i(v) {}
  Operand(bool v) : isScalar(true), kind(DTypeKind::Bool), i(v) {}
  Value value;
  bool isScalar = false;
  DTypeKind kind = DTypeKind::Float;
  double f = 0.0;
  int64_t i = 0;
  double asDouble() const { return kind == DTypeKind::Float ? f : static_cast<double>(i); }
};

class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string name = "program");

  Value input(const std::string& name, DType t, const Shape& s);
  Value param(const std::string& name, DType t, const Shape& s, ParamInit init);
  Value constant(const HostTensor& data, const std::string& name = "");  // a tensor constant
  Value scalar(double v, DType t);  // rank-0 constant
  void output(const std::string& name, Value v);
  // `params[param] <- v`: v broadcast to the param's shape and cast to its dtype; once per param.
  void update(std::size_t param, Value v, SourceLoc where = {});

  // Errors thrown while this is set carry it (the parser sets it per statement).
  void setLocation(SourceLoc where) { where_ = std::move(where); }
  const SourceLoc& location() const { return where_; }

  Program& program() { return program_; }
  Graph& graph() { return program_.graph; }
  Program finish();  // moves the program out; checks that outputs exist

  // Adds a primitive node (after validation by the graph), attaching the current location to errors.
  Value add(Node n);
  Value wrap(ClassId c) { return Value(this, c); }

  // The .ks op that created each class from `firstClass` on (the op registry notes it after a
  // call), so later errors can name the op a user wrote rather than a primitive.
  void noteOrigin(std::size_t firstClass, const std::string& op);
  std::string originOp(ClassId c) const { return c.v < origin_.size() ? origin_[c.v] : std::string(); }

 private:
  ClassId noted(ClassId c);  // records the current location as one of c's places
  Program program_;
  SourceLoc where_;
  std::vector<std::string> origin_;  // by class index; "" where unknown
};

// ---- ops (all throw ks::Error naming the op and the shapes/dtypes involved) ----
namespace op {

// dtype handling
Value cast(Value x, DType t);
Value toFloat(Value x);  // ints and bool to f32 (what PyTorch does for exp, mean, ...), floats unchanged

// unary
Value neg(Value x);
Value abs(Value x);
Value exp(Value x);
Value exp2(Value x);
Value log(Value x);
Value log2(Value x);
Value sqrt(Value x);
Value rsqrt(Value x);
Value reciprocal(Value x);
Value sin(Value x);
Value cos(Value x);
Value tan(Value x);
Value tanh(Value x);
Value sigmoid(Value x);
Value relu(Value x);
Value leakyRelu(Value x, double alpha = 0.01);
Value elu(Value x, double alpha = 1.0);
Value gelu(Value x, bool tanhApprox = false);
Value silu(Value x);
Value softplus(Value x, double beta = 1.0, double threshold = 20.0);
Value erf(Value x);
Value floor(Value x);
Value ceil(Value x);
Value round(Value x);  // half to even
Value sign(Value x);
Value square(Value x);
Value logicalNot(Value x);
Value isnan(Value x);

// binary (NumPy broadcasting, PyTorch promotion)
Value add(Operand a, Operand b);
Value sub(Operand a, Operand b);
Value mul(Operand a, Operand b);
Value div(Operand a, Operand b);  // true division for floats; ints truncate toward zero
Value pow(Operand a, Operand b);
Value mod(Operand a, Operand b);  // sign of the divisor
Value fmod(Operand a, Operand b);  // sign of the dividend
Value maximum(Operand a, Operand b);
Value minimum(Operand a, Operand b);
Value lt(Operand a, Operand b);
Value le(Operand a, Operand b);
Value gt(Operand a, Operand b);
Value ge(Operand a, Operand b);
Value eq(Operand a, Operand b);
Value ne(Operand a, Operand b);
Value logicalAnd(Operand a, Operand b);
Value logicalOr(Operand a, Operand b);
Value logicalXor(Operand a, Operand b);
Value where(Operand cond, Operand a, Operand b);
Value clamp(Value x, std::optional<double> lo, std::optional<double> hi);

// reductions (axes may be negative; empty = all axes)
Value sum(Value x, std::vector<int64_t> axes = {}, bool keepdim = false);
Value mean(Value x, std::vector<int64_t> axes = {}, bool keepdim = false);
Value max(Value x, std::vector<int64_t> axes = {}, bool keepdim = false);
Value min(Value x, std::vector<int64_t> axes = {}, bool keepdim = false);
Value prod(Value x, std::vector<int64_t> axes = {}, bool keepdim = false);
Value var(Value x, std::vector<int64_t> axes = {}, double correction = 1.0, bool keepdim = false);
Value std(Value x, std::vector<int64_t> axes = {}, double correction = 1.0, bool keepdim = false);
Value argmax(Value x, int64_t axis, bool keepdim = false);  // i64; first index of the maximum
Value argmin(Value x, int64_t axis, bool keepdim = false);
Value cumsum(Value x, int64_t axis);

// movement
Value reshape(Value x, std::vector<int64_t> shape);  // one -1 allowed
Value permute(Value x, std::vector<int64_t> axes);
Value transpose(Value x, int64_t a = -2, int64_t b = -1);
Value expand(Value x, std::vector<int64_t> shape);  // NumPy broadcast_to; -1 keeps a dim
// `shape` is taken by value: a caller's x.shape() refers into the graph, which adding nodes moves.
Value broadcastTo(Value x, Shape shape);
// pads: (before, after) per axis starting at axis 0 (shorter lists pad leading axes only);
// negative pads crop.
Value pad(Value x, std::vector<std::pair<int64_t, int64_t>> pads, double value = 0.0);
Value slice(Value x, int64_t axis, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step = 1);
Value narrow(Value x, int64_t axis, int64_t start, int64_t len);
Value flip(Value x, std::vector<int64_t> axes);
Value concat(const std::vector<Value>& xs, int64_t axis = 0);
Value stack(const std::vector<Value>& xs, int64_t axis = 0);
std::vector<Value> split(Value x, std::vector<int64_t> sizes, int64_t axis = 0);
std::vector<Value> chunk(Value x, int64_t chunks, int64_t axis = 0);
Value squeeze(Value x, std::vector<int64_t> axes = {});
Value unsqueeze(Value x, int64_t axis);
Value flatten(Value x, int64_t startAxis = 0, int64_t endAxis = -1);
Value repeat(Value x, std::vector<int64_t> repeats);
Value contiguous(Value x);

// composites lowered to primitives
Value matmul(Value a, Value b);  // 1-D, 2-D and batched (broadcast) forms
Value linear(Value x, Value w, std::optional<Value> b = std::nullopt);  // x @ w (+ b), w is [in, out]
Value conv2d(Value x, Value w, std::optional<Value> b = std::nullopt, std::vector<int64_t> stride = {1, 1},
             std::vector<int64_t> padding = {0, 0}, std::vector<int64_t> dilation = {1, 1}, int64_t groups = 1);
Value maxPool2d(Value x, std::vector<int64_t> kernel, std::vector<int64_t> stride = {},
                std::vector<int64_t> padding = {0, 0}, std::vector<int64_t> dilation = {1, 1});
Value avgPool2d(Value x, std::vector<int64_t> kernel, std::vector<int64_t> stride = {},
                std::vector<int64_t> padding = {0, 0}, bool countIncludePad = true);
Value softmax(Value x, int64_t axis = -1);
Value logSoftmax(Value x, int64_t axis = -1);
Value layerNorm(Value x, std::optional<Value> weight, std::optional<Value> bias, int64_t normalizedDims = 1,
                double eps = 1e-5);
Value rmsNorm(Value x, std::optional<Value> weight, int64_t normalizedDims = 1, double eps = 1e-6);
Value batchNorm(Value x, Value mean, Value var, std::optional<Value> weight, std::optional<Value> bias,
                double eps = 1e-5);  // inference; channel axis 1
Value scaledDotProductAttention(Value q, Value k, Value v, bool causal = false,
                                std::optional<double> scale = std::nullopt);
Value embedding(Value indices, Value table);  // gather rows of table
Value oneHot(Value indices, int64_t numClasses);  // i64 result, new last axis
Value crossEntropy(Value logits, Value target);  // target: class indices; mean over the batch
Value mse(Value a, Value b);                     // mean squared error

}  // namespace op
}  // namespace ks
