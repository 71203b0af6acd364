// Turning an extraction into ordered steps and reusing buffers whose lifetimes have ended.
#include "engine/plan/exec_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include "engine/core/error.h"

namespace ks {

std::string ExecPlan::describe() const {
  std::ostringstream os;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    os << i << ": " << steps[i].label << "  (";
    for (std::size_t k = 0; k < steps[i].inputs.size(); ++k) os << (k ? " " : "") << "b" << steps[i].inputs[k];
    os << " -> ";
    for (std::size_t k = 0; k < steps[i].outputs.size(); ++k) os << (k ? " " : "") << "b" << steps[i].outputs[k];
    os << ")\n";
  }
  return os.str();
}

bool uploadsResidentLeaf(const Graph& g, const ExecPlan& plan, const PlanStep& step) {
  if (step.kind != PlanStep::Kind::Copy || step.zeroCopy || step.inputs.empty()) return false;
  const PlanBuffer& src = plan.buffers.at(step.inputs[0]);
  if (!src.leaf || src.pool != 0) return false;
  return g.leaf(g.structural(src.cls).ref).kind != LeafKind::Input;
}

namespace {
// The destination of a zero-copy step is its source's memory: it aliases the source's root, and
// the root lives until the last read of any buffer aliasing it.
void aliasZeroCopies(ExecPlan& plan) {
  for (const PlanStep& s : plan.steps) {
    if (!s.zeroCopy) continue;
    const uint32_t root = rootBuffer(plan, s.inputs[0]);
    PlanBuffer& dst = plan.buffers[s.outputs[0]];
    dst.alias = static_cast<int>(root);
    PlanBuffer& r = plan.buffers[root];
    r.lastStep = std::max(r.lastStep, dst.lastStep);
  }
}
}  // namespace

