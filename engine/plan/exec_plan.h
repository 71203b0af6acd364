// ExecPlan: the extracted producers as an ordered list of launches and copies over buffers, with
// buffers reused once their lifetimes end, and the memory it needs per pool.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/plan/extractor.h"
#include "engine/plan/kernel_entry.h"

namespace ks {

struct PlanBuffer {
  ClassId cls;             // the value it holds
  uint32_t pool = 0;       // memory pool (0 = host memory)
  int64_t bytes = 0;
  int firstStep = -1;      // step that writes it (-1: a bound leaf)
  int lastStep = -1;       // last step that reads it (outputs live to the end)
  bool leaf = false;       // a bound input/parameter/constant in host memory
  bool output = false;
  uint32_t allocation = 0; // physical allocation it lives in (shared by buffers with disjoint lifetimes)
  // The buffer whose memory this one is (-1: its own): the destination of a zero-copy step sees
  // its source's bytes in place. Always a root (itself without an alias).
  int alias = -1;
};

struct PlanAllocation {
  uint32_t pool = 0;
  int64_t bytes = 0;
};

struct PlanStep {
  enum class Kind : uint8_t { Launch, Copy } kind = Kind::Launch;
  NodeId node;                    // the chosen e-node
  uint32_t device = 0;            // Launch: device; Copy: destination device
  uint32_t kernel = 0;            // Launch: index into the kernel entries (Node::ref)
  std::vector<uint32_t> inputs;   // buffer indices, in the kernel's load order
  std::vector<uint32_t> outputs;  // buffer indices, in the kernel's store order
  std::string label;              // "exp_mul_sum on opencl:0:0", "copy %12 host -> opencl:0:0"
  // A copy between two pools in host memory: nothing moves, the destination aliases the source
  // (the executor only orders the devices' accesses).
  bool zeroCopy = false;
};

struct ExecPlan {
  uint64_t key = 0;  // graph cache key + device selection
  std::vector<PlanStep> steps;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanAllocation> allocations;
  std::vector<std::pair<ClassId, uint32_t>> outputs;  // output class -> buffer
  std::vector<int64_t> peakBytes;  // per pool: sum of slot sizes (allocations are allocated up front)
  int64_t bytesWithoutReuse = 0;   // sum over non-leaf buffers
  int64_t bytesSaved = 0;          // bytesWithoutReuse - allocated bytes
  double predictedNs = 0;          // the extraction's DAG cost
  std::string describe() const;    // one line per step
};

// The buffer whose memory `b` is (itself, or the source of its zero-copy step).
inline uint32_t rootBuffer(const ExecPlan& plan, uint32_t b) {
  const int a = plan.buffers.at(b).alias;
  return a < 0 ? b : static_cast<uint32_t>(a);
}

// Whether a copy step uploads a parameter or constant from host memory: a prepared plan keeps
// its destination resident, so that buffer is never shared with another value.
bool uploadsResidentLeaf(const Graph& g, const ExecPlan& plan, const PlanStep& step);

// Buffer id of a leaf (bound host tensor) or a produced value per (class, pool).
ExecPlan buildPlan(const Graph& g, const std::vector<ClassId>& outputs, const Extraction& ex,
                   const std::vector<KernelEntry>& kernels, const ExtractionDevices& devices,
                   const std::vector<std::string>& deviceNames);

}  // namespace ks
