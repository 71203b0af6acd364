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
  // Opens every OpenCL device of the selection. With zeroCopy, a host-visible device whose
  // buffers over host memory map in place (probed here) shares host memory: values pass between
  // it and host memory without a copy.
  explicit DeviceRuntime(const std::vector<DeviceInfo>& devices, bool zeroCopy = true);

  std::shared_ptr<OpenCLDevice> opencl(uint32_t device) const { return opencl_.at(device); }
  // Copy time between two memory pools for `bytes`: per pool and direction, a fixed cost measured
  // with a 4 KiB copy plus the bytes at the rate a 16 MiB one moved them; device to device is a
  // read and a write (through host memory, as the executor does it); 0 within a pool; between two
  // pools in host memory, the wait a zero-copy edge costs.
  double transferNs(uint32_t fromPool, uint32_t toPool, int64_t bytes) const;
  // The measured model, one clause per device pool ("pool 1: write 8.1 us + 3.20 GB/s, ...").
  std::string transferModel() const;
  // Whether a pool's memory is host memory (pool 0 always; an OpenCL pool when zero-copy holds).
  bool hostVisible(uint32_t pool) const { return pool < hostVisible_.size() && hostVisible_[pool]; }
  const std::vector<bool>& hostVisiblePools() const { return hostVisible_; }
  // A value moves from one pool to the other without a copy: both are host memory.
  bool zeroCopy(uint32_t fromPool, uint32_t toPool) const { return hostVisible(fromPool) && hostVisible(toPool); }
  uint32_t poolOf(uint32_t device) const { return poolOf_.at(device); }
  const std::vector<uint32_t>& pools() const { return poolOf_; }
  // The device that owns a pool's memory (pool 0, host memory, has none).
  uint32_t deviceOfPool(uint32_t pool) const;

  // Built winners: (kernel, device) -> program ready to launch.
  std::map<std::pair<uint32_t, uint32_t>, OpenCLKernel> compiled;

 private:
  std::vector<std::shared_ptr<OpenCLDevice>> opencl_;  // per device index; null for host/openblas
  std::vector<uint32_t> poolOf_;
  struct Transfer {
    double fixedNs = 2000, bytesPerNs = 1.0;
    double ns(double bytes) const { return fixedNs + bytes / bytesPerNs; }
  };
  void measureTransfers(OpenCLDevice& dev, uint32_t pool);
  std::vector<Transfer> write_, read_;  // per pool (pool 0 unused)
  std::vector<bool> hostVisible_;                         // per pool
  double zeroCopyNs_ = 0;  // waiting for a host-visible device's queue: what a zero-copy edge costs
};

// Pools of a device selection: host and openblas share host memory (pool 0); each OpenCL device
// has its own pool.
std::vector<uint32_t> memoryPools(const std::vector<DeviceInfo>& devices);

}  // namespace ks
