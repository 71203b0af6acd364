// Where a run's measured time departs from what the plan was chosen by. The extraction picks
// producers by times taken in isolation (a kernel alone on a quiet device, a copy from a fixed cost
// plus bytes at one measured rate, an OpenBLAS GEMM timed alone); the run measures every step in
// place. Steps off by more than 2x either way are flagged with the likeliest reason, so a person
// can see why a plan that looked fastest is not.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/plan/exec_plan.h"
#include "engine/plan/run_record.h"

namespace ks {

struct StepGap {
  double predictedNs = 0;   // the chosen node's cost at extraction
  double measuredNs = -1;   // the run's time of the step; -1 when the run has no such step
  bool flagged = false;     // measured / predicted beyond [1/2, 2] (and the step large enough to matter)
  std::string reason;       // why the two differ (empty when they agree)
  double ratio() const { return predictedNs > 0 && measuredNs >= 0 ? measuredNs / predictedNs : 0; }
};

struct TimingGap {
  std::vector<StepGap> steps;        // one per plan step
  double predictedNs = 0;            // the sum of the steps' predictions
  double measuredNs = 0;             // the sum of the steps' measured times
  double wallNs = 0;                 // the run's wall time (host clock, outputs read back)
  bool cold = false;                 // the run was the prepared plan's first
  std::vector<std::size_t> largest;  // steps whose |measured - predicted| is largest, largest first (at most 5)
  std::string summary;               // one line: totals, the ratio, the largest contributors
};

// Steps below this many ns in both columns are never flagged: launch jitter, not a wrong model.
constexpr double kGapFloorNs = 5000;

// `tuned`: the kernels' times come from the autotuner (otherwise from a single first launch).
TimingGap timingGap(const Graph& g, const ExecPlan& plan, const RunRecord& run, bool tuned);

}  // namespace ks
