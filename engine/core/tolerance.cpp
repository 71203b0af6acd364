// The oracle comparison rule shared by verify, selftest, the tuner's result check and tests.
#include "engine/core/tolerance.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ks {

std::string compareWithTolerance(const HostTensor& got, const HostTensor& want, int64_t reduceTerms) {
  if (got.shape() != want.shape())
    return "shape " + shapeStr(got.shape()) + ", expected " + shapeStr(want.shape());
  if (got.dtype() != want.dtype())
    return "dtype " + std::string(dtypeName(got.dtype())) + ", expected " + std::string(dtypeName(want.dtype()));
  const int64_t n = got.numel();
  const bool fl = isFloat(want.dtype());
  // The K-term factor scales the absolute term too: a long dot product that cancels to nearly 0
  // carries the rounding of its large partial sums, which a bound relative to |b| alone misses
  // (a 1024-term sgemm failed the unscaled bound on values near zero).
  const double kFactor = std::max(1.0, std::sqrt(static_cast<double>(std::max<int64_t>(reduceTerms, 1))) / 4.0);
  const double abs = (want.dtype() == DType::F16 ? 1e-3 : 1e-5) * kFactor;
  const double rel = (want.dtype() == DType::F16 ? 1e-3 : 1e-4) * kFactor;
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    if (!fl) {
      ok = got.getInt(i) == want.getInt(i);
    } else {
      const double a = got.getDouble(i), b = want.getDouble(i);
      if (std::isnan(b) || std::isnan(a)) ok = std::isnan(a) && std::isnan(b);
      else if (std::isinf(b) || std::isinf(a)) ok = a == b;
      else ok = std::fabs(a - b) <= abs + rel * std::fabs(b);
    }
    if (!ok) {
      std::ostringstream os;
      os.precision(9);
      os << "index " << i << ": got " << (fl ? got.getDouble(i) : static_cast<double>(got.getInt(i))) << ", expected "
         << (fl ? want.getDouble(i) : static_cast<double>(want.getInt(i)));
      return os.str();
    }
  }
  return {};
}

std::string compareWithMagnitude(const HostTensor& got, const HostTensor& want, const HostTensor& magnitude,
                                 int64_t reduceTerms) {
  const std::string plain = compareWithTolerance(got, want, reduceTerms);
  if (plain.empty() || !isFloat(want.dtype()) || got.shape() != want.shape() || got.dtype() != want.dtype() ||
      magnitude.numel() != want.numel())
    return plain;
  const double kFactor = std::max(1.0, std::sqrt(static_cast<double>(std::max<int64_t>(reduceTerms, 1))) / 4.0);
  const double abs = (want.dtype() == DType::F16 ? 1e-3 : 1e-5), rel = (want.dtype() == DType::F16 ? 1e-3 : 1e-4) * kFactor;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = got.getDouble(i), b = want.getDouble(i), m = std::fabs(magnitude.getDouble(i));
    bool ok;
    if (std::isnan(b) || std::isnan(a)) ok = std::isnan(a) && std::isnan(b);
    else if (std::isinf(b) || std::isinf(a)) ok = a == b;
    else ok = std::fabs(a - b) <= abs * kFactor + rel * std::max(std::fabs(b), m);
    if (!ok) {
      std::ostringstream os;
      os.precision(9);
      os << "index " << i << ": got " << a << ", expected " << b << " (magnitude " << m << ")";
      return os.str();
    }
  }
  return {};
}

double maxAbsDifference(const HostTensor& got, const HostTensor& want) {
  double m = 0;
  const int64_t n = std::min(got.numel(), want.numel());
  for (int64_t i = 0; i < n; ++i) {
    const double d = std::fabs(got.getDouble(i) - want.getDouble(i));
    if (std::isfinite(d)) m = std::max(m, d);
  }
  return m;
}

}  // namespace ks
