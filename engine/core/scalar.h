// A typed scalar: constants in graphs and kernels, pad values, fill values.
#pragma once
#include <cstdint>
#include <string>

#include "engine/core/dtype.h"

namespace ks {

// Floats are held as double (exact for f16/f32/f64); ints and bool as int64 (u32 fits).
class Scalar {
 public:
  Scalar() = default;
  static Scalar of(DType t, double v);     // converted as a cast to t would (trunc for ints)
  static Scalar ofInt(DType t, int64_t v);  // wrapped to t's width
  static Scalar boolean(bool b) { return ofInt(DType::Bool, b ? 1 : 0); }

  DType dtype() const { return dtype_; }
  double toDouble() const;
  int64_t toInt() const;
  bool toBool() const { return isFloat(dtype_) ? f_ != 0.0 : i_ != 0; }
  Scalar cast(DType t) const;  // value cast with the engine's semantics

  // Bitwise identity (NaN == NaN, +0 != -0): what hashing and hashconsing need.
  bool operator==(const Scalar& o) const;
  uint64_t hash() const;
  std::string str() const;  // "2.5", "-inf", "nan", "3", "true"

 private:
  DType dtype_ = DType::F32;
  double f_ = 0.0;
  int64_t i_ = 0;
};

// Wraps an int64 to the range of an integer dtype (two's complement), bool -> 0/1.
int64_t wrapInt(DType t, int64_t v);
// Float to int the way C / OpenCL convert (truncation toward zero), saturating outside the range
// instead of undefined behaviour.
int64_t floatToInt(DType t, double v);
// Rounds a double to what storing it in dtype t gives (f16 rounds half to even, f32 to float).
double roundToDType(DType t, double v);

}  // namespace ks
