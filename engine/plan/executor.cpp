// Running a plan: allocations per pool, copies between pools, fused kernels and GEMMs.
#include "engine/plan/executor.h"

#include <chrono>
#include <cstring>

#include "engine/core/error.h"
#include "engine/devices/openblas_gemm.h"

namespace ks {

namespace {
using Clock = std::chrono::steady_clock;

// Memory of one plan allocation: host bytes (pool 0) or a device buffer.
struct Memory {
  std::vector<std::byte> host;
  OpenCLBuffer device;
};
}  // namespace

std::vector<HostTensor> executePlan(const ExecutionInput& in, DeviceRuntime& rt, const Progress& progress,
                                    RunRecord& record) {
  const ExecPlan& plan = in.plan;
  // Allocate every allocation up front (the plan's peak), with a clear error on failure.
  std::vector<Memory> mem(plan.allocations.size());
  for (std::size_t a = 0; a < plan.allocations.size(); ++a) {
    const PlanAllocation& al = plan.allocations[a];
    if (al.pool == 0) {
      try {
        mem[a].host.resize(static_cast<std::size_t>(al.bytes));
      } catch (const std::bad_alloc&) {
        throw Error(ErrorCode::Allocation, "cannot allocate " + std::to_string(al.bytes) + " bytes of host memory");
      }
    } else {
      mem[a].device = rt.opencl(rt.deviceOfPool(al.pool))->alloc(static_cast<std::size_t>(std::max<int64_t>(al.bytes, 4)));
    }
  }
  auto hostPtr = [&](uint32_t b) -> std::byte* {
    const PlanBuffer& pb = plan.buffers[b];
    if (pb.leaf) {
      const Node& n = in.graph.structural(pb.cls);
      return const_cast<std::byte*>(in.leaves.at(n.ref).bytes());
    }
    return mem[pb.allocation].host.data();
  };
  auto deviceBuf = [&](uint32_t b) -> const OpenCLBuffer& {
    const PlanBuffer& pb = plan.buffers[b];
    if (pb.leaf || pb.pool == 0) throw Error(ErrorCode::Internal, "plan: a device kernel reads host memory directly");
    return mem[pb.allocation].device;
  };

  record.peakBytes = 0;
  for (int64_t p : plan.peakBytes) record.peakBytes += p;
  record.totalNs = 0;
  for (std::size_t si = 0; si < plan.steps.size(); ++si) {
    progress.check("execution");
    progress.report(static_cast<double>(si) / plan.steps.size(), plan.steps[si].label);
    const PlanStep& s = plan.steps[si];
    StepTiming t;
    t.label = s.label;
    t.device = in.devices.at(s.device).name;
    if (s.kind == PlanStep::Kind::Copy) {
      t.kind = "copy";
      const PlanBuffer& src = plan.buffers[s.inputs[0]];
      const PlanBuffer& dst = plan.buffers[s.outputs[0]];
      const std::size_t bytes = static_cast<std::size_t>(src.bytes);
      const auto t0 = Clock::now();
      if (src.pool == 0 && dst.pool != 0) {
        rt.opencl(rt.deviceOfPool(dst.pool))->write(deviceBuf(s.outputs[0]), hostPtr(s.inputs[0]), bytes);
      } else if (src.pool != 0 && dst.pool == 0) {
        rt.opencl(rt.deviceOfPool(src.pool))->read(deviceBuf(s.inputs[0]), hostPtr(s.outputs[0]), bytes);
      } else {
        std::vector<std::byte> staging(bytes);
        rt.opencl(rt.deviceOfPool(src.pool))->read(deviceBuf(s.inputs[0]), staging.data(), bytes);
        rt.opencl(rt.deviceOfPool(dst.pool))->write(deviceBuf(s.outputs[0]), staging.data(), bytes);
      }
      t.ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
      t.gbps = static_cast<double>(bytes) / std::max(t.ns, 1.0);
    } else {
      const KernelEntry& e = in.entries.at(s.kernel);
      if (e.kind == KernelEntry::Kind::Gemm) {
        t.kind = "gemm";
        const auto t0 = Clock::now();
        runGemm(e.gemm, reinterpret_cast<const float*>(hostPtr(s.inputs[0])),
                reinterpret_cast<const float*>(hostPtr(s.inputs[1])), reinterpret_cast<float*>(hostPtr(s.outputs[0])));
        t.ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
      } else {
        t.kind = "launch";
        bool empty = true;
        for (uint32_t o : s.outputs) empty = empty && plan.buffers[o].bytes == 0;
        if (empty) {  // zero-element values: nothing to launch
          record.steps.push_back(std::move(t));
          continue;
        }
        auto it = rt.compiled.find({e.fused, e.device});
        if (it == rt.compiled.end())
          throw Error(ErrorCode::Internal, "kernel k" + std::to_string(e.fused) + " was not built for " + t.device);
        // Arguments in param order: Read params take the loads in order, ReadWrite params the
        // stores of the Store ops that write them.
        const Kernel& k = in.kernels.at(e.fused).fused.kernel;
        std::vector<OpenCLBuffer> args;
        std::size_t readIndex = 0;
        const std::vector<int32_t> stores = k.storeOps();
        for (int32_t p : k.params()) {
          if (k.at(p).paramKind() == ParamKind::Read) {
            args.push_back(deviceBuf(s.inputs.at(readIndex++)));
            continue;
          }
          std::size_t si2 = 0;
          while (si2 < stores.size() && k.at(stores[si2]).src[0] != p) ++si2;
          if (si2 == stores.size()) throw Error(ErrorCode::Internal, "kernel param without a store");
          args.push_back(deviceBuf(s.outputs.at(si2)));
        }
        auto dev = rt.opencl(e.device);
        t.ns = static_cast<double>(dev->run(it->second, args));
      }
      t.gflops = e.flops / std::max(t.ns, 1.0);
      t.gbps = static_cast<double>(e.bytes) / std::max(t.ns, 1.0);
    }
    record.totalNs += t.ns;
    record.steps.push_back(std::move(t));
  }
  // Outputs back to host tensors.
  std::vector<HostTensor> outs;
  for (auto& [cls, b] : plan.outputs) {
    HostTensor h(in.graph.dtype(cls), in.graph.shape(cls));
    const PlanBuffer& pb = plan.buffers[b];
    if (pb.leaf || pb.pool == 0) std::memcpy(h.bytes(), hostPtr(b), h.byteSize());
    else rt.opencl(rt.deviceOfPool(pb.pool))->read(deviceBuf(b), h.bytes(), h.byteSize());
    outs.push_back(std::move(h));
  }
  return outs;
}

}  // namespace ks
