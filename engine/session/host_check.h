// Checking a run's results against the host within a budget: the whole-tensor oracle
// (HostExecutor) when its estimated work fits, else a deterministic sample of each result's
// elements by the per-element reference, else nothing, with the reason.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/host_tensor.h"
#include "engine/graph/graph.h"
#include "engine/plan/run_record.h"

namespace ks {

struct VerifyBudget {
  double hostWork = 4e8;        // estimated element ops the whole-tensor oracle may take (~seconds)
  int64_t samples = 256;        // elements per result when sampling
  int64_t pointVisits = 4000000;  // node visits of the per-element reference, all samples together (~seconds)
};

struct HostCheck {
  VerifyMode mode = VerifyMode::Full;
  int64_t checked = 0, total = 0;  // elements compared, elements of every result
  std::string reason;              // why sampled or skipped; empty for full
  std::vector<std::string> mismatch;  // per result: the first mismatch, "" when it agrees
  std::vector<double> maxAbsError;    // per result, over the compared elements
};

// `values[i]` is the run's value of results[i] computed from `compiled`; `oracle` is the program
// as built (the same class ids); `leaves` the leaves the run used. Tolerances as
// compareWithTolerance with the largest reduction on each result's path in either graph (a
// rewritten term may sum in another order). With `magnitudeBound` (the compiled term comes from
// inexact rewrites) float results are bounded by magnitude too (compareWithMagnitude, the
// magnitudes from magnitude.h's expression on absolute values, evaluated by the same oracle).
HostCheck checkAgainstHost(const Graph& oracle, const Graph& compiled, const std::vector<ClassId>& results,
                           const std::vector<HostTensor>& leaves, const std::vector<HostTensor>& values,
                           const VerifyBudget& budget, bool magnitudeBound = false);

// Terms summed into one value of `c` for the tolerance: the largest reduction on its path.
int64_t reductionTerms(const Graph& g, ClassId c);

}  // namespace ks
