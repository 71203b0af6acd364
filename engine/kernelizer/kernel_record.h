// The kernels a compile works on: each unique fused kernel the kernelizer passes produced.
#pragma once
#include <cstdint>
#include <string>

#include "engine/kernelizer/fused_kernel.h"

namespace ks {

// One unique fused kernel (kernelizer passes can produce the same kernel twice; it is kept once).
struct KernelRecord {
  FusedKernel fused;
  std::string name;   // "k3 exp_mul_sum"
  double flops = 0;
  int64_t bytes = 0;
  int pass = 0;       // 0: kernelized without AOT boundaries; 1: between AOT kernels
};

}  // namespace ks
