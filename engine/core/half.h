// IEEE binary16 as a storage type: conversions to and from f32, rounding half to even.
#pragma once
#include <cstdint>

namespace ks {

uint16_t floatToHalf(float f);  // round to nearest even; overflow -> inf; NaN stays NaN
float halfToFloat(uint16_t h);
// Rounds an f32 to the nearest f16 value, returned as f32 (what storing to f16 does).
inline float roundToHalf(float f) { return halfToFloat(floatToHalf(f)); }

}  // namespace ks
