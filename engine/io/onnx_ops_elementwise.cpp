// ONNX elementwise ops: arithmetic, comparisons, logic, activations, Cast, Where, Clip, variadic
// Max/Min/Sum/Mean. Results keep the dtype ONNX gives them (the builder's PyTorch promotion is
// undone where ONNX differs, e.g. Pow takes the base's dtype).
#include <cmath>

#include "engine/io/onnx_ops.h"

namespace ks::onnxops {
namespace {

using V = std::vector<OnnxValue>;

template <Value (*F)(Operand, Operand)>
V binaryOp(OnnxContext& c) {
  Value a = c.value(0), b = c.value(1);
  if (a.dtype() != b.dtype()) c.fail("operands have different dtypes", ErrorCode::DType);
  return one(F(a, b));
}
template <Value (*F)(Operand, Operand)>
V compareOp(OnnxContext& c) {
  return one(F(c.value(0), c.value(1)));
}
template <Value (*F)(Operand, Operand)>
V logicOp(OnnxContext& c) {
  return one(F(c.value(0), c.value(1)));
}

template <Value (*F)(Value)>
V unaryOp(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::cast(F(x), x.dtype()));
}

V pow(OnnxContext& c) {
  Value a = c.value(0), b = c.value(1);
  DType t = a.dtype();
  // Float base with int exponent: compute in the base's dtype; int base with float exponent:
  // compute in the float and cast back (ONNX's result has the base's dtype).
  if (isFloat(t) && !isFloat(b.dtype())) b = op::cast(b, t);
  return one(op::cast(op::pow(a, b), t));
}

V mod(OnnxContext& c) {
  Value a = c.value(0), b = c.value(1);
  if (c.node.attrInt("fmod", 0)) return one(op::fmod(a, b));
  if (isFloat(a.dtype())) c.fail("fmod=0 is not defined for floating-point inputs", ErrorCode::DType);
  return one(op::mod(a, b));
}

V neg(OnnxContext& c) { return one(op::neg(c.value(0))); }
V abs(OnnxContext& c) { return one(op::abs(c.value(0))); }
V sign(OnnxContext& c) { return one(op::sign(c.value(0))); }
V notOp(OnnxContext& c) { return one(op::logicalNot(c.value(0))); }
V identity(OnnxContext& c) { return {c.isConstant(0) ? OnnxValue::of(c.constant(0, "input")) : OnnxValue::of(c.value(0))}; }

V relu(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::maximum(x, scalarLike(x, 0)));
}
V leakyRelu(OnnxContext& c) {
  Value x = c.value(0);
  const double a = c.node.attrFloat("alpha", 0.01);
  return one(op::where(op::lt(x, scalarLike(x, 0)), op::mul(x, scalarLike(x, a)), x));
}
V prelu(OnnxContext& c) {
  Value x = c.value(0), s = c.value(1);
  // Opsets before 7 broadcast a 1-D slope of size C over the channel axis.
  if (c.node.opset < 7 && s.rank() == 1 && x.rank() > 2 && s.dim(0) == x.dim(1) && s.dim(0) != x.dim(-1)) {
    std::vector<int64_t> sh(x.rank() - 1, 1);
    sh[0] = s.dim(0);
    s = op::reshape(s, sh);
  }
  return one(op::cast(op::where(op::lt(x, scalarLike(x, 0)), op::mul(x, s), x), x.dtype()));
}
V thresholdedRelu(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::where(op::gt(x, scalarLike(x, c.node.attrFloat("alpha", 1.0))), x, scalarLike(x, 0)));
}
// alpha * (exp(x) - 1) for x < 0.
Value eluOf(Value x, double alpha) {
  Value e = op::mul(op::sub(op::exp(x), scalarLike(x, 1)), scalarLike(x, alpha));
  return op::where(op::lt(x, scalarLike(x, 0)), e, x);
}
V elu(OnnxContext& c) { return one(eluOf(c.value(0), c.node.attrFloat("alpha", 1.0))); }
V selu(OnnxContext& c) {
  Value x = c.value(0);
  const double a = c.node.attrFloat("alpha", 1.67326319217681884765625);
  const double g = c.node.attrFloat("gamma", 1.05070102214813232421875);
  Value neg = op::mul(op::sub(op::exp(x), scalarLike(x, 1)), scalarLike(x, a));
  return one(op::mul(op::where(op::le(x, scalarLike(x, 0)), neg, x), scalarLike(x, g)));
}
V celu(OnnxContext& c) {
  Value x = c.value(0);
  const double a = c.node.attrFloat("alpha", 1.0);
  Value e = op::mul(op::sub(op::exp(op::div(x, scalarLike(x, a))), scalarLike(x, 1)), scalarLike(x, a));
  return one(op::add(op::maximum(x, scalarLike(x, 0)), op::minimum(e, scalarLike(x, 0))));
}
V sigmoid(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::reciprocal(op::add(op::exp(op::neg(x)), scalarLike(x, 1))));
}
V hardSigmoid(OnnxContext& c) {
  Value x = c.value(0);
  const double a = c.node.attrFloat("alpha", 0.2), b = c.node.attrFloat("beta", 0.5);
  Value y = op::add(op::mul(x, scalarLike(x, a)), scalarLike(x, b));
  return one(op::maximum(op::minimum(y, scalarLike(x, 1)), scalarLike(x, 0)));
}
V hardSwish(OnnxContext& c) {
  Value x = c.value(0);
  Value y = op::add(op::mul(x, scalarLike(x, 1.0 / 6.0)), scalarLike(x, 0.5));
  return one(op::mul(x, op::maximum(op::minimum(y, scalarLike(x, 1)), scalarLike(x, 0))));
}
// log(1 + exp(x)) computed without overflow: max(x, 0) + log(1 + exp(-|x|)).
Value softplusOf(Value x) {
  Value t = op::log(op::add(op::exp(op::neg(op::abs(x))), scalarLike(x, 1)));
  return op::add(op::maximum(x, scalarLike(x, 0)), t);
}
V softplus(OnnxContext& c) { return one(softplusOf(c.value(0))); }
V softsign(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::div(x, op::add(op::abs(x), scalarLike(x, 1))));
}
V mish(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::mul(x, op::tanh(softplusOf(x))));
}
V gelu(OnnxContext& c) {
  Value x = c.value(0);
  const std::string approx = c.node.attrString("approximate", "none");
  if (approx == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value inner = op::mul(op::add(x, op::mul(op::mul(op::mul(x, x), x), scalarLike(x, 0.044715))),
                          scalarLike(x, std::sqrt(2.0 / M_PI)));
    return one(op::mul(op::mul(x, scalarLike(x, 0.5)), op::add(op::tanh(inner), scalarLike(x, 1))));
  }
  if (approx != "none") c.fail("approximate='" + approx + "' is not supported");
  Value e = op::erf(op::mul(x, scalarLike(x, M_SQRT1_2)));
  return one(op::mul(op::mul(x, scalarLike(x, 0.5)), op::add(e, scalarLike(x, 1))));
}
V shrink(OnnxContext& c) {
  Value x = c.value(0);
  const double l = c.node.attrFloat("lambd", 0.5), bias = c.node.attrFloat("bias", 0.0);
  Value lo = op::add(x, scalarLike(x, bias)), hi = op::sub(x, scalarLike(x, bias));
  return one(op::where(op::lt(x, scalarLike(x, -l)), lo, op::where(op::gt(x, scalarLike(x, l)), hi, scalarLike(x, 0))));
}
V sinh(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::mul(op::sub(op::exp(x), op::exp(op::neg(x))), scalarLike(x, 0.5)));
}
V cosh(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::mul(op::add(op::exp(x), op::exp(op::neg(x))), scalarLike(x, 0.5)));
}
V asinh(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::log(op::add(x, op::sqrt(op::add(op::mul(x, x), scalarLike(x, 1))))));
}
V acosh(OnnxContext& c) {
  Value x = c.value(0);
  return one(op::log(op::add(x, op::sqrt(op::sub(op::mul(x, x), scalarLike(x, 1))))));
}
V atanh(OnnxContext& c) {
  Value x = c.value(0);
  Value r = op::div(op::add(scalarLike(x, 1), x), op::sub(scalarLike(x, 1), x));
  return one(op::mul(op::log(r), scalarLike(x, 0.5)));
}
V isNan(OnnxContext& c) { return one(op::isnan(c.value(0))); }
V isInf(OnnxContext& c) {
  Value x = c.value(0);
  const bool pos = c.node.attrInt("detect_positive", 1), negv = c.node.attrInt("detect_negative", 1);
  Value p = op::eq(x, scalarLike(x, INFINITY)), n = op::eq(x, scalarLike(x, -INFINITY));
  if (pos && negv) return one(op::logicalOr(p, n));
  if (pos) return one(p);
  if (negv) return one(n);
  return one(op::logicalAnd(p, n));
}

