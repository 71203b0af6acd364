// One kernel made by the kernelizer: its unlowered IR plus the classes it reads, writes and computes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/node.h"
#include "engine/kernel/kernel.h"

namespace ks {

struct FusedKernel {
  int32_t id = -1;               // the kernel's id in the fusion trace (stable, never reused)
  Kernel kernel;                 // unlowered IR
  std::vector<ClassId> loads;    // parallel to kernel.readParams()
  std::vector<ClassId> stores;   // parallel to kernel.storeOps()
  std::vector<ClassId> classes;  // classes computed inside, in op order (what the GUI draws as a group)
  std::string phase;             // where it was made: "pass 1, region 2" (pass 2 kernels are per-device alternatives)
};

}  // namespace ks
