// Measured peaks of a device (copy bandwidth and FMA/GEMM throughput), the yardstick for the
// "% of peak" of every timed step. Measured once per process and device, then remembered.
#pragma once
#include <vector>

#include "engine/devices/device_info.h"

namespace ks {

class OpenCLDevice;

struct DevicePeaks {
  double gbs = 0;     // GB/s (1e9 bytes) of a device-to-device copy, read + written bytes counted
  double gflops = 0;  // GFLOP/s: FMA chains (host, OpenCL) or a 512^3 sgemm (openblas)
};

// What each kind measures:
// - host: one thread (the reference executor is single-threaded): a 64 MiB memcpy and 16
//   independent float multiply-add chains;
// - opencl: a float4 copy kernel over 32 MiB and a kernel of 8 independent float16 mad chains per
//   work-item, grown until it runs >= 20 ms; best of three, device time from profiling events;
// - openblas: the memcpy figure and the median of a 512x512x512 cblas_sgemm.
// `device` is the opened OpenCL device when the caller has one (else it is opened here).
// Throws ks::Error (Device, Build) when an OpenCL device cannot run the probes.
DevicePeaks measurePeaks(const DeviceInfo& d, OpenCLDevice* device = nullptr);

// Sets peakGBs/peakGflops of every device (cached per process); a device whose probes fail
// keeps 0 ("not measured").
void fillPeaks(std::vector<DeviceInfo>& devices);

}  // namespace ks
