// A schedule: how one fused kernel's output grid and reduce loops map onto OpenCL work-groups and
// work-items. The autotuner searches over these; every schedule computes the same values.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ks {

class Kernel;

// What a device allows; enumerateSchedules only proposes schedules that fit.
struct DeviceLimits {
  int64_t maxWorkGroupSize = 256;
  int64_t localMemBytes = 32 * 1024;
  int64_t computeUnits = 1;
  bool fp64 = true;
  bool gpu = false;  // enumerate GPU-sized cooperative reductions (PoCL 3.1 compiles 256-item
                     // barrier trees for minutes; a GPU needs them)
};

enum class TuneLevel : uint8_t { None, Quick, Full };

// The output of a kernel is viewed as [B, M, N] (N = last axis, M = the one before, B = the rest).
// Defaults (all 1 / 0) are "one work-item per output element, driver-chosen work-group".
struct Schedule {
  int64_t wgN = 0, wgM = 1;    // work-group shape along N and M; wgN = 0 lets the driver choose
  int64_t tileM = 1, tileN = 1;  // per-item output tile (register blocking)
  int64_t vec = 1;             // vector width for loads/stores that are provably contiguous
  int64_t unroll = 1;          // reduce-loop unroll (lanes along the reduced axis)
  bool splitAcc = false;       // unrolled lanes keep separate accumulators (summed at the end)
  int64_t localReduce = 1;     // work-items of a group cooperating on one reduction (local memory)
  int64_t groupSplit = 1;      // work-groups per reduction: partials + a second pass
  int64_t localTileK = 0;      // > 0: the reduce's operands are staged in local memory in blocks of
                               // this many reduced elements (matmul-like kernels; local_tiling.h)
  int64_t rowItems = 0;        // > 0: one work-group of this many items per output row, every reduce
                               // constant along the row computed once by the group (row_plan.h)
  bool rowLoop = false;        // a row schedule whose items loop over the row in runs of `vec`
                               // (`unroll` runs per iteration) instead of holding it in registers

  bool operator==(const Schedule&) const = default;
  std::string str() const;  // "wg=16x4 tile=4x4 vec=4 unroll=4" (defaults omitted; "default")
  nlohmann::json toJson() const;
  // Throw Error(Parse) naming the bad key (and, from text, what the JSON parser met).
  static Schedule fromJson(const nlohmann::json& j);
  static Schedule fromJsonText(const std::string& text);
};

// The row schedule the default stands in for: a row kernel's plain default recomputes each row
// reduce once per element. `nullopt` when the kernel is no row kernel or no row schedule fits.
std::optional<Schedule> rowSchedule(const Kernel& k, const DeviceLimits& limits);

// Why a schedule cannot apply to a kernel on a device, or "" when it can.
std::string checkSchedule(const Kernel& k, const Schedule& s, const DeviceLimits& limits);

// The valid candidates, the reference first (the default, or for a row kernel its row schedule):
// None gives only that one; Quick a handful; Full dozens (at least 16 for a matmul-like kernel).
std::vector<Schedule> enumerateSchedules(const Kernel& k, const DeviceLimits& limits, TuneLevel level);

// Facts about a kernel's primary output that schedules depend on.
struct KernelGridInfo {
  int32_t primaryStore = -1;   // op index of the store that sets the grid (largest, first)
  int64_t B = 1, M = 1, N = 1;  // the primary value's shape viewed as [B, M, N]
  int32_t topReduce = -1;      // the only reduce computed at output level, or -1 (none / several)
  int64_t reduceLen = 0;       // its reduced length
  int topReduceCount = 0;      // reduces computed at output level (not nested in another reduce)
  bool sameShapeStores = true;  // every store has the primary's shape
};
KernelGridInfo kernelGridInfo(const Kernel& k);

}  // namespace ks
