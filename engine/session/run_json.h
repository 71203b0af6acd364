// The JSON object `kernelscope-cli run --json` prints (schema in docs/cli.md).
#pragma once
#include <nlohmann/json.hpp>

#include "engine/session/session.h"

namespace ks {

// plan_choice: every candidate plan with its predicted and measured time, and why the kept one won.
nlohmann::json planChoiceJson(const PlanChoice& c);
// `r` is the (cold) run whose outputs are shown; `steady`, when measured, gives the times.
nlohmann::json runJson(const Session& s, const RunRecord& r, const SteadyState& steady = {});
nlohmann::json outputJson(const OutputValue& o, std::size_t maxValues = 1000);

}  // namespace ks
