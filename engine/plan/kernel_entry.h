// What a Kernel node of the e-graph runs: a fused kernel compiled for a device under a schedule,
// or an AOT GEMM on the openblas device. Kernel nodes point here through Node::ref.
#pragma once
#include <cstdint>
#include <string>

#include "engine/devices/gemm_spec.h"

namespace ks {

struct KernelEntry {
  enum class Kind : uint8_t { Fused, Gemm } kind = Kind::Fused;
  uint32_t fused = 0;     // Fused: index of the fused kernel in the session
  uint32_t device = 0;    // device index in the session's device list
  std::string schedule;   // Fused: the winning schedule (Schedule::str())
  std::string scheduleJson;  // Fused: the same schedule as Schedule::toJson() text
  GemmSpec gemm;          // Gemm
  double timeNs = 0;      // measured median
  double flops = 0;
  int64_t bytes = 0;
};

}  // namespace ks