V cast(OnnxContext& c) {
  auto t = onnxDTypeOf(c.node.attrInt("to", 0));
  if (!t) c.fail(std::string("cast to ") + onnxDTypeName(c.node.attrInt("to", 0)) + " is not supported");
  if (c.isConstant(0)) return one(c.constant(0, "input").castTo(*t));
  return one(op::cast(c.value(0), *t));
}
V castLike(OnnxContext& c) {
  const DType t = c.dtype(1);
  if (c.isConstant(0)) return one(c.constant(0, "input").castTo(t));
  return one(op::cast(c.value(0), t));
}

V where(OnnxContext& c) { return one(op::where(c.value(0), c.value(1), c.value(2))); }

V clip(OnnxContext& c) {
  Value x = c.value(0);
  Value r = x;
  if (c.node.opset < 11) {
    if (c.node.has("min")) r = op::maximum(r, scalarLike(x, c.node.attrFloat("min", 0)));
    if (c.node.has("max")) r = op::minimum(r, scalarLike(x, c.node.attrFloat("max", 0)));
    return one(r);
  }
  if (c.has(1)) r = op::maximum(r, op::cast(c.value(1), x.dtype()));
  if (c.has(2)) r = op::minimum(r, op::cast(c.value(2), x.dtype()));
  return one(op::cast(r, x.dtype()));
}

