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
#include "engine/session/kernelizer_run.h"
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

// One candidate term the pipeline compiled: where it came from, its static cost and what its
// kernelizer runs and AOT matching gave, and how much of the measured plan it makes.
struct TermCandidateRecord {
  std::string source;                // "static best", "runner-up 1", "as built"
  double staticNs = 0;               // static DAG cost (each chosen e-node once)
  std::size_t differ = 0;            // classes it reaches whose e-node differs from the static best's
  std::vector<uint32_t> kernels;     // fused kernels (trace kernel indices) its runs made, shared ones too
  std::vector<uint32_t> gemms;       // AOT matches (trace match indices) of its term
  std::size_t planKernels = 0;       // kernel steps of the plan it made (fused or GEMM)
  std::size_t planOnly = 0;          // of those, made by no other candidate
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
  // Every term compiled, the static best (the structural nodes) first: their Kernel nodes join the
  // e-classes they compute, so extraction picks between the forms by measured time. Empty when
  // only the static best compiled (one candidate asked for, or a file before version 5).
  std::vector<TermCandidateRecord> candidates;
  int planCandidate = -1;    // the candidate that made most of the plan's kernel steps
};

struct CompileTrace {
  std::vector<GraphSnapshot> snapshots;
  RewriteTrace rewrite;
  std::vector<StageTime> stageTimes;
  // Every kernelizer run in the order they ran: per candidate term, before and (with AOT matches)
  // after AOT matching. planRun is the one whose kernels the plan uses (-1: not planned yet).
  std::vector<KernelizerRun> fusionRuns;
  int planRun = -1;
  // The run views and commands open on: the plan's, else the first; null when none ran.
  const KernelizerRun* shownRun() const {
    if (planRun >= 0 && static_cast<std::size_t>(planRun) < fusionRuns.size()) return &fusionRuns[static_cast<std::size_t>(planRun)];
    return fusionRuns.empty() ? nullptr : &fusionRuns.front();
  }
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
