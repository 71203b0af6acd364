// The JSON object `kernelscope-cli explain-plan --json` prints (schema in docs/cli.md).
#pragma once
#include <nlohmann/json.hpp>

#include "engine/session/plan_explanation.h"

namespace ks {

nlohmann::json explanationJson(const Session& s, const PlanExplanation& e);

}  // namespace ks
