// DiffMarks: what a session diff says about each node of one side's picture (e-graph or plan),
// so a graph view colours added, removed and changed nodes without reading the diff itself.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/session/session.h"
#include "engine/session/session_diff.h"
#include "engine/viz/picture.h"

namespace ks {

// Removed: only the side drawn (A) has it; Added: only the side drawn (B) has it, which is the
// same fact seen from the other session.
enum class DiffMark : uint8_t { Same, Added, Removed, Changed };
std::string_view diffMarkName(DiffMark m);  // "same", "added", "removed", "changed"

enum class DiffSideId : uint8_t { A, B };

// One mark per node of `p`, a picture of session `s`, which is side `side` of `d`. Plan steps
// (subject PlanStep) follow the plan diff's step status; e-nodes (subject ENode) their class:
// only on this side, or a class both plans need whose extracted producer differs (changed).
// Every other node is Same.
std::vector<DiffMark> diffMarks(const viz::Picture& p, const Session& s, const SessionDiff& d, DiffSideId side);

}  // namespace ks