ExecPlan buildPlan(const Graph& g, const std::vector<ClassId>& outputs, const Extraction& ex,
                   const std::vector<KernelEntry>& kernels, const ExtractionDevices& devices,
                   const std::vector<std::string>& deviceNames) {
  ExecPlan plan;
  plan.predictedNs = ex.totalNs;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> bufferOf;  // (class, pool) -> buffer
  auto bytesOf = [&](ClassId c) { return numel(g.shape(c)) * static_cast<int64_t>(dtypeSize(g.dtype(c))); };
  // Where each needed class's value lives after its producer ran.
  auto poolOfClass = [&](ClassId c) -> uint32_t {
    auto it = ex.chosen.find(c);
    return it == ex.chosen.end() ? 0 : producerPool(g, it->second, devices);
  };
  auto buffer = [&](ClassId c, uint32_t pool) -> uint32_t {
    auto key = std::make_pair(c.v, pool);
    if (auto it = bufferOf.find(key); it != bufferOf.end()) return it->second;
    PlanBuffer b;
    b.cls = c;
    b.pool = pool;
    b.bytes = bytesOf(c);
    b.leaf = g.isLeaf(c);
    plan.buffers.push_back(b);
    return bufferOf[key] = static_cast<uint32_t>(plan.buffers.size() - 1);
  };
  auto discardedBuffer = [&](ClassId c, uint32_t pool) -> uint32_t {
    PlanBuffer b;
    b.cls = c;
    b.pool = pool;
    b.bytes = bytesOf(c);
    plan.buffers.push_back(b);
    return static_cast<uint32_t>(plan.buffers.size() - 1);
  };
  auto className = [](ClassId c) { return "%" + std::to_string(c.v); };
  for (NodeId nid : ex.order) {
    const Node& n = g.node(nid);
    PlanStep s;
    s.node = nid;
    s.device = n.device;
    const uint32_t pool = devices.poolOf.at(n.device);
    if (n.kind == NodeKind::ToDevice) {
      const ClassId src = n.in[0], dst = g.classOf(nid);
      const uint32_t from = poolOfClass(src);
      // A copy into the pool the value already lives in is an alias: no step, same buffer.
      if (from == pool) {
        bufferOf[{dst.v, pool}] = buffer(src, from);
        continue;
      }
      s.kind = PlanStep::Kind::Copy;
      s.inputs = {buffer(src, from)};
      s.outputs = {buffer(dst, pool)};
      s.zeroCopy = devices.zeroCopy(from, pool);
      s.label = (s.zeroCopy ? "zero-copy " : "copy ") + className(src) + " -> " + deviceNames.at(n.device);
    } else {
      s.kind = PlanStep::Kind::Launch;
      s.kernel = n.ref;
      for (ClassId in : n.in) {
        if (poolOfClass(in) != pool)
          throw Error(ErrorCode::Internal, "plan: a kernel on " + deviceNames.at(n.device) + " reads " + className(in) +
                                               " from another memory pool without a copy");
        s.inputs.push_back(buffer(in, pool));
      }
      // A multi-output kernel also stores classes the extraction took from another producer. Those
      // stores go to a buffer of their own: written into the chosen producer's buffer, they would
      // land after its last read, in an allocation that may already hold another value.
      for (ClassId out : n.out) {
        auto chosen = ex.chosen.find(g.find(out));
        s.outputs.push_back(chosen != ex.chosen.end() && chosen->second != nid ? discardedBuffer(out, pool)
                                                                                : buffer(out, pool));
      }
      const KernelEntry& k = kernels.at(n.ref);
      s.label = (k.kind == KernelEntry::Kind::Gemm ? k.gemm.str() : "kernel k" + std::to_string(k.fused)) + " on " +
                deviceNames.at(n.device);
    }
    plan.steps.push_back(std::move(s));
  }
  // Outputs: the value in whichever pool produced it.
  for (ClassId c : outputs) {
    const uint32_t b = g.isLeaf(c) ? buffer(c, 0) : bufferOf.at({c.v, poolOfClass(c)});
    plan.buffers[b].output = true;
    plan.outputs.push_back({c, b});
  }
  // Lifetimes. A step that reads a value no earlier step wrote would run on uninitialised memory.
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    for (uint32_t b : plan.steps[i].inputs)
      if (!plan.buffers[b].leaf && plan.buffers[b].firstStep < 0)
        throw Error(ErrorCode::Internal, "plan: step " + std::to_string(i) + " (" + plan.steps[i].label + ") reads " +
                                             className(plan.buffers[b].cls) + " before any step produced it");
    for (uint32_t b : plan.steps[i].outputs)
      if (plan.buffers[b].firstStep < 0) plan.buffers[b].firstStep = static_cast<int>(i);
    for (uint32_t b : plan.steps[i].inputs) plan.buffers[b].lastStep = static_cast<int>(i);
  }
  const int end = static_cast<int>(plan.steps.size());
  for (PlanBuffer& b : plan.buffers) {
    if (b.output) b.lastStep = end;
    if (b.lastStep < b.firstStep) b.lastStep = b.firstStep;  // written, never read
  }
  aliasZeroCopies(plan);
  // Slots: each non-leaf buffer takes the best-fitting free slot of its pool whose previous
  // tenant's last read came before this buffer's first write (in-place reuse within one step is
  // not allowed: a kernel's inputs and outputs never alias).
  std::vector<std::size_t> orderByStart;
  for (std::size_t i = 0; i < plan.buffers.size(); ++i)
    if (!plan.buffers[i].leaf) orderByStart.push_back(i);
  std::sort(orderByStart.begin(), orderByStart.end(),
            [&](std::size_t a, std::size_t b) { return plan.buffers[a].firstStep < plan.buffers[b].firstStep; });
  // A parameter or constant uploaded to a device stays there between runs (a prepared plan keeps
  // it resident): its allocation is its own for the whole plan.
  std::vector<bool> resident(plan.buffers.size(), false);
  for (const PlanStep& s : plan.steps)
    if (uploadsResidentLeaf(g, plan, s)) resident[s.outputs[0]] = true;
  // An output in host memory is written where the caller gets it (the run's output tensor): its
  // memory is its own, never a slot another value reuses.
  for (auto& [c, b] : plan.outputs) {
    const uint32_t r = rootBuffer(plan, b);
    if (!plan.buffers[r].leaf && (plan.buffers[r].pool == 0 || devices.zeroCopy(plan.buffers[r].pool, 0))) resident[r] = true;
  }
  std::vector<int> allocFreeAfter;  // last step of the current tenant
  for (std::size_t bi : orderByStart) {
    PlanBuffer& b = plan.buffers[bi];
    if (b.alias >= 0) continue;  // the root's memory
    plan.bytesWithoutReuse += b.bytes;
    int best = -1;
    for (std::size_t s = 0; s < plan.allocations.size() && !resident[bi]; ++s) {
      if (plan.allocations[s].pool != b.pool || allocFreeAfter[s] >= b.firstStep || plan.allocations[s].bytes < b.bytes) continue;
      if (best < 0 || plan.allocations[s].bytes < plan.allocations[best].bytes) best = static_cast<int>(s);
    }
    if (best < 0) {
      plan.allocations.push_back({b.pool, b.bytes});
      allocFreeAfter.push_back(-1);
      best = static_cast<int>(plan.allocations.size() - 1);
    }
    b.allocation = static_cast<uint32_t>(best);
    allocFreeAfter[best] = resident[bi] ? std::numeric_limits<int>::max() : b.lastStep;
  }
  for (PlanBuffer& b : plan.buffers)
    if (b.alias >= 0) b.allocation = plan.buffers[b.alias].allocation;
  uint32_t maxPool = 0;
  for (uint32_t p : devices.poolOf) maxPool = std::max(maxPool, p);
  plan.peakBytes.assign(maxPool + 1, 0);
  int64_t allocated = 0;
  for (const PlanAllocation& s : plan.allocations) {
    plan.peakBytes[s.pool] += s.bytes;
    allocated += s.bytes;
  }
  plan.bytesSaved = plan.bytesWithoutReuse - allocated;
  return plan;
}

}  // namespace ks
