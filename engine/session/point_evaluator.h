// A per-element reference: the value of one element of a class, computed by walking the
// structural nodes back to the leaves for that element alone. It follows HostExecutor's semantics
// (host_executor.h) with the scalar ops of the kernel interpreter, so a device result too large
// for the whole-tensor oracle can still be checked at a sample of its elements.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "engine/core/host_tensor.h"
#include "engine/graph/graph.h"
#include "engine/kernel/interpreter.h"

namespace ks {

class PointEvaluator {
 public:
  // `workBudget`: node visits allowed over the evaluator's lifetime; past it at() throws
  // ks::Error (Cancelled) so a sample that would take too long stops instead of hanging.
  PointEvaluator(const Graph& graph, const std::vector<HostTensor>& leaves, int64_t workBudget);

  // Element `flat` (row-major) of class c, with c's dtype. Throws ks::Error (Unsupported) for a
  // Kernel-only class or a Bitcast, (Usage) for a missing leaf.
  KVal at(ClassId c, int64_t flat);
  int64_t work() const { return work_; }

 private:
  KVal eval(ClassId c, int64_t flat);
  KVal leaf(const Node& n, int64_t flat);
  KVal reduce(const Node& n, ClassId c, int64_t flat);

  const Graph& g_;
  const std::vector<HostTensor>& leaves_;
  int64_t budget_, work_ = 0;
  // Values already computed, keyed by class and element: a softmax row's max and sum are shared
  // by every element of the row. Cleared when it grows past a bound (memory stays small).
  std::unordered_map<uint64_t, KVal> memo_;
};

// Estimated element operations of running `outputs` through HostExecutor: the elements of each
// value it computes (views, leaves and a product fused into its sum cost nothing) and a quarter
// per operand element a reduction reads. A guess for budgeting, not a measurement.
double hostOracleWork(const Graph& graph, const std::vector<ClassId>& outputs);

// The deterministic sample of elements checked out of `numel`: `count` evenly spread indices,
// the first and the last included (every index when numel <= count).
std::vector<int64_t> sampleIndices(int64_t numel, int64_t count);

}  // namespace ks
