// CompileTrace: what every stage of the pipeline did, in order — the e-graph at each stage, every
// fusion step, every kernel with its IR, every tuning measurement, the extraction's choices and
// the plan. The GUI and the CLI read only this (and RunRecords).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/kernelizer/kernelizer.h"
#include "engine/plan/exec_plan.h"
#include "engine/plan/extractor.h"
#include "engine/plan/kernel_entry.h"
#include "engine/plan/matmul_matcher.h"

namespace ks {

enum class Stage : uint8_t { Loaded, Matched, Kernelized, Tuned, Extracted, Planned };
const char* stageName(Stage s);

// Nodes are only ever appended, so the e-graph "at a stage" is its first `nodes` nodes.
struct GraphSnapshot {
  Stage stage = Stage::Loaded;
  uint32_t classes = 0, nodes = 0;
};

struct StageTime {
  Stage stage = Stage::Loaded;
  double ms = 0;
};

// One unique fused kernel (kernelizer passes can produce the same kernel twice; it is kept once).
struct KernelRecord {
  FusedKernel fused;
  std::string name;   // "k3 exp_mul_sum"
  double flops = 0;
  int64_t bytes = 0;
  int pass = 0;       // 0: kernelized without AOT boundaries; 1: between AOT kernels
};

// One schedule of one kernel on one device, as measured.
struct TuneMeasurement {
  uint32_t kernel = 0, device = 0;
  std::string schedule;  // Schedule::str()
  std::string status;  // "ok", "build error", "launch error", "too slow", "skipped", "wrong result"
  double ns = 0;
  std::string reason;
  bool cached = false;  // taken from the tuning cache, not measured now
};

// The search of one kernel on one device.
struct TuneSearch {
  uint32_t kernel = 0, device = 0;
  std::string winner;
  double winnerNs = 0;
  std::string stopReason;  // "exhausted", "count budget", "time budget", "cancelled", "cached"
  int candidates = 0, measured = 0, cacheHits = 0;
  double buildMs = 0;  // time spent building this kernel's candidates
};

struct CompileTrace {
  std::vector<GraphSnapshot> snapshots;
  std::vector<StageTime> stageTimes;
  KernelizeResult fusion;                 // the kernelizer run without AOT kernels (what the Fusion view steps)
  std::vector<KernelRecord> kernels;
  std::vector<MatmulMatch> matches;
  std::vector<TuneMeasurement> measurements;
  std::vector<TuneSearch> searches;
  std::vector<KernelEntry> entries;       // targets of the graph's Kernel nodes (Node::ref)
  Extraction extraction;
  ExecPlan plan;
  std::string tuneLevel;
  double compileMs = 0;                   // all stages up to the plan
  std::vector<std::string> warnings;      // e.g. a corrupt tuning cache that was rebuilt
};

// Per-launch timing of a run.
struct StepTiming {
  std::string label;
  std::string device;
  std::string kind;  // "launch", "copy", "gemm"
  double ns = 0;
  double gflops = 0, gbps = 0;
};

struct OutputValue {
  std::string name;
  HostTensor value;
  double min = 0, max = 0, mean = 0;
  bool verified = false;
  double maxAbsError = 0;  // against host, when verified
  std::string mismatch;    // first mismatch against host, empty when equal
};

struct RunRecord {
  std::vector<std::string> devices;
  std::vector<StepTiming> steps;
  double totalNs = 0;
  int64_t peakBytes = 0;
  std::vector<OutputValue> outputs;
  bool verified = false;
  bool verifyPassed = true;
};

}  // namespace ks
