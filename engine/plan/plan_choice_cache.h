// Plan choices measured in this process, keyed by what they were measured for (the graph with
// its kernel alternatives, the devices, each kernel's schedule, the number of candidates): a warm
// compile of the same program reuses the choice instead of preparing and timing every candidate
// again, as the tuning cache spares it the schedule search. Thread-safe; a few entries are kept.
#pragma once
#include <cstdint>
#include <optional>

#include "engine/plan/plan_candidates.h"

namespace ks {

std::optional<PlanChoice> findPlanChoice(uint64_t key);
void keepPlanChoice(uint64_t key, const PlanChoice& choice);

}  // namespace ks
