// The JSON object `kernelscope-cli diff --json` prints (schema in docs/cli.md).
#pragma once
#include <nlohmann/json.hpp>

#include "engine/session/session_diff.h"

namespace ks {

nlohmann::json sessionDiffJson(const SessionDiff& d);

}  // namespace ks
