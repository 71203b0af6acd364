// JSON for Scalar, exact for every dtype including NaN and infinities.
#include "engine/core/scalar_json.h"

#include <cmath>

#include "engine/core/error.h"

namespace ks {

nlohmann::json scalarToJson(const Scalar& s) {
  if (isFloat(s.dtype())) {
    const double v = s.toDouble();
    if (std::isnan(v) || std::isinf(v)) return {{"t", dtypeName(s.dtype())}, {"s", s.str()}};
    return {{"t", dtypeName(s.dtype())}, {"f", v}};
  }
  return {{"t", dtypeName(s.dtype())}, {"i", s.toInt()}};
}

Scalar scalarFromJson(const nlohmann::json& j) {
  const auto t = parseDType(j.at("t").get<std::string>());
  if (!t) throw Error(ErrorCode::Parse, "unknown dtype '" + j.at("t").get<std::string>() + "'");
  if (j.contains("s")) {
    const std::string s = j["s"].get<std::string>();
    const double v = s == "nan" ? std::nan("") : s == "inf" ? INFINITY : -INFINITY;
    return Scalar::of(*t, v);
  }
  if (j.contains("f")) return Scalar::of(*t, j["f"].get<double>());
  return Scalar::ofInt(*t, j.at("i").get<int64_t>());
}

}  // namespace ks
