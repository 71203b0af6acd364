// Allocation errors that say what was being allocated.
#include "engine/core/alloc_error.h"

#include <cmath>
#include <cstdio>

namespace ks {

long double tensorBytes(const Shape& shape, std::size_t elementBytes) {
  long double n = static_cast<long double>(elementBytes);
  for (Dim d : shape) n *= static_cast<long double>(d);
  return n;
}

std::string bytesStr(long double bytes) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  long double v = bytes;
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  char buf[96];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0Lf bytes", bytes);
  else std::snprintf(buf, sizeof buf, "%.0Lf bytes (%.1Lf %s)", bytes, v, units[u]);
  return buf;
}

Error allocationFailure(DType t, const Shape& shape, long double bytes, const std::string& where) {
  return Error(ErrorCode::Allocation,
               "cannot allocate " + std::string(dtypeName(t)) + shapeStr(shape) + " (" + bytesStr(bytes) + ") in " + where);
}

}  // namespace ks
