// The rules a loaded session must keep before any view or exporter reads it: every id in range,
// shapes and enums legal, kernels well formed. A session file is user input (it can be edited),
// and the views index by these ids without checking.
#pragma once
#include <cstdint>
#include <vector>

namespace ks {

class Session;

// Throws Error(Parse) whose message starts with the JSON pointer of the first value that breaks
// a rule ("/trace/plan/steps/2/inputs/0: expected ..., found ..."). `pools` is the session's
// device -> memory pool list (the file's "pools").
void checkSession(const Session& s, const std::vector<uint32_t>& pools);

}  // namespace ks
