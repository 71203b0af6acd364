// The schedules a search measures, in the order it measures them: the cost model puts the likely
// winners first, so a count budget cuts the unlikely ones.
#pragma once
#include <vector>

#include "engine/kernel/schedule.h"
#include "engine/tune/cost_model.h"

namespace ks {

class Kernel;

// None: the default only. Full: every enumerated schedule, fastest predicted first (still
// exhaustive). Quick: the default, the model's `modelPicks` best from the full space, then the
// hand-picked quick list (in the model's order); a search measures as many as its
// count budget allows, from the front. `progress` (when given) is checked while the model orders.
std::vector<Schedule> tuneCandidates(const Kernel& k, const DeviceLimits& limits, const DeviceRates& rates,
                                     TuneLevel level, int modelPicks = 4, const Progress* progress = nullptr);

}  // namespace ks
