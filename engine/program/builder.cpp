// ProgramBuilder, Value, and the primitive-level ops: promotion, broadcasting, axes.
#include "engine/program/builder.h"
#include "engine/program/prim_ops.h"

#include <algorithm>
#include <cmath>

namespace ks {

// ---------------------------------------------------------------- Value / builder
const Shape& Value::shape() const { return b_->graph().shape(c_); }
DType Value::dtype() const { return b_->graph().dtype(c_); }
int64_t Value::dim(int64_t axis) const { return shape()[normalizeAxis(axis, rank(), "dim")]; }

ProgramBuilder::ProgramBuilder(std::string name) { program_.name = std::move(name); }

namespace {
void checkNewName(const Program& p, const std::string& name, const SourceLoc& where) {
  auto clash = [&](const std::string& n) { return n == name; };
  if (std::any_of(p.inputs.begin(), p.inputs.end(), [&](auto& i) { return clash(i.name); }) ||
      std::any_of(p.params.begin(), p.params.end(), [&](auto& i) { return clash(i.name); }))
    throw Error(ErrorCode::Usage, "name '" + name + "' is already declared", where);
  if (name.empty()) throw Error(ErrorCode::Usage, "empty name", where);
}
void checkShape(const Shape& s, const std::string& name, const SourceLoc& where) {
  for (Dim d : s)
    if (d < 0) throw Error(ErrorCode::Shape, "negative dimension in shape " + shapeStr(s) + " of '" + name + "'", where);
}
}  // namespace

Value ProgramBuilder::input(const std::string& name, DType t, const Shape& s) {
  checkNewName(program_, name, where_);
  checkShape(s, name, where_);
  const ClassId c = noted(graph().addLeaf({name, LeafKind::Input, t, s, nullptr}));
  program_.inputs.push_back({name, c, static_cast<uint32_t>(graph().leaves().size() - 1)});
  return Value(this, c);
}

Value ProgramBuilder::param(const std::string& name, DType t, const Shape& s, ParamInit init) {
  checkNewName(program_, name, where_);
  checkShape(s, name, where_);
  if (init.kind == ParamInit::Kind::Data && (!init.data || init.data->shape() != s))
    throw Error(ErrorCode::Shape, "data for parameter '" + name + "' does not have shape " + shapeStr(s), where_);
  const ClassId c = noted(graph().addLeaf({name, LeafKind::Param, t, s, nullptr}));
  program_.params.push_back({name, c, static_cast<uint32_t>(graph().leaves().size() - 1), std::move(init)});
  return Value(this, c);
}

Value ProgramBuilder::constant(const HostTensor& data, const std::string& name) {
  if (data.shape().empty()) {  // rank-0 data is a scalar constant
    return scalar(isFloat(data.dtype()) ? data.getDouble(0) : static_cast<double>(data.getInt(0)), data.dtype());
  }
  const std::string n = name.empty() ? "const" + std::to_string(graph().leaves().size()) : name;
  return Value(this, noted(graph().addLeaf({n, LeafKind::Constant, data.dtype(), data.shape(),
                                            std::make_shared<HostTensor>(data)})));
}

Value ProgramBuilder::scalar(double v, DType t) { return Value(this, noted(graph().addConst(Scalar::of(t, v)))); }

ClassId ProgramBuilder::noted(ClassId c) {
  program_.places.note(c, where_);
  return c;
}

void ProgramBuilder::output(const std::string& name, Value v) {
  for (auto& o : program_.outputs)
    if (o.name == name) throw Error(ErrorCode::Usage, "output '" + name + "' is declared twice", where_);
  program_.outputs.push_back({name, v.id()});
}

void ProgramBuilder::update(std::size_t param, Value v, SourceLoc where) {
  const ProgramParam& p = program_.params.at(param);
  for (const ProgramUpdate& u : program_.updates)
    if (u.param == param) throw Error(ErrorCode::Usage, "param '" + p.name + "' is updated twice", where_);
  const Shape shape = graph().shape(p.cls);
  const DType t = graph().dtype(p.cls);
  Value nv = op::cast(v, t);
  if (nv.shape() != shape) {
    try {
      nv = op::broadcastTo(nv, shape);
    } catch (const Error&) {
      throw Error(ErrorCode::Shape,
                  "the new value of '" + p.name + "' has shape " + shapeStr(v.shape()) + "; the param is " +
                      std::string(dtypeName(t)) + shapeStr(shape),
                  where_);
    }
  }
  program_.updates.push_back({param, nv.id(), std::move(where)});
}

Program ProgramBuilder::finish() {
  if (program_.outputs.empty()) throw Error(ErrorCode::Usage, "the program declares no output", where_);
  return std::move(program_);
}

void ProgramBuilder::noteOrigin(std::size_t firstClass, const std::string& op) {
  const std::size_t n = graph().classCount();
  if (origin_.size() < n) origin_.resize(n);
  for (std::size_t c = firstClass; c < n; ++c)
    if (origin_[c].empty()) origin_[c] = op;
}

Value ProgramBuilder::add(Node n) {
  try {
    return Value(this, noted(graph().add(std::move(n))));
  } catch (const Error& e) {
    throw e.at(where_);
  }
}

namespace op {
namespace {

ProgramBuilder* builderOf(std::initializer_list<const Operand*> ops, const char* name) {
  for (const Operand* o : ops)
    if (!o->isScalar) return o->value.builder();
  throw Error(ErrorCode::Usage, "needs at least one tensor operand", {}, name);
}

[[noreturn]] void fail(ProgramBuilder* b, ErrorCode code, const char* name, const std::string& msg) {
  throw Error(code, msg, b ? b->location() : SourceLoc{}, name);
}

using prim::make;

// Unary float functions promote ints and bool to f32 (PyTorch), and compute f16 in f32.
Value floatUnary(Value x, UnaryOp u) {
  x = toFloat(x);
  if (x.dtype() == DType::F16) return cast(prim::unary(cast(x, DType::F32), u), DType::F16);
  return prim::unary(x, u);
}

PromotionOperand promo(const Operand& o) {
  using P = PromotionOperand::Priority;
  if (o.isScalar) return {defaultDType(o.kind), P::Scalar};
  return {o.value.dtype(), o.value.rank() == 0 ? P::ZeroDim : P::Tensor};
}

// Turns the operands into tensors of dtype t with one broadcast shape. Scalars become rank-0
// constants (the graph broadcasts those implicitly); tensors are cast and expanded.
std::vector<Value> prepare(ProgramBuilder* b, std::vector<Operand> ops, DType t, const char* name) {
  Shape shape;
  for (auto& o : ops)
    if (!o.isScalar) shape = broadcastShapes(shape, o.value.shape(), name);
  std::vector<Value> r;
  for (auto& o : ops) {
    if (o.isScalar) {
      r.push_back(o.kind == DTypeKind::Float ? b->scalar(o.f, t)
                                             : b->wrap(b->graph().addConst(Scalar::ofInt(t, o.i))));
      continue;
    }
    Value v = cast(o.value, t);
    if (b->graph().isConst(v.id())) {  // a rank-0 constant broadcasts implicitly
      r.push_back(v);
      continue;
    }
    r.push_back(broadcastTo(v, shape));
  }
  return r;
}


// Promotes, broadcasts and applies a binary primitive. computeF16InF32: f16 operands are widened
// and the result rounded back (every arithmetic op; comparisons need no rounding).
Value binary(BinaryOp bop, Operand a, Operand b, const char* name, std::optional<DType> forced = std::nullopt) {
  ProgramBuilder* B = builderOf({&a, &b}, name);
  PromotionOperand ps[2] = {promo(a), promo(b)};
  const DType t = forced ? *forced : resultType(ps, 2);
  if (t == DType::F16 && !isComparison(bop)) {
    auto v = prepare(B, {a, b}, DType::F32, name);
    return cast(prim::binary(bop, v[0], v[1]), DType::F16);
  }
  auto v = prepare(B, {a, b}, t, name);
  return prim::binary(bop, v[0], v[1]);
}


Value keepDims(Value reduced, const Shape& inShape, const std::vector<int>& axes) {
  Shape s = inShape;
  for (int a : axes) s[a] = 1;
  return reshape(reduced, std::vector<int64_t>(s.begin(), s.end()));
}

Value reduce(Value x, ReduceOp r, std::vector<int64_t> axesIn, bool keepdim, const char* name, DType accum) {
  const std::vector<int> axes = normalizeAxes(axesIn, x.rank(), name);
  for (int a : axes)
    if (x.shape()[a] == 0 && (r == ReduceOp::Max || r == ReduceOp::Min))
      fail(x.builder(), ErrorCode::Shape, name, "reduction of an empty dimension has no identity");
  const DType outT = accum;
  Value in = cast(x, accum == DType::F16 ? DType::F32 : accum);
  Value out = cast(prim::reduce(in, r, axes), outT);
  return keepdim ? keepDims(out, x.shape(), axes) : out;
}

}  // namespace

// ---------------------------------------------------------------- dtype
Value cast(Value x, DType t) {
  if (x.dtype() == t) return x;
  Node n = make(NodeKind::Cast, {x.id()});
  n.dtype = t;
  return x.builder()->add(std::move(n));
}
Value toFloat(Value x) { return isFloat(x.dtype()) ? x : cast(x, DType::F32); }

// ---------------------------------------------------------------- unary
Value neg(Value x) {
  if (x.dtype() == DType::Bool) fail(x.builder(), ErrorCode::DType, "neg", "negation of a bool tensor (use logical_not)");
  return prim::unary(x, UnaryOp::Neg);
}
Value abs(Value x) { return x.dtype() == DType::Bool ? x : prim::unary(x, UnaryOp::Abs); }
Value exp(Value x) { return floatUnary(x, UnaryOp::Exp); }
Value exp2(Value x) { return floatUnary(x, UnaryOp::Exp2); }
Value log(Value x) { return floatUnary(x, UnaryOp::Log); }
Value log2(Value x) { return floatUnary(x, UnaryOp::Log2); }
Value sqrt(Value x) { return floatUnary(x, UnaryOp::Sqrt); }
Value rsqrt(Value x) { return floatUnary(x, UnaryOp::Rsqrt); }
Value reciprocal(Value x) { return floatUnary(x, UnaryOp::Reciprocal); }
Value sin(Value x) { return floatUnary(x, UnaryOp::Sin); }
Value cos(Value x) { return floatUnary(x, UnaryOp::Cos); }
Value tan(Value x) { return floatUnary(x, UnaryOp::Tan); }
Value tanh(Value x) { return floatUnary(x, UnaryOp::Tanh); }
Value erf(Value x) { return floatUnary(x, UnaryOp::Erf); }
Value floor(Value x) { return isFloat(x.dtype()) ? floatUnary(x, UnaryOp::Floor) : x; }
Value ceil(Value x) { return isFloat(x.dtype()) ? floatUnary(x, UnaryOp::Ceil) : x; }
Value round(Value x) { return isFloat(x.dtype()) ? floatUnary(x, UnaryOp::Round) : x; }
Value sign(Value x) { return x.dtype() == DType::Bool ? x : prim::unary(x, UnaryOp::Sign); }
Value square(Value x) {
  // torch.square is pow(x, 2): an int scalar exponent makes a bool tensor i64.
  if (x.dtype() == DType::Bool) x = cast(x, DType::I64);
  return mul(x, x);
}
Value logicalNot(Value x) { return prim::unary(cast(x, DType::Bool), UnaryOp::Not); }
Value isnan(Value x) {
  if (!isFloat(x.dtype())) return ne(x, x);  // ints and bool are never NaN: all false
  return prim::unary(x, UnaryOp::IsNan);
}

// ---------------------------------------------------------------- binary
Value add(Operand a, Operand b) { return binary(BinaryOp::Add, a, b, "add"); }
Value sub(Operand a, Operand b) { return binary(BinaryOp::Sub, a, b, "sub"); }
Value mul(Operand a, Operand b) { return binary(BinaryOp::Mul, a, b, "mul"); }
Value div(Operand a, Operand b) { return binary(BinaryOp::Div, a, b, "div"); }
Value pow(Operand a, Operand b) { return binary(BinaryOp::Pow, a, b, "pow"); }
Value mod(Operand a, Operand b) { return binary(BinaryOp::Mod, a, b, "mod"); }
Value fmod(Operand a, Operand b) {
  // fmod = a - trunc(a / b) * b, with the dividend's sign; for ints truncated division gives it.
  ProgramBuilder* B = builderOf({&a, &b}, "fmod");
  PromotionOperand ps[2] = {promo(a), promo(b)};
  const DType t = resultType(ps, 2);
  auto v = prepare(B, {a, b}, t == DType::F16 ? DType::F32 : t, "fmod");
  Value q = prim::binary(BinaryOp::Div, v[0], v[1]);
  if (isFloat(q.dtype())) q = prim::unary(q, UnaryOp::Trunc);
  Value r = prim::binary(BinaryOp::Sub, v[0], prim::binary(BinaryOp::Mul, q, v[1]));
  return cast(r, t);
}
Value maximum(Operand a, Operand b) { return binary(BinaryOp::Max, a, b, "maximum"); }
Value minimum(Operand a, Operand b) { return binary(BinaryOp::Min, a, b, "minimum"); }
Value lt(Operand a, Operand b) { return binary(BinaryOp::CmpLt, a, b, "lt"); }
Value le(Operand a, Operand b) { return binary(BinaryOp::CmpLe, a, b, "le"); }
Value gt(Operand a, Operand b) { return binary(BinaryOp::CmpGt, a, b, "gt"); }
Value ge(Operand a, Operand b) { return binary(BinaryOp::CmpGe, a, b, "ge"); }
Value eq(Operand a, Operand b) { return binary(BinaryOp::CmpEq, a, b, "eq"); }
Value ne(Operand a, Operand b) { return binary(BinaryOp::CmpNe, a, b, "ne"); }
Value logicalAnd(Operand a, Operand b) { return binary(BinaryOp::And, a, b, "logical_and", DType::Bool); }
Value logicalOr(Operand a, Operand b) { return binary(BinaryOp::Or, a, b, "logical_or", DType::Bool); }
Value logicalXor(Operand a, Operand b) { return binary(BinaryOp::Xor, a, b, "logical_xor", DType::Bool); }

Value where(Operand cond, Operand a, Operand b) {
  ProgramBuilder* B = builderOf({&cond, &a, &b}, "where");
  PromotionOperand ps[2] = {promo(a), promo(b)};
  const DType t = resultType(ps, 2);
  if (cond.isScalar) cond = Operand(B->scalar(cond.asDouble() != 0.0, DType::Bool));
  Shape shape;
  for (auto* o : {&cond, &a, &b})
    if (!o->isScalar) shape = broadcastShapes(shape, o->value.shape(), "where");
  Value c = cast(cond.value, DType::Bool);
  if (!B->graph().isConst(c.id())) c = broadcastTo(c, shape);
  auto v = prepare(B, {a, b}, t, "where");
  for (auto& x : v)
    if (!B->graph().isConst(x.id())) x = broadcastTo(x, shape);
  if (B->graph().isConst(c.id()) && B->graph().isConst(v[0].id()) && B->graph().isConst(v[1].id()))
    fail(B, ErrorCode::Usage, "where", "needs at least one tensor operand");
  return B->add(make(NodeKind::Where, {c.id(), v[0].id(), v[1].id()}));
}

Value clamp(Value x, std::optional<double> lo, std::optional<double> hi) {
  // An integral bound of an int tensor is an int scalar (keeps the dtype, as torch.clamp(x, -2, 3)).
  auto bound = [&](double v) {
    if (!isFloat(x.dtype()) && std::trunc(v) == v) return Operand(static_cast<int64_t>(v));
    return Operand(v);
  };
  if (lo) x = maximum(x, bound(*lo));
  if (hi) x = minimum(x, bound(*hi));
  return x;
}

// ---------------------------------------------------------------- reductions
Value sum(Value x, std::vector<int64_t> axes, bool keepdim) {
  return reduce(x, ReduceOp::Sum, std::move(axes), keepdim, "sum", sumResultType(x.dtype()));
}
Value prod(Value x, std::vector<int64_t> axes, bool keepdim) {
  return reduce(x, ReduceOp::Prod, std::move(axes), keepdim, "prod", sumResultType(x.dtype()));
}
Value max(Value x, std::vector<int64_t> axes, bool keepdim) {
  return reduce(x, ReduceOp::Max, std::move(axes), keepdim, "max", x.dtype());
}
Value min(Value x, std::vector<int64_t> axes, bool keepdim) {
  return reduce(x, ReduceOp::Min, std::move(axes), keepdim, "min", x.dtype());
}
Value mean(Value x, std::vector<int64_t> axes, bool keepdim) {
  const std::vector<int> ax = normalizeAxes(axes, x.rank(), "mean");
  int64_t count = 1;
  for (int a : ax) count *= x.shape()[a];
  Value xf = toFloat(x);
  const DType t = xf.dtype();
  Value s = reduce(cast(xf, t == DType::F16 ? DType::F32 : t), ReduceOp::Sum, axes, keepdim, "mean",
                   t == DType::F16 ? DType::F32 : t);
  return cast(div(s, Operand(static_cast<double>(count))), t);
}

// ---------------------------------------------------------------- movement
Value reshape(Value x, std::vector<int64_t> shape) {
  int infer = -1;
  int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) fail(x.builder(), ErrorCode::Shape, "reshape", "more than one -1 in " + shapeStr(shape));
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      fail(x.builder(), ErrorCode::Shape, "reshape", "negative dimension in " + shapeStr(shape));
    } else {
      known *= shape[i];
    }
  }
  const int64_t n = numel(x.shape());
  if (infer >= 0) {
    if (known == 0 || n % known != 0)
      fail(x.builder(), ErrorCode::Shape, "reshape",
           "cannot reshape " + shapeStr(x.shape()) + " to " + shapeStr(shape) + ": " + std::to_string(n) +
               " elements do not divide into " + std::to_string(known));
    shape[infer] = n / known;
  }
  if (shape == x.shape()) return x;
  return x.builder()->add(make(NodeKind::Reshape, {x.id()}, shape));
}

