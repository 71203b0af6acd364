// Opening devices and measuring how fast values move between memory pools.
#include "engine/devices/device_runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/host_allocator.h"
#include "engine/core/median.h"

namespace ks {

std::vector<uint32_t> memoryPools(const std::vector<DeviceInfo>& devices) {
  std::vector<uint32_t> pools;
  uint32_t next = 1;
  for (const DeviceInfo& d : devices) pools.push_back(d.kind == DeviceKind::OpenCL ? next++ : 0);
  return pools;
}

namespace {
double nsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
}

// Whether a buffer over aligned host memory maps to those very bytes, and the median time of an
// idle queue's finish (the wait a zero-copy edge costs at run time).
bool probeZeroCopy(OpenCLDevice& dev, double& waitNs) {
  const std::size_t n = 1u << 20;
  void* host = hostAllocate(n);
  bool inPlace = false;
  try {
    OpenCLBuffer b = dev.wrap(host, n);
    inPlace = dev.mapsInPlace(b, host);
    std::vector<double> t;
    for (int i = 0; i < 7; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      dev.finish();
      t.push_back(nsSince(t0));
    }
    waitNs = median(std::move(t));
  } catch (const Error&) {
    inPlace = false;  // a driver that refuses host pointers copies instead
  }
  hostFree(host, n);
  return inPlace;
}
}  // namespace

DeviceRuntime::DeviceRuntime(const std::vector<DeviceInfo>& devices, bool zeroCopy) {
  poolOf_ = memoryPools(devices);
  opencl_.resize(devices.size());
  uint32_t maxPool = 0;
  for (uint32_t p : poolOf_) maxPool = std::max(maxPool, p);
  write_.assign(maxPool + 1, Transfer{});
  read_.assign(maxPool + 1, Transfer{});
  hostVisible_.assign(maxPool + 1, false);
  hostVisible_[0] = true;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].kind != DeviceKind::OpenCL) continue;
    opencl_[i] = std::shared_ptr<OpenCLDevice>(OpenCLDevice::open(devices[i].platform, devices[i].index));
    measureTransfers(*opencl_[i], poolOf_[i]);
    double waitNs = 0;
    if (zeroCopy && devices[i].hostVisible && probeZeroCopy(*opencl_[i], waitNs)) {
      hostVisible_[poolOf_[i]] = true;
      zeroCopyNs_ = std::max(zeroCopyNs_, waitNs);
    }
  }
}

// Two size classes per pool and direction: a 4 KiB copy gives the fixed cost (enqueue, wait,
// driver), a 16 MiB one the rate the bytes beyond it move at. Medians of 5 (3 for the large one),
// after a warm-up of each.
void DeviceRuntime::measureTransfers(OpenCLDevice& dev, uint32_t pool) {
  const std::size_t small = 4u << 10, large = 16u << 20;
  std::vector<char, HostAllocator<char>> host(large, 1);
  OpenCLBuffer b = dev.alloc(large);
  auto timed = [&](std::size_t n, int reps, bool write) {
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      if (write) dev.write(b, host.data(), n);
      else dev.read(b, host.data(), n);
      if (r) t.push_back(nsSince(t0));  // the first is the warm-up
    }
    return median(std::move(t));
  };
  for (const bool write : {true, false}) {
    const double fixed = timed(small, 5, write), big = timed(large, 3, write);
    Transfer& x = write ? write_[pool] : read_[pool];
    x.fixedNs = fixed;
    x.bytesPerNs = static_cast<double>(large - small) / std::max(big - fixed, 1.0);
  }
}

double DeviceRuntime::transferNs(uint32_t fromPool, uint32_t toPool, int64_t bytes) const {
  if (fromPool == toPool) return 0;
  if (zeroCopy(fromPool, toPool)) return zeroCopyNs_;
  const double b = static_cast<double>(bytes);
  double ns = 0;  // device to device passes through host memory: a read, then a write
  if (fromPool != 0) ns += read_.at(fromPool).ns(b);
  if (toPool != 0) ns += write_.at(toPool).ns(b);
  return ns;
}

std::string DeviceRuntime::transferModel() const {
  std::string s;
  char line[160];
  for (std::size_t p = 1; p < write_.size(); ++p) {
    if (hostVisible(static_cast<uint32_t>(p))) {
      std::snprintf(line, sizeof line, "%spool %zu: host memory (zero-copy, %.1f us wait)", s.empty() ? "" : "; ", p,
                    zeroCopyNs_ / 1e3);
    } else {
      std::snprintf(line, sizeof line, "%spool %zu: write %.1f us + %.2f GB/s, read %.1f us + %.2f GB/s", s.empty() ? "" : "; ",
                    p, write_[p].fixedNs / 1e3, write_[p].bytesPerNs, read_[p].fixedNs / 1e3, read_[p].bytesPerNs);
    }
    s += line;
  }
  return s;
}

uint32_t DeviceRuntime::deviceOfPool(uint32_t pool) const {
  for (std::size_t i = 0; i < poolOf_.size(); ++i)
    if (poolOf_[i] == pool && opencl_[i]) return static_cast<uint32_t>(i);
  return UINT32_MAX;
}

}  // namespace ks
