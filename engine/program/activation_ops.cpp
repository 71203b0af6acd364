// Activation functions lowered to primitives (ints and bool promote to f32; f16 computes in f32).
#include <cmath>

#include "engine/program/prim_ops.h"

namespace ks::op {

namespace {
// The float dtype of the result and x cast to the dtype the arithmetic runs in.
struct FloatIn {
  DType result;
  Value x;
};
FloatIn floatIn(Value x) {
  const DType t = isFloat(x.dtype()) ? x.dtype() : DType::F32;
  return {t, cast(x, prim::computeType(t))};
}
}  // namespace

// sigmoid = 1 / (1 + exp(-x)); exp overflow gives 1 / inf = 0, as it should.
Value sigmoid(Value x) {
  auto [t, xf] = floatIn(x);
  return cast(reciprocal(add(exp(neg(xf)), 1.0)), t);
}

// relu = max(x, 0) with NaN propagating (torch.relu(nan) = nan); ints keep their dtype.
Value relu(Value x) {
  if (x.dtype() == DType::Bool) return x;
  if (x.dtype() == DType::F16) return cast(maximum(cast(x, DType::F32), 0.0), DType::F16);
  return isFloat(x.dtype()) ? maximum(x, 0.0) : maximum(x, 0);
}

// leaky_relu = x > 0 ? x : alpha * x (NaN fails the test and stays NaN through the product).
Value leakyRelu(Value x, double alpha) {
  auto [t, xf] = floatIn(x);
  return cast(where(gt(xf, 0.0), xf, mul(xf, alpha)), t);
}

// elu = x > 0 ? x : alpha * (exp(x) - 1).
Value elu(Value x, double alpha) {
  auto [t, xf] = floatIn(x);
  return cast(where(gt(xf, 0.0), xf, mul(sub(exp(xf), 1.0), alpha)), t);
}

// gelu (erf form) = 0.5 x (1 + erf(x / sqrt 2));
// gelu (tanh form) = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
Value gelu(Value x, bool tanhApprox) {
  auto [t, xf] = floatIn(x);
  Value inner;
  if (tanhApprox) {
    const double k = std::sqrt(2.0 / M_PI);
    inner = tanh(mul(add(xf, mul(mul(mul(xf, xf), xf), 0.044715)), k));
  } else {
    inner = erf(mul(xf, 1.0 / std::sqrt(2.0)));
  }
  return cast(mul(mul(xf, 0.5), add(inner, 1.0)), t);
}

// silu = x * sigmoid(x).
Value silu(Value x) {
  auto [t, xf] = floatIn(x);
  return cast(mul(xf, sigmoid(xf)), t);
}

// softplus = beta * x > threshold ? x : log(1 + exp(beta * x)) / beta (PyTorch's linear region).
Value softplus(Value x, double beta, double threshold) {
  auto [t, xf] = floatIn(x);
  Value bx = mul(xf, beta);
  return cast(where(gt(bx, threshold), xf, div(log(add(exp(bx), 1.0)), beta)), t);
}

}  // namespace ks::op