Value permute(Value x, std::vector<int64_t> axes) {
  if (static_cast<int>(axes.size()) != x.rank())
    fail(x.builder(), ErrorCode::Axis, "permute",
         "got " + std::to_string(axes.size()) + " axes for a tensor of rank " + std::to_string(x.rank()));
  std::vector<int64_t> norm;
  bool identity = true;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    norm.push_back(normalizeAxis(axes[i], x.rank(), "permute"));
    identity = identity && norm.back() == static_cast<int64_t>(i);
  }
  if (identity) {
    std::vector<int64_t> sorted = norm;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) return x;
  }
  return x.builder()->add(make(NodeKind::Permute, {x.id()}, norm));
}

Value transpose(Value x, int64_t a, int64_t b) {
  if (x.rank() < 2) return x;
  std::vector<int64_t> axes(x.rank());
  for (int i = 0; i < x.rank(); ++i) axes[i] = i;
  std::swap(axes[normalizeAxis(a, x.rank(), "transpose")], axes[normalizeAxis(b, x.rank(), "transpose")]);
  return permute(x, axes);
}

Value broadcastTo(Value x, Shape shape) {
  if (x.shape() == shape) return x;
  if (x.rank() > static_cast<int>(shape.size()))
    fail(x.builder(), ErrorCode::Shape, "expand", "cannot broadcast " + shapeStr(x.shape()) + " to " + shapeStr(shape));
  Shape padded(shape.size() - x.rank(), 1);
  padded.insert(padded.end(), x.shape().begin(), x.shape().end());
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (padded[i] != shape[i] && padded[i] != 1)
      fail(x.builder(), ErrorCode::Shape, "expand",
           "cannot broadcast " + shapeStr(x.shape()) + " to " + shapeStr(shape) + " (dimension " + std::to_string(i) + ")");
  Value r = reshape(x, std::vector<int64_t>(padded.begin(), padded.end()));
  if (padded == shape) return r;
  return x.builder()->add(make(NodeKind::Expand, {r.id()}, std::vector<int64_t>(shape.begin(), shape.end())));
}