template <Value (*F)(Operand, Operand)>
V variadic(OnnxContext& c) {
  Value r = c.value(0);
  for (std::size_t i = 1; i < c.count(); ++i)
    if (c.has(i)) r = F(r, c.value(i));
  return one(r);
}
V mean(OnnxContext& c) {
  Value r = c.value(0);
  double n = 1;
  for (std::size_t i = 1; i < c.count(); ++i)
    if (c.has(i)) r = op::add(r, c.value(i)), n += 1;
  return one(op::cast(op::div(r, scalarLike(r, n)), r.dtype()));
}

}  // namespace

void addElementwise(Table& t) {
  t["Add"] = binaryOp<op::add>;
  t["Sub"] = binaryOp<op::sub>;
  t["Mul"] = binaryOp<op::mul>;
  t["Div"] = binaryOp<op::div>;
  t["Pow"] = pow;
  t["Mod"] = mod;
  t["Equal"] = compareOp<op::eq>;
  t["Less"] = compareOp<op::lt>;
  t["Greater"] = compareOp<op::gt>;
  t["LessOrEqual"] = compareOp<op::le>;
  t["GreaterOrEqual"] = compareOp<op::ge>;
  t["And"] = logicOp<op::logicalAnd>;
  t["Or"] = logicOp<op::logicalOr>;
  t["Xor"] = logicOp<op::logicalXor>;
  t["Not"] = notOp;
  t["Neg"] = neg;
  t["Abs"] = abs;
  t["Sign"] = sign;
  t["Exp"] = unaryOp<op::exp>;
  t["Log"] = unaryOp<op::log>;
  t["Sqrt"] = unaryOp<op::sqrt>;
  t["Reciprocal"] = unaryOp<op::reciprocal>;
  t["Sin"] = unaryOp<op::sin>;
  t["Cos"] = unaryOp<op::cos>;
  t["Tan"] = unaryOp<op::tan>;
  t["Tanh"] = unaryOp<op::tanh>;
  t["Erf"] = unaryOp<op::erf>;
  t["Floor"] = unaryOp<op::floor>;
  t["Ceil"] = unaryOp<op::ceil>;
  t["Round"] = unaryOp<op::round>;
  t["Identity"] = identity;
  t["Relu"] = relu;
  t["LeakyRelu"] = leakyRelu;
  t["PRelu"] = prelu;
  t["ThresholdedRelu"] = thresholdedRelu;
  t["Elu"] = elu;
  t["Selu"] = selu;
  t["Celu"] = celu;
  t["Sigmoid"] = sigmoid;
  t["HardSigmoid"] = hardSigmoid;
  t["HardSwish"] = hardSwish;
  t["Softplus"] = softplus;
  t["Softsign"] = softsign;
  t["Mish"] = mish;
  t["Gelu"] = gelu;
  t["Shrink"] = shrink;
  t["Sinh"] = sinh;
  t["Cosh"] = cosh;
  t["Asinh"] = asinh;
  t["Acosh"] = acosh;
  t["Atanh"] = atanh;
  t["IsNaN"] = isNan;
  t["IsInf"] = isInf;
  t["Cast"] = cast;
  t["CastLike"] = castLike;
  t["Where"] = where;
  t["Clip"] = clip;
  t["Max"] = variadic<op::maximum>;
  t["Min"] = variadic<op::minimum>;
  t["Sum"] = variadic<op::add>;
  t["Mean"] = mean;
}

}  // namespace ks::onnxops
