// The scalar semantics of every unary and binary op, in one place: the host executor applies them
// element by element and the kernel IR interpreter value by value, so the two cannot drift apart.
// The rules are stated in host_executor.h; tests/data/op_cases.json (values PyTorch computed)
// checks them independently of this code.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "engine/core/dtype.h"
#include "engine/core/scalar.h"
#include "engine/graph/ops.h"

namespace ks {

// A float op computed in T (float for f32 and f16, double for f64); comparisons, logic and IsNan
// give 0 or 1. Rounding to a storage dtype (f16) is the caller's.
template <class T>
inline T floatUnary(UnaryOp u, T x) {
  switch (u) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Abs: return std::fabs(x);
    case UnaryOp::Exp: return std::exp(x);
    case UnaryOp::Exp2: return std::exp2(x);
    case UnaryOp::Log: return std::log(x);
    case UnaryOp::Log2: return std::log2(x);
    case UnaryOp::Sqrt: return std::sqrt(x);
    case UnaryOp::Rsqrt: return T(1) / std::sqrt(x);
    case UnaryOp::Reciprocal: return T(1) / x;
    case UnaryOp::Sin: return std::sin(x);
    case UnaryOp::Cos: return std::cos(x);
    case UnaryOp::Tan: return std::tan(x);
    case UnaryOp::Tanh: return std::tanh(x);
    case UnaryOp::Erf: return std::erf(x);
    case UnaryOp::Floor: return std::floor(x);
    case UnaryOp::Ceil: return std::ceil(x);
    case UnaryOp::Round: return std::nearbyint(x);  // half to even (the default rounding mode)
    case UnaryOp::Trunc: return std::trunc(x);
    case UnaryOp::Not: return x == T(0) ? T(1) : T(0);
    case UnaryOp::IsNan: return std::isnan(x) ? T(1) : T(0);
    case UnaryOp::Sign: return static_cast<T>((x > T(0)) - (x < T(0)));
  }
  return x;
}

template <class T>
inline T floatBinary(BinaryOp b, T x, T y) {
  switch (b) {
    case BinaryOp::Add: return x + y;
    case BinaryOp::Sub: return x - y;
    case BinaryOp::Mul: return x * y;
    case BinaryOp::Div: return x / y;
    case BinaryOp::Mod: {  // the divisor's sign (Python/PyTorch remainder); x mod 0 = NaN
      T r = std::fmod(x, y);
      if (r != T(0) && ((r < T(0)) != (y < T(0)))) r += y;
      return r;
    }
    case BinaryOp::Pow: return std::pow(x, y);
    case BinaryOp::Max: return (std::isnan(x) || std::isnan(y)) ? std::numeric_limits<T>::quiet_NaN() : (x > y ? x : y);
    case BinaryOp::Min: return (std::isnan(x) || std::isnan(y)) ? std::numeric_limits<T>::quiet_NaN() : (x < y ? x : y);
    case BinaryOp::CmpLt: return x < y;
    case BinaryOp::CmpLe: return x <= y;
    case BinaryOp::CmpGt: return x > y;
    case BinaryOp::CmpGe: return x >= y;
    case BinaryOp::CmpEq: return x == y;
    case BinaryOp::CmpNe: return x != y;
    case BinaryOp::And: return (x != T(0)) && (y != T(0));
    case BinaryOp::Or: return (x != T(0)) || (y != T(0));
    case BinaryOp::Xor: return (x != T(0)) != (y != T(0));
  }
  return x;
}

// An exact integer power, wrapped in int64; a negative exponent gives 0 except for base 1 and -1.
inline int64_t intPow(int64_t base, int64_t e) {
  if (e < 0) {
    if (base == 1) return 1;
    if (base == -1) return (e % 2 == 0) ? 1 : -1;
    return 0;
  }
  uint64_t r = 1, b = static_cast<uint64_t>(base);
  while (e > 0) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<int64_t>(r);
}

// An integer (or bool) op on values of dtype t, wrapped to t; nullopt for an op that has no
// integer meaning (exp, sin, ...).
inline std::optional<int64_t> intUnary(UnaryOp u, int64_t x, DType t) {
  switch (u) {
    case UnaryOp::Neg: return wrapInt(t, static_cast<int64_t>(0ull - static_cast<uint64_t>(x)));
    case UnaryOp::Abs: return wrapInt(t, x < 0 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(x)) : x);
    case UnaryOp::Sign: return (x > 0) - (x < 0);
    case UnaryOp::Not: return t == DType::Bool ? (x == 0) : wrapInt(t, ~x);
    case UnaryOp::IsNan: return 0;
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc: return x;
    default: return std::nullopt;
  }
}

// Division truncates toward zero and x / 0 = x mod 0 = 0 (PyTorch raises; documented choice).
inline int64_t intBinary(BinaryOp b, int64_t x, int64_t y, DType t) {
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (b) {
    case BinaryOp::Add: return wrapInt(t, static_cast<int64_t>(ux + uy));
    case BinaryOp::Sub: return wrapInt(t, static_cast<int64_t>(ux - uy));
    case BinaryOp::Mul: return wrapInt(t, static_cast<int64_t>(ux * uy));
    case BinaryOp::Div:
      if (y == 0) return 0;
      if (y == -1) return wrapInt(t, static_cast<int64_t>(0ull - ux));
      return wrapInt(t, x / y);
    case BinaryOp::Mod: {
      if (y == 0 || y == -1) return 0;
      int64_t r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return wrapInt(t, r);
    }
    case BinaryOp::Pow: return wrapInt(t, intPow(x, y));
    case BinaryOp::Max: return x > y ? x : y;
    case BinaryOp::Min: return x < y ? x : y;
    case BinaryOp::CmpLt: return x < y;
    case BinaryOp::CmpLe: return x <= y;
    case BinaryOp::CmpGt: return x > y;
    case BinaryOp::CmpGe: return x >= y;
    case BinaryOp::CmpEq: return x == y;
    case BinaryOp::CmpNe: return x != y;
    case BinaryOp::And: return wrapInt(t, x & y);
    case BinaryOp::Or: return wrapInt(t, x | y);
    case BinaryOp::Xor: return wrapInt(t, x ^ y);
  }
  return x;
}

}  // namespace ks
