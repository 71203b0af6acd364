// How element indices travel through a kernel: flat <-> multi-dimensional indices and the operand
// element a movement op's result element reads. Shared by the lowering and the tiling analysis.
#pragma once
#include <vector>

#include "engine/kernel/kernel.h"
#include "engine/kernel/lowered_kernel.h"

namespace ks {

Idx flatIndex(const std::vector<Idx>& idx, const Shape& shape);
std::vector<Idx> unflatten(const Idx& flat, const Shape& shape);

// Schedules see an output as [B, M, N] over gridShape(S) (core/shape.h): its axes of size > 1.
// The coordinates in S of grid element (b, m, n): b flat over the leading grid axes, 0 on unit axes.
std::vector<Idx> outputIndex(const Shape& S, const Idx& b, const Idx& m, const Idx& n);

// The operand element that element `idx` of Move op `move` reads (its operand has shape `in`).
// A Pad adds to `padMask` the condition under which the element is real (else the fill value).
std::vector<Idx> moveSourceIndex(const KOp& move, const Shape& in, const std::vector<Idx>& idx, Mask& padMask);

}  // namespace ks
