// Opening devices and measuring how fast values move between memory pools.
#include "engine/devices/device_runtime.h"

#include <chrono>
#include <vector>

namespace ks {

std::vector<uint32_t> memoryPools(const std::vector<DeviceInfo>& devices) {
  std::vector<uint32_t> pools;
  uint32_t next = 1;
  for (const DeviceInfo& d : devices) pools.push_back(d.kind == DeviceKind::OpenCL ? next++ : 0);
  return pools;
}

DeviceRuntime::DeviceRuntime(const std::vector<DeviceInfo>& devices) {
  poolOf_ = memoryPools(devices);
  opencl_.resize(devices.size());
  uint32_t maxPool = 0;
  for (uint32_t p : poolOf_) maxPool = std::max(maxPool, p);
  writeBytesPerNs_.assign(maxPool + 1, 1.0);
  readBytesPerNs_.assign(maxPool + 1, 1.0);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].kind != DeviceKind::OpenCL) continue;
    opencl_[i] = std::shared_ptr<OpenCLDevice>(OpenCLDevice::open(devices[i].platform, devices[i].index));
    // Transfer rates: one 16 MiB write and read after a warm-up.
    const std::size_t n = 16u << 20;
    std::vector<char> host(n, 1);
    OpenCLBuffer b = opencl_[i]->alloc(n);
    opencl_[i]->write(b, host.data(), n);
    auto t0 = std::chrono::steady_clock::now();
    opencl_[i]->write(b, host.data(), n);
    auto t1 = std::chrono::steady_clock::now();
    opencl_[i]->read(b, host.data(), n);
    auto t2 = std::chrono::steady_clock::now();
    const double w = std::chrono::duration<double, std::nano>(t1 - t0).count();
    const double r = std::chrono::duration<double, std::nano>(t2 - t1).count();
    writeBytesPerNs_[poolOf_[i]] = n / std::max(w, 1.0);
    readBytesPerNs_[poolOf_[i]] = n / std::max(r, 1.0);
  }
}

double DeviceRuntime::transferNs(uint32_t fromPool, uint32_t toPool, int64_t bytes) const {
  if (fromPool == toPool) return 0;
  const double b = static_cast<double>(bytes);
  double ns = 2000;  // fixed cost of an enqueue + wait, measured typical on PoCL
  if (fromPool != 0) ns += b / readBytesPerNs_.at(fromPool);
  if (toPool != 0) ns += b / writeBytesPerNs_.at(toPool);
  return ns;
}

uint32_t DeviceRuntime::deviceOfPool(uint32_t pool) const {
  for (std::size_t i = 0; i < poolOf_.size(); ++i)
    if (poolOf_[i] == pool && opencl_[i]) return static_cast<uint32_t>(i);
  return UINT32_MAX;
}

}  // namespace ks
