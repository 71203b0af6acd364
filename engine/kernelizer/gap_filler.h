// fill_gaps' region finding: the connected structural regions between producer boundaries
// (leaves and active AOT kernel outputs), each kernelized on its own.
#pragma once
#include <vector>

#include "engine/graph/graph.h"

namespace ks {

struct GapRegion {
  std::vector<ClassId> classes;  // structural classes of the region, in dependency order
  std::vector<ClassId> inputs;   // producer boundaries its classes read (loaded, never fused into)
  std::vector<ClassId> outputs;  // requested outputs and inputs of active AOT kernels among its classes
  std::vector<ClassId> allowed;  // classes the region's kernelize may visit (classes, inputs, constants)
};

// Regions with at least one output, in dependency order of their first class. Union-find joins
// classes linked by a structural operand edge; constant expressions join no region (consumers
// replay them), except a constant that is itself an output, which gets a region of its own.
std::vector<GapRegion> findGapRegions(const Graph& g, const std::vector<ClassId>& activeAot,
                                      const std::vector<ClassId>& outputs);

}  // namespace ks
