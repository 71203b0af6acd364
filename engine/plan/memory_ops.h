// The memory-ops stage: every tuned kernel joins the e-graph as a Kernel node on its device, and
// where an operand may be produced in another memory pool the node reads a ToDevice class instead:
// a copy whose cost is the measured transfer time (free when extraction picks a producer in the
// same pool). GEMMs read host memory, so they gain a version with copied operands where an operand
// may come from a device.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/kernelizer/kernel_record.h"
#include "engine/plan/kernel_entry.h"
#include "engine/plan/matmul_matcher.h"

namespace ks {

// Copy time between two memory pools for `bytes` (0 within a pool).
using TransferCost = std::function<double(uint32_t fromPool, uint32_t toPool, int64_t bytes)>;

struct MemoryOpsInput {
  // The GEMM entries first, one per match in match order (addGemmKernels made them and their
  // direct Kernel nodes), then one entry per tuned fused kernel and device, without nodes yet.
  const std::vector<KernelEntry>& entries;
  const std::vector<KernelRecord>& kernels;
  const std::vector<MatmulMatch>& matches;
  const std::vector<uint32_t>& poolOf;  // device index -> memory pool (0 = host memory)
  TransferCost transferNs;
};

// Adds the fused entries' Kernel nodes, the ToDevice classes they read, and the GEMMs' versions
// with copied operands.
void insertMemoryOps(Graph& g, const MemoryOpsInput& in);

}  // namespace ks
