// Comparing each plan step's predicted cost with the run's measured step time.
#include "engine/plan/timing_gap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace ks {

namespace {

std::string us(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f us", ns / 1e3);
  return b;
}

// The likeliest reason a step's measured time is off its prediction, by what the step is.
std::string reasonFor(const StepTiming& t, const StepGap& s, bool cold, bool tuned) {
  const bool slower = s.measuredNs > s.predictedNs;
  if (t.kind == "copy")
    return slower ? "copies are predicted from a 4 KiB and a 16 MiB copy timed when the devices opened; this one "
                    "moved fresh pages or waited for the queue"
                  : "copies are predicted from a 4 KiB and a 16 MiB copy timed when the devices opened; this one was "
                    "cheaper (warm caches)";
  if (t.kind == "gemm")
    return slower ? "OpenBLAS was timed alone; in the plan it shares the cores with the other devices' threads"
                  : "OpenBLAS was timed alone on cold caches; in the plan its operands were already in cache";
  if (cold && slower) return "cold run: a kernel's first launch pays for its setup (compare a steady-state run)";
  if (!tuned)
    return slower ? "tuning off: the prediction is one launch timed alone; in the plan it runs behind other work"
                  : "tuning off: the prediction is one launch timed alone, which included its launch overhead";
  return slower ? "timed alone by the autotuner on warm caches; in the plan its inputs come from other kernels"
                : "timed alone by the autotuner with launch overhead; in the plan launches overlap it";
}

}  // namespace

TimingGap timingGap(const Graph& g, const ExecPlan& plan, const RunRecord& run, bool tuned) {
  TimingGap r;
  r.wallNs = run.totalNs;
  r.cold = run.cold;
  const bool haveRun = run.steps.size() == plan.steps.size();
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    StepGap s;
    const PlanStep& ps = plan.steps[i];
    if (ps.node.valid() && ps.node.v < g.nodeCount()) s.predictedNs = g.node(ps.node).timeNs;
    r.predictedNs += s.predictedNs;
    if (haveRun) {
      const StepTiming& t = run.steps[i];
      s.measuredNs = t.ns;
      r.measuredNs += t.ns;
      if (t.resident) {
        s.reason = "a resident parameter: nothing was uploaded (the plan costs its upload)";
      } else if (t.kind == "zero-copy") {
        s.reason = "zero-copy: both ends work in host memory, nothing moved (the plan costs the wait for the producer)";
      } else if (std::max(s.measuredNs, s.predictedNs) >= kGapFloorNs &&
                 (s.measuredNs > 2 * s.predictedNs || s.predictedNs > 2 * s.measuredNs)) {
        s.flagged = true;
        s.reason = reasonFor(t, s, run.cold, tuned);
      }
    }
    r.steps.push_back(std::move(s));
  }
  if (!haveRun) {
    r.summary = "predicted " + us(r.predictedNs) + "; not run yet";
    return r;
  }
  std::vector<std::size_t> idx(r.steps.size());
  std::iota(idx.begin(), idx.end(), 0);
  auto gap = [&](std::size_t i) { return std::abs(r.steps[i].measuredNs - r.steps[i].predictedNs); };
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return gap(a) > gap(b); });
  for (std::size_t i : idx) {
    if (r.largest.size() == 5 || gap(i) < kGapFloorNs) break;
    r.largest.push_back(i);
  }
  char line[160];
  std::snprintf(line, sizeof line, "%s run: steps measured %s, wall %s, predicted %s (%.2fx)", run.cold ? "cold" : "warm",
                us(r.measuredNs).c_str(), us(r.wallNs).c_str(), us(r.predictedNs).c_str(),
                r.predictedNs > 0 ? r.measuredNs / r.predictedNs : 0.0);
  r.summary = line;
  if (!r.largest.empty()) {
    r.summary += "; largest gaps:";
    for (std::size_t i : r.largest) {
      const double d = r.steps[i].measuredNs - r.steps[i].predictedNs;
      r.summary += " #" + std::to_string(i) + " (" + (d >= 0 ? "+" : "-") + us(std::abs(d)) + ")";
    }
  }
  return r;
}

}  // namespace ks
