// OpenCL C emitter: a LoweredKernel becomes source text, one __kernel function per launch.
// Many kernels can share one program (a PoCL build costs about a second): emit the prelude once,
// then each kernel with its own name prefix.
#pragma once
#include <string>

#include "engine/kernel/lowered_kernel.h"

namespace ks {

// Helper functions every emitted kernel uses (NaN-propagating max/min, Python-style mod, integer
// pow, f16 rounding); fp64 enables cl_khr_fp64 and the double helpers.
std::string openclPrelude(bool fp64);

// The __kernel functions of `k`, named openclKernelName(prefix, i) for launch i.
std::string emitOpenCLKernels(const LoweredKernel& k, const std::string& prefix);
std::string openclKernelName(const std::string& prefix, std::size_t launch);

// Prelude plus kernels: the complete source of one kernel, as the GUI shows it.
std::string emitOpenCL(const LoweredKernel& k, const std::string& prefix = "ks");

// Build options: OpenCL C 1.2, IEEE semantics kept (no fast/finite math).
std::string openclBuildOptions();

// Changes whenever the code generated for a schedule changes (lowering or emission): timings in a
// tuning cache made by another version are stale, so the cache keys include it.
inline constexpr int kCodegenVersion = 4;

}  // namespace ks
