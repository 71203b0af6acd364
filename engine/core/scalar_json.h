// Scalars in JSON: {"t": "f32", "f": 1.5} / {"t": "i64", "i": 3} / {"t": "f32", "s": "nan"}.
#pragma once
#include <nlohmann/json.hpp>

#include "engine/core/scalar.h"

namespace ks {

nlohmann::json scalarToJson(const Scalar& s);
Scalar scalarFromJson(const nlohmann::json& j);  // throws ks::Error(Parse)

}  // namespace ks
