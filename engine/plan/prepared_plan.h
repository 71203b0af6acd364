// A plan made ready to run many times: every allocation made once, parameters and constants
// uploaded once and kept resident on each device, inputs bound per run. A run enqueues the whole
// plan without waiting per launch and waits once at the end; step times come from profiling events.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/progress.h"
#include "engine/devices/device_runtime.h"
#include "engine/kernelizer/kernel_record.h"
#include "engine/plan/exec_plan.h"
#include "engine/plan/kernel_entry.h"
#include "engine/plan/run_record.h"

namespace ks {

// What a plan is prepared from. Only read while preparing: the prepared plan keeps its own copies.
struct PlanSource {
  const Graph& graph;
  const ExecPlan& plan;
  const std::vector<KernelEntry>& entries;
  const std::vector<KernelRecord>& kernels;
  const std::vector<DeviceInfo>& devices;
};

class PreparedPlan {
 public:
  // Allocates every buffer of the plan (throws ks::Error Allocation naming the size) and takes the
  // leaf values (by leaf index). Nothing is uploaded until the first run.
  PreparedPlan(const PlanSource& source, DeviceRuntime& runtime, std::vector<HostTensor> leaves);
  ~PreparedPlan();
  PreparedPlan(const PreparedPlan&) = delete;
  PreparedPlan& operator=(const PreparedPlan&) = delete;

  // Replaces a leaf's value (same dtype and shape, else ks::Error Shape). An input is uploaded by
  // every run anyway; a parameter or constant is uploaded again by the next run only.
  void setLeaf(uint32_t leaf, HostTensor value);
  const HostTensor& leaf(uint32_t leaf) const { return leaves_.at(leaf); }

  // One run: uploads inputs (and parameters that changed), launches, reads the outputs back.
  // Fills record.steps, the wall and device times and record.cold; returns the outputs in plan
  // output order. Throws ks::Error (Launch, Cancelled, ...) after waiting for what was queued.
  std::vector<HostTensor> run(const Progress& progress, RunRecord& record);

  // OpenBLAS threads the plan's GEMMs run on (0: every core); set before each run, since the
  // count is the library's, shared by every plan of the process.
  void setBlasThreads(int n) { blasThreads_ = n; }
  int runs() const { return runs_; }         // completed runs (0: the next one is cold)
  int64_t residentBytes() const;             // device bytes held by resident parameters/constants

 private:
  struct Impl;
  struct RunState;
  void enqueueStep(std::size_t step, RunState& state);
  std::vector<HostTensor> bindOutputs();
  void readOutputs(RunState& state, std::vector<HostTensor>& outs, bool afterWait);
  void record(const RunState& state, RunRecord& record) const;
  std::unique_ptr<Impl> impl_;
  std::vector<HostTensor> leaves_;
  int runs_ = 0;
  int blasThreads_ = 0;
};

}  // namespace ks
