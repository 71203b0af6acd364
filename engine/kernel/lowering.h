// Lowering: an unlowered Kernel plus a Schedule becomes a LoweredKernel (indices, loops, loads,
// stores, accumulators, barriers). Index expressions are propagated from each Store back through
// the movement ops; one work-item computes one output element (or a tile of them) by default.
#pragma once
#include "engine/kernel/kernel.h"
#include "engine/kernel/lowered_kernel.h"
#include "engine/kernel/schedule.h"

namespace ks {

// Throws ks::Error (Unsupported) naming the reason when the schedule does not apply to the kernel
// (checkSchedule) or the kernel uses something lowering cannot express; (Invariant) when the
// kernel or the result fails verification.
LoweredKernel lowerKernel(const Kernel& k, const Schedule& s = {}, const DeviceLimits& limits = {});

}  // namespace ks
