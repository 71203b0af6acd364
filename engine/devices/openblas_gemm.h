// The `openblas` device: runs matched f32 GEMMs through cblas on host memory. AOT only: it joins
// a plan as a helper to the compiling devices and cannot run a program alone.
#pragma once
#include "engine/devices/gemm_gather.h"
#include "engine/devices/gemm_spec.h"

namespace ks {

// C = op(A) x op(B) for every batch; all pointers are host memory, row-major.
void runGemm(const GemmSpec& s, const float* a, const float* b, float* c);
// The same with an operand gathered (ga for A, gb for B; null: read in place): batch by batch,
// the gathered operand's packed matrix is written to its scratch (one batch of floats), then
// multiplied. a and b are then the gathers' sources. A product of at most kDirectGatherRows rows
// with a gathered B (a depthwise or few-filter convolution) skips packing B and OpenBLAS: it
// multiplies straight from B's source.
constexpr int64_t kDirectGatherRows = 4;
// Whether runGemm may multiply straight from a gathered B: it does once B is prepared
// (prepareProduct(s.k)); an unprepared B is packed and multiplied by OpenBLAS.
inline bool multipliesDirectly(const GemmSpec& s, bool gatheredB) { return gatheredB && !s.transB && s.m <= kDirectGatherRows; }
void runGemm(const GemmSpec& s, const GemmGather* ga, const GemmGather* gb, const float* a, const float* b, float* c,
             float* scratchA, float* scratchB);
// Median wall time (ns) of `repeats` runs on scratch buffers filled with ones, gathers included.
double timeGemm(const GemmSpec& s, int repeats = 5, const GemmGather* ga = nullptr, const GemmGather* gb = nullptr);
const char* openblasConfig();  // OpenBLAS build string
// Threads OpenBLAS runs GEMMs on: n > 0, or 0 for the count it started with (every core).
void setGemmThreads(int n);

}  // namespace ks
