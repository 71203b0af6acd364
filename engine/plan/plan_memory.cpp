// Allocations of a prepared plan and the device views over host memory.
#include "engine/plan/plan_memory.h"

#include <algorithm>

#include "engine/core/alloc_error.h"
#include "engine/core/error.h"

namespace ks {

PlanMemory::PlanMemory(const ExecPlan& plan, DeviceRuntime& rt, const std::vector<bool>& bound,
                       const std::function<std::string(std::size_t)>& what) {
  const std::size_t n = plan.allocations.size();
  hostMemory_.assign(n, false);
  host_.resize(n);
  device_.resize(n);
  for (std::size_t a = 0; a < n; ++a) {
    const PlanAllocation& al = plan.allocations[a];
    hostMemory_[a] = rt.hostVisible(al.pool);
    if (bound.at(a)) continue;
    if (hostMemory_[a]) {
      try {
        host_[a].resize(static_cast<std::size_t>(al.bytes));
      } catch (const std::bad_alloc&) {
        throw Error(ErrorCode::Allocation, "cannot allocate " + bytesStr(al.bytes) + " of host memory for " + what(a), {}, "host");
      }
      continue;
    }
    const auto dev = rt.opencl(rt.deviceOfPool(al.pool));
    try {
      device_[a] = dev->alloc(static_cast<std::size_t>(std::max<int64_t>(al.bytes, 4)));
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Allocation) throw;
      throw Error(ErrorCode::Allocation, e.message() + " for " + what(a), e.where(), dev->info().id);
    }
  }
}

const OpenCLBuffer& PlanMemory::view(const std::shared_ptr<OpenCLDevice>& dev, std::byte* p, std::size_t bytes) {
  if (!p || bytes == 0) p = empty_, bytes = 0;
  const Key key{dev.get(), p, bytes};
  if (auto it = views_.find(key); it != views_.end()) return it->second;
  if (auto it = previous_.find(key); it != previous_.end()) return views_[key] = std::move(it->second);
  return views_[key] = dev->wrap(p, bytes);
}

void PlanMemory::beginRun() {
  previous_ = std::move(views_);
  views_.clear();
}

}  // namespace ks