Value expand(Value x, std::vector<int64_t> shape) {
  const int off = static_cast<int>(shape.size()) - x.rank();
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == -1) {
      if (static_cast<int>(i) < off) fail(x.builder(), ErrorCode::Shape, "expand", "-1 for a new leading dimension");
      shape[i] = x.shape()[i - off];
    }
  return broadcastTo(x, Shape(shape.begin(), shape.end()));
}

Value pad(Value x, std::vector<std::pair<int64_t, int64_t>> pads, double value) {
  if (static_cast<int>(pads.size()) > x.rank())
    fail(x.builder(), ErrorCode::Shape, "pad",
         std::to_string(pads.size()) + " pad pairs for a tensor of rank " + std::to_string(x.rank()));
  Value r = x;
  for (std::size_t axis = 0; axis < pads.size(); ++axis) {
    auto [lp, rp] = pads[axis];
    if (lp == 0 && rp == 0) continue;
    Node n = make(NodeKind::Pad, {r.id()}, {static_cast<int64_t>(axis), lp, rp});
    n.value = Scalar::of(x.dtype(), value);
    r = x.builder()->add(std::move(n));
  }
  return r;
}

Value narrow(Value x, int64_t axis, int64_t start, int64_t len) {
  const int a = normalizeAxis(axis, x.rank(), "narrow");
  if (start == 0 && len == x.shape()[a]) return x;
  return x.builder()->add(make(NodeKind::Narrow, {x.id()}, {a, start, len}));
}

