// The one cost model: what a kernel should cost on a device before anything is measured.
// Two parts share one set of device rates:
// - a roofline: FLOPs and bytes against the device's measured peaks, the floor no schedule beats
//   (rewrites cost candidate terms with it; "% of peak" is measured time against it);
// - a per-schedule estimate from the lowered kernel: how many work-items are in flight
//   (occupancy), the bytes each launch really moves (re-reads and uncoalesced accesses included),
//   the width of its loads, and the instruction slots its loops issue. The autotuner orders its
//   candidates by it, so the first few it measures are the likely winners.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/kernel/schedule.h"

namespace ks {

class Progress;

class Kernel;
struct DeviceInfo;
struct LoweredKernel;

// What the model knows about a device. Peaks come from device_peaks (measured); when a device was
// not measured, nominal figures for its kind stand in and `measured` is false.
struct DeviceRates {
  double gbs = 0;         // sustained copy bandwidth, GB/s (read + written bytes)
  double gflops = 0;      // FMA throughput, GFLOP/s
  double launchNs = 0;    // fixed cost of one launch (queue, ramp-up and drain of the grid)
  double latencyNs = 0;   // a memory access that misses every cache
  int64_t computeUnits = 1;
  int64_t itemsPerUnit = 1;  // work-items one compute unit keeps in flight (GPU: resident threads)
  bool gpu = false;
  bool measured = false;
};

// Rates from measured peaks (0 = not measured: nominal figures for the kind).
DeviceRates deviceRates(const DeviceLimits& limits, double peakGBs, double peakGflops);
// The same for a listed device. DeviceInfo does not say GPU or CPU: an OpenCL device that allows at
// most 1024 items per work-group and is not a PoCL pthread device counts as a GPU.
DeviceRates deviceRates(const DeviceInfo& d);

// The floor of a piece of work: max(FLOPs / peak FLOP rate, bytes / peak bandwidth) plus launches.
struct Roofline {
  double flops = 0, bytes = 0;
  double computeNs = 0, memoryNs = 0, launchNs = 0;
  double ns() const { return (computeNs > memoryNs ? computeNs : memoryNs) + launchNs; }
  bool memoryBound() const { return memoryNs >= computeNs; }
  // 100 * floor / measured (without the launch term): the "% of peak" a measurement reaches.
  double percentOfPeak(double measuredNs) const;
};
Roofline roofline(double flops, double bytes, const DeviceRates& d, int launches = 1);
Roofline roofline(const Kernel& k, const DeviceRates& d);  // the kernel's FLOPs and bytesMoved()

// The model's guess for one schedule of one kernel.
struct ScheduleEstimate {
  double ns = 0;          // predicted kernel time (every launch)
  double occupancy = 0;   // work-items in flight / what the device can keep in flight (<= 1)
  double bytes = 0;       // bytes the launches move through the memory system (L2 traffic on GPUs)
  int64_t vecWidth = 1;   // widest load or store the schedule issues
  std::string bound;      // the term that dominates: "memory", "cache", "issue", "latency", "launch"
};
ScheduleEstimate estimateLowered(const Kernel& k, const LoweredKernel& lk, const DeviceRates& d);
// Lowers `s` and estimates it; a schedule that does not lower gets an infinite time.
ScheduleEstimate estimateSchedule(const Kernel& k, const Schedule& s, const DeviceLimits& limits,
                                  const DeviceRates& d);

// `cands` ordered by predicted time, fastest first, the first candidate kept first (it is every
// search's reference result). Returns the estimates in the new order through `estimates`. Lowering
// every candidate of a large kernel takes a while, so `progress` (when given) is checked per candidate.
std::vector<Schedule> orderByModel(const Kernel& k, const std::vector<Schedule>& cands, const DeviceLimits& limits,
                                   const DeviceRates& d, std::vector<ScheduleEstimate>* estimates = nullptr,
                                   const Progress* progress = nullptr);

}  // namespace ks
