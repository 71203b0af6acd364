// What was measured for each node of a picture (e-graph or plan): time, GB/s, GFLOP/s and % of
// the device's peak, from the last run where the node ran in the plan, else from its tuning
// measurement. The graph views colour nodes by one of these ("colour by") without engine logic.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "engine/devices/device_info.h"
#include "engine/graph/graph.h"
#include "engine/plan/exec_plan.h"
#include "engine/plan/kernel_entry.h"
#include "engine/plan/run_record.h"
#include "engine/viz/picture.h"

namespace ks::viz {

enum class Metric : uint8_t { None, Time, GBs, GFlops, PeakPct };
inline constexpr int kNumMetrics = 5;
std::string_view metricTitle(Metric m);  // "measured time", "GB/s", "GFLOP/s", "% of peak"

struct Measure {
  double ns = 0;
  double gbps = 0, gflops = 0;
  double peakPct = -1;  // the larger of % peak GB/s and % peak GFLOP/s; -1 when no peak is known
  bool fromRun = false;  // the last run measured it in place (else the autotuner, alone)
};

struct MeasureSources {
  const Graph& graph;
  const ExecPlan& plan;
  const std::vector<KernelEntry>& entries;
  const RunRecord* run = nullptr;                // the last run; null before any
  const std::vector<DeviceInfo>& devices;        // the session's devices (Kernel nodes index it)
  const std::vector<DeviceInfo>* peaks = nullptr;  // devices with measured peaks, matched by name
};

// One entry per picture node: e-nodes (subject ENode) and plan steps (subject PlanStep) that were
// measured get a value, every other node none.
std::vector<std::optional<Measure>> nodeMeasures(const Picture& p, const MeasureSources& in);

// The value of `m` in a measure (ns for Time); none for Metric::None or an unknown peak.
std::optional<double> metricValue(const Measure& measure, Metric m);

}  // namespace ks::viz
