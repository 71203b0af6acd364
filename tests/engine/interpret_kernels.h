// Runs a kernelizer's fused kernels on the IR interpreter, kernel after kernel, for tests that
// check kernels against an oracle without a device.
#pragma once
#include <algorithm>
#include <map>
#include <vector>

#include "engine/core/error.h"
#include "engine/kernel/interpreter.h"
#include "engine/kernel/lowering.h"
#include "engine/kernelizer/fused_kernel.h"

namespace ks {

// Runs the kernels in dependency order (a kernel runs once every class it loads is in memory), each
// reading the leaves and what earlier kernels stored, unlowered or lowered under the schedule
// --tune none picks, and returns the values of `outputs`. Throws ks::Error when a kernel fails or
// no kernel stores an output.
inline std::vector<HostTensor> interpretKernels(const Graph& g, const std::vector<FusedKernel>& kernels, const std::vector<ClassId>& outputs,
                                         const std::vector<HostTensor>& leaves, bool lowered) {
  std::map<uint32_t, HostTensor> value;  // class -> its value
  for (uint32_t l = 0; l < g.leaves().size(); ++l) value[g.leafClass(l).v] = leaves[l];
  std::vector<bool> done(kernels.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
      const FusedKernel& f = kernels[ki];
      bool ready = !done[ki];
      for (ClassId l : f.loads) ready = ready && value.count(l.v);
      if (!ready) continue;
      std::vector<HostTensor> buffers;
      std::size_t load = 0, store = 0;
      for (int32_t p : f.kernel.params()) {
        const KOp& op = f.kernel.at(p);
        if (op.paramKind() == ParamKind::Read) buffers.push_back(value.at(f.loads.at(load++).v).reshaped({numel(op.shape)}));
        else if (op.paramKind() == ParamKind::ReadWrite) buffers.push_back(HostTensor(op.dtype, {numel(op.shape)}));
        else throw Error(ErrorCode::Unsupported, "kernel with a scalar parameter");
      }
      bool empty = true;  // zero-element stores: nothing is launched (the autotuner's rule too)
      for (ClassId c : f.stores) empty = empty && numel(g.shape(c)) == 0;
      if (!empty && lowered) {
        // The schedule --tune none runs (the plain default does not apply to every grid).
        const std::vector<Schedule> first = enumerateSchedules(f.kernel, DeviceLimits{}, TuneLevel::None);
        runLowered(lowerKernel(f.kernel, first.empty() ? Schedule{} : first.front(), DeviceLimits{}), buffers);
      } else if (!empty) {
        runKernel(f.kernel, buffers);
      }
      // Store i writes the ReadWrite param its Store op names.
      const std::vector<int32_t> params = f.kernel.params();
      for (int32_t s : f.kernel.storeOps()) {
        const auto slot = static_cast<std::size_t>(std::find(params.begin(), params.end(), f.kernel.at(s).src[0]) - params.begin());
        const ClassId c = f.stores.at(store++);
        value[c.v] = buffers[slot].reshaped(g.shape(c));
      }
      done[ki] = progress = true;
    }
  }
  std::vector<HostTensor> out;
  for (ClassId c : outputs) {
    if (!value.count(c.v)) throw Error(ErrorCode::Internal, "no kernel stores output class %" + std::to_string(c.v));
    out.push_back(value.at(c.v));
  }
  return out;
}

}  // namespace ks
