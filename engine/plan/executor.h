// Executes an ExecPlan on live devices: allocates the plan's buffers, runs its launches and copies
// in order, times each one (with achieved GFLOP/s and GB/s), and reads the outputs back.
#pragma once
#include <vector>

#include "engine/core/progress.h"
#include "engine/devices/device_runtime.h"
#include "engine/kernelizer/kernel_record.h"
#include "engine/plan/exec_plan.h"
#include "engine/plan/kernel_entry.h"
#include "engine/plan/run_record.h"

namespace ks {

struct ExecutionInput {
  const Graph& graph;
  const ExecPlan& plan;
  const std::vector<KernelEntry>& entries;
  const std::vector<KernelRecord>& kernels;
  const std::vector<DeviceInfo>& devices;
  const std::vector<HostTensor>& leaves;  // by leaf index
};

// Fills record.steps, record.totalNs and record.peakBytes; returns the output values in plan
// output order. Throws ks::Error (Allocation, Launch, Cancelled, ...) naming the step.
std::vector<HostTensor> executePlan(const ExecutionInput& in, DeviceRuntime& runtime, const Progress& progress,
                                    RunRecord& record);

}  // namespace ks
