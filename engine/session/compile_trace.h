// CompileTrace: what every stage of the pipeline did, in order — the e-graph at each stage, every
// fusion step, every kernel with its IR, every tuning measurement, the extraction's choices and
// the plan. It only aggregates: each stage owns and defines its records. The GUI and the CLI read
// only this (and RunRecords).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/kernelizer/kernel_record.h"
#include "engine/kernelizer/kernelizer.h"
#include "engine/plan/exec_plan.h"
#include "engine/plan/extractor.h"
#include "engine/plan/kernel_entry.h"
#include "engine/plan/matmul_matcher.h"
#include "engine/plan/plan_candidates.h"
#include "engine/plan/run_record.h"
#include "engine/rewrite/runner.h"
#include "engine/tune/tune_search.h"

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

// What the rewrite stage did: the saturation (rounds, rules, steps, stop reason) and the term it
// chose for the pipeline.
struct RewriteTrace {
  bool ran = false;
  std::string mode;          // "none", "default", "aggressive"
  std::vector<std::string> rules;
  RewriteReport report;
  bool cached = false;       // the saturated graph came from the saturation cache
  std::size_t termChanges = 0;  // classes whose structural node is a rewritten form
  double termNs = 0;         // static cost of the chosen term (tree cost of the outputs)
  double originalNs = 0;     // the same for the program as built
};

struct CompileTrace {
  std::vector<GraphSnapshot> snapshots;
  RewriteTrace rewrite;
  std::vector<StageTime> stageTimes;
  KernelizeResult fusion;                 // the kernelizer run without AOT kernels (what the Fusion view steps)
  std::vector<KernelRecord> kernels;
  std::vector<MatmulMatch> matches;
  std::vector<TuneMeasurement> measurements;
  std::vector<TuneSearch> searches;
  std::vector<KernelEntry> entries;       // targets of the graph's Kernel nodes (Node::ref)
  Extraction extraction;
  ExecPlan plan;
  // The candidate plans measured on the devices and why `plan` (the kept one) won; empty when
  // one candidate was asked for (--tune none, --plan-candidates 1) or for a loaded session.
  PlanChoice planChoice;
  std::string tuneLevel;
  double compileMs = 0;                   // all stages up to the plan
  std::vector<std::string> warnings;      // e.g. a corrupt tuning cache that was rebuilt
};

}  // namespace ks
