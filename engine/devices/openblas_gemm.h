// The `openblas` device: runs matched f32 GEMMs through cblas on host memory. AOT only: it joins
// a plan as a helper to the compiling devices and cannot run a program alone.
#pragma once
#include "engine/devices/gemm_spec.h"

namespace ks {

// C = op(A) x op(B) for every batch; all pointers are host memory, row-major.
void runGemm(const GemmSpec& s, const float* a, const float* b, float* c);
// Median wall time (ns) of `repeats` runs on scratch buffers filled with ones.
double timeGemm(const GemmSpec& s, int repeats = 5);
// Wall time of the same product through the plainest cblas_sgemm call, for benchmarks.
const char* openblasConfig();  // OpenBLAS build string
// Threads OpenBLAS runs GEMMs on: n > 0, or 0 for the count it started with (every core).
void setGemmThreads(int n);

}  // namespace ks
