// Local-memory tiling of matmul-like kernels: which Read params under the output-level reduce can
// be staged block by block in local memory. A staged operand reads elements that depend on the
// reduced index r and on exactly one output axis (m or n), through movement ops without padding:
// a work-group then loads a [BM x Kt] or [Kt x BN] block once and every item reads it from there.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/kernel/kernel.h"
#include "engine/kernel/lowered_kernel.h"

namespace ks {

struct StagedOperand {
  int32_t param = -1;  // the Param op
  bool rows = true;    // indexed by (m, r): a BM x Kt block (kept K-major, [Kt][BM]); otherwise by (r, n): [Kt][BN]
};

struct LocalTilePlan {
  int32_t reduce = -1;                  // the output-level Reduce whose operands are staged
  std::vector<StagedOperand> operands;  // empty when nothing can be staged
  std::string why;                      // why nothing can be staged ("" when something can)
};

LocalTilePlan planLocalTiles(const Kernel& k);

// The index (in the param's own shape) that Param `param` is read at when the reduce operand's
// element `idx` is computed; empty when `param` is not read below `reduceOperand`.
std::vector<Idx> stagedParamIndex(const Kernel& k, int32_t reduceOperand, int32_t param, const std::vector<Idx>& idx);

}  // namespace ks
