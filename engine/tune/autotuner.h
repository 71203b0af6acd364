// The autotuner: for each fused kernel on one OpenCL device, enumerate schedules, build every
// candidate as one OpenCL program, time each (warm-up, repeats, median of device time), check each
// against the default schedule's result, keep every measurement with its status, and say why the
// search stopped. Finished searches go to the tuning cache, so a warm re-compile measures nothing.
#pragma once
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/progress.h"
#include "engine/devices/opencl_device.h"
#include "engine/kernel/schedule.h"
#include "engine/kernelizer/kernel_record.h"
#include "engine/tune/tune_search.h"
#include "engine/tune/tuning_cache.h"

namespace ks {

struct TuneBudget {
  int maxCandidates = 8;     // schedules measured per kernel and device
  double maxSeconds = 10.0;  // wall time per kernel and device (builds included)
  int warmup = 1;
  int repeats = 5;
  // Wall time per device for the whole program's searches beyond each kernel's first schedule
  // (builds included): every kernel gets its first schedule built and timed, then the kernels
  // searched further are the slowest first, until this runs out (infinite: all of them).
  double maxModelSeconds = std::numeric_limits<double>::infinity();
};
TuneBudget defaultBudget(TuneLevel level);
const char* tuneLevelName(TuneLevel level);  // "none", "quick", "full"

struct TunedKernel {
  Schedule schedule;
  double ns = 0;
  OpenCLKernel compiled;  // the winner, built and ready to launch
};

// Where one tuneDevice call appends what it did.
struct TuneRecords {
  std::vector<TuneMeasurement>& measurements;
  std::vector<TuneSearch>& searches;
  std::vector<std::string>& warnings;  // tuning-cache entries it could not use
};

class Autotuner {
 public:
  struct Settings {
    TuningCache& cache;
    TuneLevel level;
    TuneBudget budget;
  };
  Autotuner(TuningCache& cache, TuneLevel level, TuneBudget budget);

  // Tunes every kernel on one device in five phases: plan the work (duplicates, cached winners,
  // candidates that lower), build all candidates (with a fallback cascade that finds the ones that
  // fail), time and check each kernel's candidates, rebuild the winners as one program, and give
  // duplicates their twin's winner. Appends to `out` (device index `deviceIndex`); returns the
  // winner per kernel (nullopt when no schedule works: the reason is in the search's stop reason).
  // Throws Error(Cancelled) within ~200 ms of a cancel request.
  std::vector<std::optional<TunedKernel>> tuneDevice(const std::shared_ptr<OpenCLDevice>& device, uint32_t deviceIndex,
                                                     const std::vector<KernelRecord>& kernels, const Progress& progress,
                                                     TuneRecords& out);

 private:
  Settings settings_;
};

}  // namespace ks
