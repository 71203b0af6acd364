// Choosing the plan by measurement: extraction proposes a few distinct plans (the mixed plan over
// every selected device, then one per device subset that can run the program, deduplicated by the
// set of chosen nodes), the caller prepares each and times them in interleaved rounds on the real
// devices, then a local search measures the neighbours of the fastest (the same extraction without
// one of its launches) while one of them is faster, and the fastest measured is kept. Where
// OpenBLAS shares the CPU with an OpenCL CPU device, each such plan is also measured with OpenBLAS
// on one thread: its threads spin after a call and take the cores the next kernels run on.
#pragma once
#include <cstdint>
#include <functional>
#include <set>
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
  // A local-search neighbour: how it differs from the plan it was proposed from
  // ("without exp_sin on opencl:0:0") and the nodes its extraction may not choose.
  std::string variant;
  std::vector<NodeId> excluded;
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

// What candidates are extracted from: a graph with Kernel and copy nodes and the session's devices.
struct PlanInputs {
  const Graph& graph;
  const std::vector<ClassId>& outputs;
  const std::vector<KernelEntry>& entries;
  const std::vector<DeviceInfo>& devices;
  const std::vector<uint32_t>& poolOf;
  const std::vector<bool>& hostVisible;
};

// The plans already proposed, each as its sorted chosen node ids: a candidate is new when its set is.
using PlanNodeSets = std::set<std::vector<uint32_t>>;

// Device subsets worth a plan, the whole selection first: each compiling device alone and, when
// openblas is selected, each with openblas. At most `max` (1: the whole selection only).
std::vector<std::vector<bool>> candidateSubsets(const std::vector<DeviceInfo>& devices, int max);

// One extraction per subset (a subset that cannot run the program is left out), deduplicated by
// chosen nodes (recorded in `seen`), each with its plan; plans with a GEMM on openblas beside an
// OpenCL CPU device get a second candidate with OpenBLAS on one thread. At most `max` candidates.
std::vector<PlanCandidate> planCandidates(const PlanInputs& in, int max, PlanNodeSets& seen);

// The local-search neighbours of `base`: for each of its launches, slowest first, the extraction
// over base's devices without that launch's node (and without what base already excluded); plans
// already in `seen` are left out. At most `max`, fastest predicted first, with base's OpenBLAS threads.
std::vector<PlanCandidate> localNeighbours(const PlanInputs& in, const PlanCandidate& base, PlanNodeSets& seen, int max);

// How `c`'s steps differ from `ref`'s, by label: "+exp_sin on opencl:0:0, -exp on opencl:0:0 and
// 2 more" ("" when the labels are the same).
std::string planDifference(const PlanCandidate& c, const PlanCandidate& ref, int most = 4);

// A candidate made ready to run: `time` runs it once more and returns its wall time in ns.
struct PreparedCandidate {
  std::function<double()> time;
  double coldNs = 0;   // the first run, done while preparing
  int64_t bytes = 0;   // memory it holds while prepared
};
// Prepares a candidate (allocations, uploads, the cold run); throws ks::Error when it cannot run.
using PrepareCandidate = std::function<PreparedCandidate(const PlanCandidate&)>;
using ProposeNeighbours = std::function<std::vector<PlanCandidate>(const PlanCandidate& base, int max)>;

struct ChoiceLimits {
  double budgetNs = 10e9;      // measuring time in all; a candidate after it is not measured
  int maxCandidates = 0;       // with neighbours: the local search adds candidates up to this count
  int maxRuns = 9;             // timed runs per candidate and measurement (fewer for slow plans)
  int64_t interleaveBytes = int64_t(1) << 30;  // prepared at once at most; beyond it, one at a time
  // A candidate predicted over this many times the best prediction is not prepared: predictions
  // miss runs by 2-4x, not by this much, and such a plan (a convolution network on PoCL alone,
  // 6 s a run beside 40 ms) costs more to measure than the rest together.
  double hopelessFactor = 20;
};

// Prepares the candidates and times them in rounds (every prepared candidate once per round, the
// order rotating), so a change of load touches every candidate alike; then, given `neighbours`,
// climbs from the fastest measured: its unseen neighbours are timed in rounds together with it,
// and the climb moves to the fastest while one beats it. Keeps the fastest measured (the first,
// the mixed plan, when none could be measured) and says why.
PlanChoice choosePlan(std::vector<PlanCandidate> candidates, const PrepareCandidate& prepare,
                      const ChoiceLimits& limits = {}, const ProposeNeighbours& neighbours = {});

// The name of a candidate in the choice's words: "opencl:0:0+openblas, OpenBLAS 1 thread, without ...".
std::string candidateName(const PlanCandidate& c);

// The OpenBLAS thread policy and the pairs of measurements behind it ("" when no candidate
// shares the CPU between OpenBLAS and an OpenCL CPU device).
std::string blasPolicy(const PlanChoice& choice, const std::vector<DeviceInfo>& devices);

}  // namespace ks
