// What one execution of a plan records: per-step timings, output values, verification.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/host_tensor.h"

namespace ks {

// Per-launch timing of a run.
struct StepTiming {
  std::string label;
  std::string device;
  std::string kind;  // "launch", "copy", "gemm"
  double ns = 0;
  double gflops = 0, gbps = 0;
};

struct OutputValue {
  std::string name;
  HostTensor value;
  double min = 0, max = 0, mean = 0;
  bool verified = false;
  double maxAbsError = 0;  // against host, when verified
  std::string mismatch;    // first mismatch against host, empty when equal
};

struct RunRecord {
  std::vector<std::string> devices;
  std::vector<StepTiming> steps;
  double totalNs = 0;
  int64_t peakBytes = 0;
  std::vector<OutputValue> outputs;
  bool verified = false;
  bool verifyPassed = true;
};

}  // namespace ks
