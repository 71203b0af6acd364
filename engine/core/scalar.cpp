// Scalar value semantics shared by the graph, the host oracle and the kernel interpreter.
#include "engine/core/scalar.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "engine/core/half.h"

namespace ks {

int64_t wrapInt(DType t, int64_t v) {
  switch (t) {
    case DType::Bool: return v != 0;
    case DType::U8: return static_cast<uint8_t>(v);
    case DType::I8: return static_cast<int8_t>(v);
    case DType::I16: return static_cast<int16_t>(v);
    case DType::I32: return static_cast<int32_t>(v);
    case DType::U32: return static_cast<uint32_t>(v);
    default: return v;
  }
}

int64_t floatToInt(DType t, double v) {
  if (t == DType::Bool) return v != 0.0;
  if (std::isnan(v)) return 0;
  double lo = -9.2233720368547758e18, hi = 9.2233720368547748e18;
  switch (t) {
    case DType::U8: lo = 0; hi = 255; break;
    case DType::I8: lo = -128; hi = 127; break;
    case DType::I16: lo = -32768; hi = 32767; break;
    case DType::I32: lo = -2147483648.0; hi = 2147483647.0; break;
    case DType::U32: lo = 0; hi = 4294967295.0; break;
    default: break;
  }
  v = std::trunc(v);
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return static_cast<int64_t>(v);
}

double roundToDType(DType t, double v) {
  switch (t) {
    case DType::F16: return roundToHalf(static_cast<float>(v));
    case DType::F32: return static_cast<float>(v);
    case DType::F64: return v;
    default: return static_cast<double>(floatToInt(t, v));
  }
}

Scalar Scalar::of(DType t, double v) {
  Scalar s;
  s.dtype_ = t;
  if (isFloat(t)) s.f_ = roundToDType(t, v);
  else s.i_ = floatToInt(t, v);
  return s;
}

Scalar Scalar::ofInt(DType t, int64_t v) {
  Scalar s;
  s.dtype_ = t;
  if (isFloat(t)) s.f_ = roundToDType(t, static_cast<double>(v));
  else s.i_ = wrapInt(t, v);
  return s;
}

double Scalar::toDouble() const { return isFloat(dtype_) ? f_ : static_cast<double>(i_); }
int64_t Scalar::toInt() const { return isFloat(dtype_) ? floatToInt(DType::I64, f_) : i_; }

Scalar Scalar::cast(DType t) const {
  if (isFloat(dtype_)) return of(t, f_);
  if (t == DType::Bool) return ofInt(t, i_ != 0);
  return ofInt(t, i_);
}

bool Scalar::operator==(const Scalar& o) const {
  if (dtype_ != o.dtype_) return false;
  if (isFloat(dtype_)) return std::memcmp(&f_, &o.f_, sizeof f_) == 0;
  return i_ == o.i_;
}

uint64_t Scalar::hash() const {
  uint64_t bits;
  if (isFloat(dtype_)) std::memcpy(&bits, &f_, 8);
  else bits = static_cast<uint64_t>(i_);
  uint64_t h = bits ^ (static_cast<uint64_t>(dtype_) * 0x9e3779b97f4a7c15ull);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

std::string Scalar::str() const {
  if (dtype_ == DType::Bool) return i_ ? "true" : "false";
  if (!isFloat(dtype_)) return std::to_string(i_);
  if (std::isnan(f_)) return "nan";
  if (std::isinf(f_)) return f_ > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os.precision(dtype_ == DType::F64 ? 17 : 9);
  os << f_;
  std::string s = os.str();
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

}  // namespace ks
