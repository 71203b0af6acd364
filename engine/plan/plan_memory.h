// The memory of a prepared plan: per allocation, host bytes (host memory and every host-visible
// pool: aligned, so a host-visible device works in them in place) or a device buffer (a device
// with its own memory), and the device views (buffers over host memory) kernels take as
// arguments. Memory bound per run (inputs, parameters, outputs written where the caller gets them)
// gets its views from a cache that keeps what the last run used.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "engine/core/host_allocator.h"
#include "engine/devices/device_runtime.h"
#include "engine/plan/exec_plan.h"

namespace ks {

class PlanMemory {
 public:
  // Allocates every allocation but those in `bound` (their memory comes with each run). Throws
  // ks::Error (Allocation) naming the size and `what(allocation)`.
  PlanMemory(const ExecPlan& plan, DeviceRuntime& rt, const std::vector<bool>& bound,
             const std::function<std::string(std::size_t)>& what);

  bool hostMemory(uint32_t allocation) const { return hostMemory_.at(allocation); }
  std::byte* host(uint32_t allocation) { return host_.at(allocation).data(); }
  const OpenCLBuffer& device(uint32_t allocation) const { return device_.at(allocation); }

  // A buffer of `dev` over `bytes` of host memory at `p` (memory of an allocation, or bound to
  // this run). Wrapped once and kept while runs use it.
  const OpenCLBuffer& view(const std::shared_ptr<OpenCLDevice>& dev, std::byte* p, std::size_t bytes);
  // Views of bound memory not used since the previous call are released.
  void beginRun();

 private:
  using Key = std::tuple<OpenCLDevice*, const void*, std::size_t>;
  std::vector<bool> hostMemory_;
  std::vector<std::vector<std::byte, HostAllocator<std::byte>>> host_;
  std::vector<OpenCLBuffer> device_;
  std::map<Key, OpenCLBuffer> views_, previous_;
  alignas(kHostAlignment) std::byte empty_[kHostAlignment] = {};  // what a zero-byte value's view wraps
};

}  // namespace ks
