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
  bool resident = false;  // an upload of a parameter already on the device: nothing moved
};

struct OutputValue {
  std::string name;
  HostTensor value;
  double min = 0, max = 0, mean = 0;
  bool verified = false;
  double maxAbsError = 0;  // against host, when verified
  std::string mismatch;    // first mismatch against host, empty when equal
};

// How much of a run the host check covered: every element, a sample of them, or none (the
// oracle's budget was spent before any element was checked).
enum class VerifyMode { Full, Sampled, Skipped };
const char* verifyModeName(VerifyMode m);  // "full", "sampled", "skipped"

struct RunRecord {
  std::vector<std::string> devices;
  std::vector<StepTiming> steps;
  // Time, as a caller waits for it: wall clock from binding the inputs to having the outputs in
  // host memory. Beside it, the device times (profiling events; wall for host GEMMs) of kernels
  // and of copies, outputs read back included. A cold run is a prepared plan's first.
  double totalNs = 0;
  double kernelNs = 0, copyNs = 0;
  bool cold = false;
  int64_t peakBytes = 0;
  std::vector<OutputValue> outputs;
  std::vector<OutputValue> updates;  // the new value of each updated param (name = the param's)
  int step = 0;                      // 0-based step of the session's params this run started from
  bool verified = false;      // a host check ran (see verifyMode for how much it covered)
  bool verifyPassed = true;   // no compared element differs from the host
  VerifyMode verifyMode = VerifyMode::Full;
  int64_t verifyChecked = 0, verifyTotal = 0;  // elements compared, elements of every result
  std::string verifyReason;                    // why sampled or skipped
  double verifyNs = 0;                         // wall time of the host check
  bool verifyMismatch() const { return verified && !verifyPassed; }
};

}  // namespace ks
