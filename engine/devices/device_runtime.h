// The live side of a session: opened OpenCL devices, the built winners, the measured transfer
// rates. A session loaded from a file has none and cannot run.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/devices/device_info.h"
#include "engine/devices/opencl_device.h"

namespace ks {

class DeviceRuntime {
 public:
  // Opens every OpenCL device of the selection.
  explicit DeviceRuntime(const std::vector<DeviceInfo>& devices);

  std::shared_ptr<OpenCLDevice> opencl(uint32_t device) const { return opencl_.at(device); }
  // Copy time between two memory pools for `bytes` (measured once per device: a 16 MiB write
  // and read); 0 within a pool.
  double transferNs(uint32_t fromPool, uint32_t toPool, int64_t bytes) const;
  uint32_t poolOf(uint32_t device) const { return poolOf_.at(device); }
  const std::vector<uint32_t>& pools() const { return poolOf_; }
  // The device that owns a pool's memory (pool 0, host memory, has none).
  uint32_t deviceOfPool(uint32_t pool) const;

  // Built winners: (kernel, device) -> program ready to launch.
  std::map<std::pair<uint32_t, uint32_t>, OpenCLKernel> compiled;

 private:
  std::vector<std::shared_ptr<OpenCLDevice>> opencl_;  // per device index; null for host/openblas
  std::vector<uint32_t> poolOf_;
  std::vector<double> writeBytesPerNs_, readBytesPerNs_;  // per pool (pool 0 unused)
};

// Pools of a device selection: host and openblas share host memory (pool 0); each OpenCL device
// has its own pool.
std::vector<uint32_t> memoryPools(const std::vector<DeviceInfo>& devices);

}  // namespace ks
