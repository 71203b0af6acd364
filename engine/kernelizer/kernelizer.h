// The kernelizer: fuses the structural classes of a graph into kernels (the seed's fill_gaps +
// kernelize) and records every decision as a FusionStep.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/core/error.h"
#include "engine/graph/graph.h"
#include "engine/kernelizer/fused_kernel.h"
#include "engine/kernelizer/fusion_trace.h"

namespace ks {

struct KernelizeResult {
  std::vector<FusedKernel> kernels;  // ascending trace id; AOT kernels are not among them
  FusionTrace trace;
  std::optional<Error> error;  // set when the kernelizer stopped early; the trace is kept up to there
};

// Fuses every structural class on the paths to `outputs` into kernels. Classes that hold a Kernel
// node (AOT kernels) are region boundaries: pass 1 takes all of them as boundaries, pass 2 (only
// when they run on more than one device) once per device. Kernelizer failures (an invariant
// violated, an unsupported node) come back in `error`, never as an exception or an abort.
KernelizeResult kernelize(const Graph& g, const std::vector<ClassId>& outputs);

// The algorithm, one method per concept of the seed. Invariants kept after every class (checked,
// a violation is an Error(Invariant) naming the step):
//  1. output count: the copies of class c across all kernels' outputs == rc[c], in one kernel;
//  2. visited residency: a produced class with rc > 0 is in `visited`, pointing at that kernel;
//  3. no kernel loads a class it stores; loads/stores are parallel to Read params/Store ops;
//     every kernel passes verifyKernel;
//  4. at the end of a region: all rc are 0, visited is empty and every kernel ends with a store.
// Constants (and elementwise expressions of constants only) are replayed into each consumer's
// kernel, never materialized, except when requested as an output.
class Kernelizer {
 public:
  explicit Kernelizer(const Graph& g) : g_(g) {}
  KernelizeResult run(const std::vector<ClassId>& requested);

 private:
  struct Slot {
    int32_t kid = -1;
    int32_t op = -1;
  };
  struct Work {
    Kernel k;
    std::vector<ClassId> opClass;  // parallel to k.ops: the class an op computes (invalid: loads, stores, replays)
    std::vector<ClassId> loads, stores;
    std::vector<ClassId> outputs;  // one copy per remaining consumer
    std::string phase;             // pass and region that created it
  };
  struct Why {
    std::string rule;
    std::string reason;
  };

  // fill_gaps: splits the structural classes between producer boundaries (leaves + activeAot)
  // into connected regions and kernelizes each with its own inputs and outputs.
  void fillGaps(const std::vector<ClassId>& activeAot, const std::vector<ClassId>& outputs, const std::string& pass);
  // The seed's kernelize over one region.
  void kernelizeRegion(const std::unordered_set<ClassId>& inputs, const std::vector<ClassId>& outputs,
                       const std::unordered_set<ClassId>& allowed);
  void processClass(ClassId c);
  void storeIfAot(ClassId c);
  // After a region: a reduce kernel whose only stored value is loaded only by one kernel is
  // inlined into it when the result is a row kernel (softmax, layer norm: one pass per row).
  void fuseRowNormalizations();
  bool inlineProducer(int32_t producer, int32_t consumer, ClassId c);
  void storeIfOutput(ClassId c);

  // Arms.
  void elementwise(ClassId c, const Node& n);
  void reduce(ClassId c, const Node& n);
  void addMove(ClassId c, const Node& n);
  void contiguous(ClassId c, const Node& n);
  void toDevice(ClassId c, const Node& n);

  // Building blocks.
  Slot newLoadKernel(ClassId c, uint32_t rc, FusionAction action, const Why& why);
  Slot freshReplayKernel(ClassId x);
  Slot addStore(ClassId c, Slot s, const Why& why);
  void mergeKernels(int32_t src, int32_t dst, const Why& why);
  Slot duplicateOrStore(ClassId child, Slot s, bool forceStore, const Why& forceWhy);
  Slot duplicateChain(ClassId child, Slot s);
  static Work subsetOf(const Work& w, const std::vector<bool>& keep, std::vector<int32_t>& map);
  void consume(ClassId c, int32_t kid);
  void pushOutputs(int32_t kid, ClassId c, uint32_t n);
  int32_t replay(int32_t kid, ClassId c);
  bool isReplayable(ClassId c);
  bool hasKernelNode(ClassId c) const;

  // Kernel storage: every mutation goes through mut() so the trace sees it.
  int32_t newKernel();
  void removeKernel(int32_t kid);
  const Work& get(int32_t kid) const;
  Work& mut(int32_t kid);
  void label(Work& w, ClassId c) const { w.opClass.resize(w.k.size(), c); }
  KernelState stateOf(const Work& w) const;

  // Trace and checks.
  void record(FusionAction a, const Why& why, std::vector<int32_t> kernels, ClassId subject = {});
  void checkInvariants();
  void checkRegionEnd();
  void checkLoadsProduced();
  [[noreturn]] void fail(const std::string& invariant, const std::string& detail) const;
  std::string cls(ClassId c) const { return "%" + std::to_string(c.v); }

  const Graph& g_;
  std::map<int32_t, Work> kernels_;
  int32_t nextId_ = 0;
  std::set<int32_t> dirty_;       // changed since the last recorded step
  std::set<int32_t> unchecked_;   // changed since the last invariant check
  TraceState lastState_;
  FusionTrace trace_;
  std::string phase_;
  ClassId cur_;
  std::string curLabel_;

  // Per region.
  const std::unordered_set<ClassId>* inputs_ = nullptr;
  std::unordered_set<ClassId> outputSet_;
  std::unordered_map<ClassId, uint32_t> rcs_;
  std::unordered_map<ClassId, Slot> visited_;
  std::unordered_map<ClassId, bool> replayable_;
  std::vector<ClassId> processed_;
};

}  // namespace ks
