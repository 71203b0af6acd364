// The kernelizer's record of its decisions: one FusionStep per decision with the change it made as
// a diff, so that any intermediate state can be rebuilt, shown step by step, and explained.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/graph/node.h"
#include "engine/kernelizer/fused_kernel.h"

namespace ks {

// A kernel as the trace sees it: enough to draw it as a group of classes and to compare it with
// the live kernelizer's result. Class ids are plain integers so the trace stands alone in JSON.
struct KernelState {
  std::vector<uint32_t> classes;  // computed inside, in op order
  std::vector<uint32_t> loads;
  std::vector<uint32_t> stores;
  int32_t opCount = 0;
  bool operator==(const KernelState&) const = default;
};
KernelState kernelStateOf(const FusedKernel& k);

// Kernel id -> state. Ordered so that printing and comparing are stable.
using TraceState = std::map<int32_t, KernelState>;
TraceState traceStateOf(const std::vector<FusedKernel>& kernels);

// The change one step made: kernels added or changed (their new state) and kernels removed.
struct StepDiff {
  std::map<int32_t, KernelState> set;
  std::vector<int32_t> removed;
  void applyTo(TraceState& s) const;
  bool empty() const { return set.empty() && removed.empty(); }
};

enum class FusionAction : uint8_t {
  BeginRegion,    // a kernelize run over one gap region starts
  NewLoadKernel,  // a kernel that loads a leaf, region input or stored class
  NewKernel,      // a kernel without loads (a replayed constant gets a grid)
  AppendOp,       // op(s) of a class appended to the kernel of its operand
  Merge,          // kernel A merged into kernel B
  StoreClass,     // a class is written to memory; remaining consumers get a load kernel
  DuplicateChain, // a chain is recomputed in a new kernel instead of stored
  Split,          // a load kernel with several consumers gives one of them its own loader
  RemoveKernel,   // an empty kernel is dropped
};
inline constexpr int kNumFusionActions = 9;
std::string_view fusionActionName(FusionAction a);  // "merge"
std::optional<FusionAction> parseFusionAction(std::string_view s);

struct FusionStep {
  int32_t index = 0;             // position in the trace (0-based)
  uint32_t cls = UINT32_MAX;     // class being processed
  std::string node;              // label of its node ("reduce sum [1]")
  uint32_t subject = UINT32_MAX; // class acted on when not `cls` (the stored / duplicated / merged-for class)
  FusionAction action = FusionAction::AppendOp;
  std::string rule;              // short rule name ("expand-stores-computed")
  std::string reason;            // the reason in words
  std::vector<int32_t> kernels;  // kernels involved, the main one first (Merge: {src, dst})
  std::string phase;             // "pass 1, region 2"
  StepDiff diff;
};

// Answer to "why are these two classes in different kernels".
struct Separation {
  bool sameKernel = false;
  int32_t step = -1;  // the deciding step, -1 when none applies
  std::string rule;
  std::string text;   // one or two sentences for people
};

struct FusionTrace {
  std::vector<FusionStep> steps;
  std::string error;        // empty when the kernelizer finished
  int32_t errorStep = -1;   // steps recorded before the error (the failing step's index)

  TraceState stateAfter(std::size_t n) const;  // diffs 0..n-1 applied to the empty state
  TraceState finalState() const { return stateAfter(steps.size()); }
  // With the graph, the answer names the store that cut the data path between the two classes;
  // without it, the step that split them or created the later one's kernel.
  Separation explainSeparation(ClassId a, ClassId b, const Graph* g = nullptr) const;

  std::string toJson(int indent = -1) const;
  static FusionTrace fromJson(const std::string& text);  // throws ks::Error(Parse)
};

std::string traceStateStr(const TraceState& s);  // "K3 {classes [4, 5] loads [1] stores [5] ops 6}\n..."

}  // namespace ks