Value flip(Value x, std::vector<int64_t> axes) {
  const std::vector<int> ax = normalizeAxes(axes, x.rank(), "flip", false);
  std::vector<int64_t> attr;
  for (int a : ax)
    if (x.shape()[a] > 1) attr.push_back(a);
  if (attr.empty()) return x;
  return x.builder()->add(make(NodeKind::Flip, {x.id()}, attr));
}

Value squeeze(Value x, std::vector<int64_t> axes) {
  std::vector<int64_t> s;
  if (axes.empty()) {
    for (Dim d : x.shape())
      if (d != 1) s.push_back(d);
  } else {
    const std::vector<int> ax = normalizeAxes(axes, x.rank(), "squeeze", false);
    for (int i = 0; i < x.rank(); ++i) {
      const bool drop = std::find(ax.begin(), ax.end(), i) != ax.end();
      if (drop && x.shape()[i] != 1)
        fail(x.builder(), ErrorCode::Shape, "squeeze",
             "axis " + std::to_string(i) + " of " + shapeStr(x.shape()) + " has size " + std::to_string(x.shape()[i]) + ", not 1");
      if (!drop) s.push_back(x.shape()[i]);
    }
  }
  return reshape(x, s);
}

Value unsqueeze(Value x, int64_t axis) {
  const int a = normalizeAxis(axis, x.rank() + 1, "unsqueeze");
  std::vector<int64_t> s(x.shape().begin(), x.shape().end());
  s.insert(s.begin() + a, 1);
  return reshape(x, s);
}

Value flatten(Value x, int64_t startAxis, int64_t endAxis) {
  if (x.rank() == 0) return reshape(x, {1});
  const int s = normalizeAxis(startAxis, x.rank(), "flatten"), e = normalizeAxis(endAxis, x.rank(), "flatten");
  if (s > e) fail(x.builder(), ErrorCode::Axis, "flatten", "start axis after end axis");
  std::vector<int64_t> shape;
  for (int i = 0; i < s; ++i) shape.push_back(x.shape()[i]);
  int64_t n = 1;
  for (int i = s; i <= e; ++i) n *= x.shape()[i];
  shape.push_back(n);
  for (int i = e + 1; i < x.rank(); ++i) shape.push_back(x.shape()[i]);
  return reshape(x, shape);
}

Value contiguous(Value x) { return x.builder()->add(make(NodeKind::Contiguous, {x.id()})); }

}  // namespace op
}  // namespace ks
