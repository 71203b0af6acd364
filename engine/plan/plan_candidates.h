// Choosing the plan by measurement: extraction proposes a few distinct plans (the mixed plan over
// every selected device, then one per device subset that can run the program, deduplicated by the
// set of chosen nodes), the caller runs each a few times on the real devices and keeps the
// fastest measured. Where OpenBLAS shares the CPU with an OpenCL CPU device, each such plan is
// also measured with OpenBLAS on one thread: its threads spin after a call and take the cores the
// next kernels run on.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/devices/device_info.h"
#include "engine/plan/exec_plan.h"
#include "engine/plan/extractor.h"

namespace ks {

struct PlanCandidate {
  std::string devices;        // the subset it may use: "opencl:0:0+openblas"
  std::vector<bool> allowed;  // device index -> allowed
  int blasThreads = 0;        // OpenBLAS threads it runs with (0: the library's default; no GEMM)
  Extraction extraction;
  ExecPlan plan;
  double predictedNs = 0;     // the extraction's DAG cost
  double measuredNs = -1;     // median wall of its timed runs (-1: not measured)
  int runs = 0;               // timed runs behind measuredNs
  std::string note;           // why it was not measured, or failed
  bool chosen = false;
};

struct PlanChoice {
  std::vector<PlanCandidate> candidates;
  int chosen = -1;     // index of the kept candidate
  std::string why;     // "fastest measured: 0.812 ms (next: opencl:0:0 1.530 ms)"
  std::string policy;  // the OpenBLAS thread policy and what it measured
};

// Device subsets worth a plan, the whole selection first: each compiling device alone and, when
// openblas is selected, each with openblas. At most `max` (1: the whole selection only).
std::vector<std::vector<bool>> candidateSubsets(const std::vector<DeviceInfo>& devices, int max);

// Candidates of a graph with Kernel and copy nodes: one extraction per subset (a subset that cannot
// run the program is left out), deduplicated by chosen nodes, each with its plan; plans with a GEMM
// on openblas beside an OpenCL CPU device get a second candidate with OpenBLAS on one thread.
// At most `max` candidates.
std::vector<PlanCandidate> planCandidates(const Graph& g, const std::vector<ClassId>& outputs,
                                          const std::vector<KernelEntry>& entries, const std::vector<DeviceInfo>& devices,
                                          const std::vector<uint32_t>& poolOf, const std::vector<bool>& hostVisible,
                                          int max);

// Measures every candidate with `measure` (returns the median wall in ns of `runs` timed runs, or
// throws ks::Error) within `budgetNs` in all, keeps the fastest measured (the first, the mixed
// plan, when none could be measured) and says why.
PlanChoice choosePlan(std::vector<PlanCandidate> candidates,
                      const std::function<double(const PlanCandidate&, int& runs)>& measure, double budgetNs);

// The OpenBLAS thread policy and the pairs of measurements behind it ("" when no candidate
// shares the CPU between OpenBLAS and an OpenCL CPU device).
std::string blasPolicy(const PlanChoice& choice, const std::vector<DeviceInfo>& devices);

}  // namespace ks
