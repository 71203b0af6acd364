// Steady-state time of a prepared plan: medians over repeated runs after warm-ups, the wall time
// a caller waits for beside the device times of kernels and copies, per step too.
#pragma once
#include <vector>

#include "engine/plan/run_record.h"

namespace ks {

struct SteadyState {
  int warmups = 0;  // runs made and not counted
  int runs = 0;     // runs the medians are over (0: none measured)
  double totalNs = 0, kernelNs = 0, copyNs = 0;  // medians
  std::vector<StepTiming> steps;  // per-step medians, in plan order
};

// Medians of `runs` (each one run of the same plan; warm-ups already left out).
SteadyState steadyStateOf(const std::vector<RunRecord>& runs, int warmups);

}  // namespace ks
