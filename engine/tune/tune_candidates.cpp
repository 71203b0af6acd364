// Candidate schedules per tuning level, ordered by the cost model.
#include "engine/tune/tune_candidates.h"

#include <algorithm>

#include "engine/kernel/kernel.h"

namespace ks {

std::vector<Schedule> tuneCandidates(const Kernel& k, const DeviceLimits& limits, const DeviceRates& rates,
                                     TuneLevel level, int modelPicks, const Progress* progress) {
  if (level == TuneLevel::None) return enumerateSchedules(k, limits, level);
  const std::vector<Schedule> ordered = orderByModel(k, enumerateSchedules(k, limits, TuneLevel::Full), limits, rates, nullptr, progress);
  if (level == TuneLevel::Full) return ordered;
  // The hand-picked list holds what benchmarks found on devices the model knows least (CPU
  // drivers); the model's picks reach the large cooperative and tiled schedules of a GPU that the
  // hand-picked list leaves out.
  std::vector<Schedule> out;
  auto add = [&out](const Schedule& s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  for (std::size_t i = 0; i < ordered.size() && static_cast<int>(i) <= modelPicks; ++i) add(ordered[i]);
  const std::vector<Schedule> picked = enumerateSchedules(k, limits, TuneLevel::Quick);
  for (const Schedule& s : ordered)
    if (std::find(picked.begin(), picked.end(), s) != picked.end()) add(s);
  return out;
}

}  // namespace ks
