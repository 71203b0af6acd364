// The JSON object `kernelscope-cli run --json` prints (schema in docs/cli.md).
#pragma once
#include <nlohmann/json.hpp>

#include "engine/session/session.h"

namespace ks {

// `r` is the (cold) run whose outputs are shown; `steady`, when measured, gives the times.
nlohmann::json runJson(const Session& s, const RunRecord& r, const SteadyState& steady = {});
nlohmann::json outputJson(const OutputValue& o, std::size_t maxValues = 1000);

}  // namespace ks
