// SessionDiff: two sessions of a program side by side — two .kss.json files, or the same program
// compiled under other options (devices, tune level, rewrites). Classes, kernels and plan steps
// are matched by structure (term hashes, never ids, indices or labels, which shift when anything
// upstream changes); then per-kernel times, the plan steps only one side has or that changed
// device, schedule, kind or kernel, and the decisions behind them: the first fusion step that
// differs and every class whose extracted producer differs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/session/session.h"

namespace ks {

// One kernel launched by either plan. A and B are the two sessions.
struct DiffKernel {
  uint64_t hash = 0;      // fused: IR + term hashes of its loads and stores; GEMM: spec + the same
  bool gemm = false;
  std::string nameA, nameB;  // "k3 exp_mul_sum" / "sgemm 64x512x784 batch 1"; "" where not launched
  std::optional<double> nsA, nsB;  // summed over that plan's launches of it; none where not launched
  std::string deviceA, deviceB, scheduleA, scheduleB;
  bool compiledA = false, compiledB = false;  // the session has the kernel (launched or not)
  const std::string& name() const { return nameA.empty() ? nameB : nameA; }
  bool changed() const { return nsA && nsB && (deviceA != deviceB || scheduleA != scheduleB); }
};

struct DiffStep {
  int index = -1;        // in its plan
  std::string label;     // the plan's label ("kernel k3 on opencl:0:0")
  std::string kind;      // "launch", "gemm", "copy"
  std::string device;    // where it runs (a copy: the destination)
  std::string schedule;  // fused launches only
  uint64_t kernel = 0;   // DiffKernel::hash of a launch; the copied class's term hash for a copy
  double ns = 0;         // the step's time (see SessionDiff::timesFromRun)
};

struct DiffStepChange {
  DiffStep a, b;
  std::vector<std::string> what;  // of "kind", "device", "schedule", "kernel"
};

struct PlanDiff {
  std::vector<DiffStep> onlyA, onlyB;
  std::vector<DiffStepChange> changed;
  int same = 0;
};

struct DiffFusionStep {
  int index = -1;
  std::string action, node, rule, reason;
  uint32_t cls = UINT32_MAX;
};

// The kernelizer's decisions compared in order: the first step where the two traces differ.
struct FusionDecisionDiff {
  int stepsA = 0, stepsB = 0;
  int firstDifference = -1;  // -1 when the traces agree step for step
  std::optional<DiffFusionStep> a, b;  // the steps at firstDifference (absent past a trace's end)
  int onlyA = 0, onlyB = 0;  // decisions (action, class, subject, rule) one trace has and the other not
};

// A class both plans need whose extracted producer differs.
struct DiffChoice {
  uint32_t classA = 0, classB = 0;
  std::string node;              // the class's structural node ("add")
  std::string chosenA, chosenB;  // "kernel k3 exp_mul on opencl:0:0 (schedule)", "copy to openblas", "leaf"
  std::string whyA, whyB;
};

struct DiffSide {
  std::string file;       // what the caller named it ("" for an unsaved session)
  std::string program;
  std::vector<std::string> devices;
  std::string tune;
  std::size_t classes = 0;     // canonical classes of structural values
  std::size_t kernels = 0;     // fused kernels compiled
  std::size_t steps = 0;       // plan steps
  double predictedNs = 0;      // the extraction's DAG cost of the plan
  std::optional<double> runNs; // the last run's wall time, when the session ran
  bool timesFromRun = false;   // step times from the last run (else the tuned times the plan was chosen by)
};

struct SessionDiff {
  DiffSide a, b;
  std::size_t matchedClasses = 0;
  std::vector<uint32_t> onlyAClasses, onlyBClasses;  // class ids in their own session
  std::vector<DiffKernel> kernels;  // A's plan order, then kernels only B launches in B's order
  PlanDiff plan;
  FusionDecisionDiff fusion;
  std::vector<DiffChoice> choices;
  // Plan steps' status by step index, for colouring a plan picture: "same", "changed", "only_a"
  // (stepStatusA) / "only_b" (stepStatusB).
  std::vector<std::string> stepStatusA, stepStatusB;
};

// Throws ks::Error(Usage) when a session has no plan (compile it first).
SessionDiff diffSessions(const Session& a, const Session& b, const std::string& fileA = "", const std::string& fileB = "");

}  // namespace ks
