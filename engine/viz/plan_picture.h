// The execution plan as a Picture: one node per launch (the device and schedule in its label,
// GEMMs styled apart), one per copy of a computed value (uploads of bound inputs are left out:
// dozens of parameter copies made the picture too wide to read; the plan table lists them), one
// per output, and an edge per computed buffer a drawn step reads.
#pragma once
#include <string>
#include <vector>

#include "engine/plan/exec_plan.h"
#include "engine/plan/kernel_entry.h"
#include "engine/viz/picture.h"

namespace ks::viz {

struct PlanPictureInput {
  const ExecPlan& plan;
  const std::vector<KernelEntry>& entries;      // the targets of the plan's launches
  const std::vector<std::string>& kernelNames;  // fused kernel index -> name ("k3 exp_mul_sum")
  const std::vector<std::string>& deviceNames;  // device index -> name
  const std::vector<std::string>* stepSources = nullptr;  // step -> the source lines it computes ("" unknown)
};

// Node ids "s<step>" (subject PlanStep) and "out<buffer>" (subject PlanOutput).
Picture planPicture(const PlanPictureInput& in);

}  // namespace ks::viz
