// Preparing a plan once (allocations, argument lists, temporaries) and running it many times.
#include "engine/plan/prepared_plan.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>

#include "engine/core/alloc_error.h"
#include "engine/core/error.h"
#include "engine/devices/openblas_gemm.h"
#include "engine/plan/gemm_step.h"
#include "engine/plan/plan_memory.h"

namespace ks {

namespace {
using Clock = std::chrono::steady_clock;

double sinceNs(Clock::time_point t0) { return std::chrono::duration<double, std::nano>(Clock::now() - t0).count(); }

// One plan step with everything it needs resolved at preparation.
struct Step {
  enum class Op : uint8_t { Upload, Download, DeviceToDevice, ZeroCopy, Gemm, Launch, Empty } op = Op::Empty;
  std::string label, device;
  uint32_t src = 0, dst = 0;  // copies: buffers
  std::size_t bytes = 0;
  std::shared_ptr<OpenCLDevice> from, to;  // copies: the devices at each end (null for host memory)
  std::vector<std::byte> staging;          // DeviceToDevice: host memory the value passes through
  int residentLeaf = -1;                   // Upload of a parameter/constant: its leaf index
  bool uploaded = false;                   // the resident copy on the device is current
  GemmSpec gemm;
  std::vector<uint32_t> gemmBuffers;       // a, b, c, then the epilogue's operands
  std::shared_ptr<GemmStep> gemmStep;      // gathers, product and epilogue, rebuilt from the graph
  std::vector<const float*> gemmExtra;     // this run's epilogue operands
  std::shared_ptr<OpenCLDevice> dev;       // Launch
  bool hostMemoryDevice = false;           // Launch: the device works in host memory
  OpenCLKernel kernel;
  std::vector<uint32_t> argBuffers;        // Launch: the buffer of each param, in param order
  std::vector<OpenCLBuffer> args, temps;   // args: this run's (bound memory may move between runs)
  double flops = 0;
  int64_t kernelBytes = 0;
};

struct Output {
  DType dtype = DType::F32;
  Shape shape;
  uint32_t buffer = 0;
};
}  // namespace

struct PreparedPlan::Impl {
  DeviceRuntime& rt;
  std::vector<PlanBuffer> buffers;
  std::vector<uint32_t> leafOf;  // buffer -> leaf index (leaf buffers only)
  std::unique_ptr<PlanMemory> mem;
  std::vector<Step> steps;
  std::vector<Output> outputs;
  std::vector<std::shared_ptr<OpenCLDevice>> queues;  // every device the plan enqueues on
  // Root buffers in host memory that are outputs: written in place in the run's output tensor.
  std::vector<bool> boundOutput;
  std::vector<HostTensor*> outputMemory;  // per buffer: the tensor a bound output is written in, this run
  int64_t residentBytes = 0;
  int64_t peakBytes = 0;  // the plan's, over every pool

  explicit Impl(DeviceRuntime& r) : rt(r) {}
  std::shared_ptr<OpenCLDevice> poolDevice(uint32_t pool) const {
    return pool == 0 ? nullptr : rt.opencl(rt.deviceOfPool(pool));
  }
  uint32_t root(uint32_t b) const { return buffers[b].alias < 0 ? b : static_cast<uint32_t>(buffers[b].alias); }
  Step prepareCopy(const PlanSource& src, const PlanStep& s);
  Step prepareLaunch(const PlanSource& src, const PlanStep& s);
  void prepareGemm(const PlanSource& src, const PlanStep& s, Step& st);
  std::byte* hostPtr(std::vector<HostTensor>& leaves, uint32_t b) {
    const uint32_t r = root(b);
    const PlanBuffer& pb = buffers[r];
    if (pb.leaf) return leaves.at(leafOf[r]).bytes();
    if (boundOutput[r]) return outputMemory[r]->bytes();
    if (!mem->hostMemory(pb.allocation)) throw Error(ErrorCode::Internal, "plan: a host step uses device memory directly");
    return mem->host(pb.allocation);
  }
  // The buffer `dev` reads or writes for `b`: its own memory, or a view of host memory.
  OpenCLBuffer deviceBuf(std::vector<HostTensor>& leaves, uint32_t b, const std::shared_ptr<OpenCLDevice>& dev) {
    const uint32_t r = root(b);
    const PlanBuffer& pb = buffers[r];
    if (pb.leaf || boundOutput[r] || mem->hostMemory(pb.allocation))
      return mem->view(dev, hostPtr(leaves, b), static_cast<std::size_t>(pb.bytes));
    return mem->device(pb.allocation);
  }
  void finishAll() {
    for (auto& q : queues) q->finish();
  }
  void drainQuietly() noexcept {
    for (auto& q : queues) try {
        q->finish();
      } catch (...) {  // the error that interrupted the run is the one to report
      }
  }
};

namespace {
// The values that live in allocation `a`, for an error: "%5 f32[1048576, 1048576]" and how many more.
std::string valuesIn(const PlanSource& src, std::size_t a) {
  std::string s;
  int n = 0;
  for (const PlanBuffer& b : src.plan.buffers) {
    if (b.allocation != a || b.leaf || b.alias >= 0) continue;
    if (n++ < 3)
      s += (s.empty() ? "" : ", ") + ("%" + std::to_string(b.cls.v) + " " + std::string(dtypeName(src.graph.dtype(b.cls)))) +
           shapeStr(src.graph.shape(b.cls));
  }
  if (n > 3) s += " and " + std::to_string(n - 3) + " more";
  return s.empty() ? std::string("no value") : s;
}
}  // namespace

Step PreparedPlan::Impl::prepareCopy(const PlanSource& src, const PlanStep& s) {
  Step st;
  const PlanBuffer& from = buffers[s.inputs[0]];
  const PlanBuffer& to = buffers[s.outputs[0]];
  st.src = s.inputs[0];
  st.dst = s.outputs[0];
  st.bytes = static_cast<std::size_t>(from.bytes);
  st.from = poolDevice(from.pool);
  st.to = poolDevice(to.pool);
  if (s.zeroCopy) {
    st.op = Step::Op::ZeroCopy;
  } else if (from.pool == 0 && to.pool != 0) {
    st.op = Step::Op::Upload;
    if (uploadsResidentLeaf(src.graph, src.plan, s)) {
      st.residentLeaf = static_cast<int>(leafOf[st.src]);
      residentBytes += from.bytes;
    }
  } else if (from.pool != 0 && to.pool == 0) {
    st.op = Step::Op::Download;
  } else {
    st.op = Step::Op::DeviceToDevice;
    st.staging.resize(st.bytes);
  }
  return st;
}

// A GEMM step's gathers and epilogue, rebuilt from the graph (a saved session holds no tables):
// an operand a ToDevice class reads is the class it copies.
void PreparedPlan::Impl::prepareGemm(const PlanSource& src, const PlanStep& s, Step& st) {
  const Node& n = src.graph.node(s.node);
  auto copied = [&](ClassId c) {
    const Node& d = src.graph.structural(c);
    return d.kind == NodeKind::ToDevice ? d.in.at(0) : c;
  };
  st.gemmStep = std::make_shared<GemmStep>(src.graph, n.out.at(0), st.gemm, copied(n.in.at(0)), copied(n.in.at(1)));
  for (int f = 0; f < 2; ++f) {
    const auto& g = st.gemmStep->gathers[f];
    if (g && g->sourceElements * 4 > buffers[st.gemmBuffers[f]].bytes)
      throw Error(ErrorCode::Internal, st.gemm.str() + " gathers past the end of its operand");
  }
  const std::size_t extra = st.gemmStep->epilogue ? st.gemmStep->epilogue->extra.size() : 0;
  if (st.gemmBuffers.size() != 3 + extra)
    throw Error(ErrorCode::Internal, st.gemm.str() + ": its epilogue reads " + std::to_string(extra) + " operands, the step " +
                                         std::to_string(st.gemmBuffers.size() - 3));
}

Step PreparedPlan::Impl::prepareLaunch(const PlanSource& src, const PlanStep& s) {
  Step st;
  const KernelEntry& e = src.entries.at(s.kernel);
  st.flops = e.flops;
  st.kernelBytes = e.bytes;
  if (e.kind == KernelEntry::Kind::Gemm) {
    st.op = Step::Op::Gemm;
    st.gemm = e.gemm;
    st.gemmBuffers = {s.inputs.at(0), s.inputs.at(1), s.outputs.at(0)};
    st.gemmBuffers.insert(st.gemmBuffers.end(), s.inputs.begin() + 2, s.inputs.end());
    prepareGemm(src, s, st);
    return st;
  }
  bool empty = true;
  for (uint32_t o : s.outputs) empty = empty && buffers[o].bytes == 0;
  if (empty) return st;  // zero-element values: nothing to launch
  auto it = rt.compiled.find({e.fused, e.device});
  if (it == rt.compiled.end())
    throw Error(ErrorCode::Internal, "kernel k" + std::to_string(e.fused) + " was not built for " + st.device);
  st.op = Step::Op::Launch;
  st.dev = rt.opencl(e.device);
  st.hostMemoryDevice = rt.hostVisible(rt.poolOf(e.device));
  st.kernel = it->second;
  st.temps = st.dev->allocTemps(st.kernel);
  // Arguments in param order: Read params take the loads in order, ReadWrite params the stores
  // of the Store ops that write them.
  const Kernel& k = src.kernels.at(e.fused).fused.kernel;
  std::size_t readIndex = 0;
  const std::vector<int32_t> stores = k.storeOps();
  for (int32_t p : k.params()) {
    if (k.at(p).paramKind() == ParamKind::Read) {
      st.argBuffers.push_back(s.inputs.at(readIndex++));
      continue;
    }
    std::size_t si = 0;
    while (si < stores.size() && k.at(stores[si]).src[0] != p) ++si;
    if (si == stores.size()) throw Error(ErrorCode::Internal, "kernel param without a store");
    st.argBuffers.push_back(s.outputs.at(si));
  }
  return st;
}

PreparedPlan::PreparedPlan(const PlanSource& source, DeviceRuntime& runtime, std::vector<HostTensor> leaves)
    : impl_(std::make_unique<Impl>(runtime)), leaves_(std::move(leaves)) {
  Impl& m = *impl_;
  const ExecPlan& plan = source.plan;
  m.buffers = plan.buffers;
  m.leafOf.assign(m.buffers.size(), 0);
  for (std::size_t b = 0; b < m.buffers.size(); ++b) {
    if (!m.buffers[b].leaf) continue;
    if (m.buffers[b].pool != 0) throw Error(ErrorCode::Internal, "plan: a bound leaf outside host memory");
    m.leafOf[b] = source.graph.structural(m.buffers[b].cls).ref;
    if (m.leafOf[b] >= leaves_.size()) throw Error(ErrorCode::Internal, "plan: a leaf without a bound value");
  }
  // Outputs whose root is in host memory are written in the run's output tensor.
  m.boundOutput.assign(m.buffers.size(), false);
  m.outputMemory.assign(m.buffers.size(), nullptr);
  std::vector<bool> boundAllocation(plan.allocations.size(), false);
  for (auto& [cls, b] : plan.outputs) {
    const uint32_t r = m.root(b);
    if (m.buffers[r].leaf || !runtime.hostVisible(m.buffers[r].pool)) continue;
    m.boundOutput[r] = true;
    boundAllocation.at(m.buffers[r].allocation) = true;
  }
  // An allocation an output shares with another value (a plan built without output slots of
  // their own) keeps its memory: that output is copied out instead.
  for (std::size_t b = 0; b < m.buffers.size(); ++b)
    if (!m.buffers[b].leaf && m.buffers[b].alias < 0 && !m.boundOutput[b] && boundAllocation[m.buffers[b].allocation])
      boundAllocation[m.buffers[b].allocation] = false;
  for (std::size_t b = 0; b < m.buffers.size(); ++b)
    if (m.boundOutput[b] && !boundAllocation[m.buffers[b].allocation]) m.boundOutput[b] = false;
  m.mem = std::make_unique<PlanMemory>(plan, runtime, boundAllocation, [&source](std::size_t a) { return valuesIn(source, a); });
  for (int64_t p : plan.peakBytes) m.peakBytes += p;
  std::set<OpenCLDevice*> seen;
  for (const PlanStep& s : plan.steps) {
    Step st = s.kind == PlanStep::Kind::Copy ? m.prepareCopy(source, s) : m.prepareLaunch(source, s);
    st.label = s.label;
    st.device = source.devices.at(s.device).name;
    for (const auto& d : {st.from, st.to, st.dev})
      if (d && seen.insert(d.get()).second) m.queues.push_back(d);
    m.steps.push_back(std::move(st));
  }
  for (auto& [cls, b] : plan.outputs) {
    m.outputs.push_back({source.graph.dtype(cls), source.graph.shape(cls), b});
    if (auto d = m.poolDevice(m.buffers[b].pool); d && seen.insert(d.get()).second) m.queues.push_back(d);
  }
}

PreparedPlan::~PreparedPlan() {
  if (impl_) impl_->drainQuietly();
}

void PreparedPlan::setLeaf(uint32_t leaf, HostTensor value) {
  HostTensor& cur = leaves_.at(leaf);
  if (value.dtype() != cur.dtype() || value.shape() != cur.shape())
    throw Error(ErrorCode::Shape, "leaf " + std::to_string(leaf) + " is " + std::string(dtypeName(cur.dtype())) +
                                      shapeStr(cur.shape()) + ", got " + std::string(dtypeName(value.dtype())) +
                                      shapeStr(value.shape()));
  cur = std::move(value);
  for (Step& s : impl_->steps)
    if (s.residentLeaf == static_cast<int>(leaf)) s.uploaded = false;
}

int64_t PreparedPlan::residentBytes() const { return impl_->residentBytes; }

// The events and host times of one run, per step.
struct PreparedPlan::RunState {
  std::vector<std::vector<OpenCLEvent>> events;
  std::vector<double> hostNs;
  std::vector<bool> skipped;  // resident uploads that moved nothing
  std::vector<OpenCLEvent> outputEvents;
  // Queued commands may still read or write host memory (an upload reads its source until it
  // completes; a host-memory device's kernels work in place): before the host reads or writes
  // host memory (a GEMM, a download), everything queued must finish.
  bool hostAccessPending = false;
};

void PreparedPlan::enqueueStep(std::size_t i, RunState& st) {
  Impl& m = *impl_;
  Step& s = m.steps[i];
  auto beforeHostAccess = [&] {
    if (st.hostAccessPending) m.finishAll();
    st.hostAccessPending = false;
  };
  switch (s.op) {
    case Step::Op::Upload:
      if (s.residentLeaf >= 0 && s.uploaded) {
        st.skipped[i] = true;
        break;
      }
      // A produced value in host memory may still be being written by a host-memory device.
      if (!m.buffers[m.root(s.src)].leaf) beforeHostAccess();
      st.events[i].push_back(s.to->enqueueWrite(m.deviceBuf(leaves_, s.dst, s.to), m.hostPtr(leaves_, s.src), s.bytes));
      st.hostAccessPending = st.hostAccessPending || !m.buffers[m.root(s.src)].leaf;
      s.uploaded = true;
      break;
    case Step::Op::Download:
      beforeHostAccess();
      st.events[i].push_back(s.from->enqueueRead(m.deviceBuf(leaves_, s.src, s.from), m.hostPtr(leaves_, s.dst), s.bytes, true));
      break;
    case Step::Op::DeviceToDevice:
      st.events[i].push_back(s.from->enqueueRead(m.deviceBuf(leaves_, s.src, s.from), s.staging.data(), s.bytes, true));
      st.events[i].push_back(s.to->enqueueWrite(m.deviceBuf(leaves_, s.dst, s.to), s.staging.data(), s.bytes));
      break;
    case Step::Op::ZeroCopy:
      // Nothing moves. Host readers wait for the queues before their access; a second device in
      // host memory waits for the first here (queues do not order each other).
      if (s.from && s.to && s.from != s.to) s.from->finish();
      break;
    case Step::Op::Gemm: {
      beforeHostAccess();
      const auto g0 = Clock::now();
      s.gemmExtra.clear();
      for (std::size_t j = 3; j < s.gemmBuffers.size(); ++j)
        s.gemmExtra.push_back(reinterpret_cast<const float*>(m.hostPtr(leaves_, s.gemmBuffers[j])));
      s.gemmStep->run(reinterpret_cast<const float*>(m.hostPtr(leaves_, s.gemmBuffers[0])),
                      reinterpret_cast<const float*>(m.hostPtr(leaves_, s.gemmBuffers[1])),
                      reinterpret_cast<float*>(m.hostPtr(leaves_, s.gemmBuffers[2])), s.gemmExtra);
      st.hostNs[i] = sinceNs(g0);
      break;
    }
    case Step::Op::Launch:
      s.args.clear();
      for (uint32_t b : s.argBuffers) s.args.push_back(m.deviceBuf(leaves_, b, s.dev));
      st.events[i] = s.dev->enqueue(s.kernel, s.args, s.temps);
      st.hostAccessPending = st.hostAccessPending || s.hostMemoryDevice;
      break;
    case Step::Op::Empty: break;
  }
}

// The run's output tensors: those written in place are bound before the steps run.
std::vector<HostTensor> PreparedPlan::bindOutputs() {
  Impl& m = *impl_;
  std::vector<HostTensor> outs(m.outputs.size());
  std::fill(m.outputMemory.begin(), m.outputMemory.end(), nullptr);
  for (std::size_t i = 0; i < m.outputs.size(); ++i) {
    const uint32_t r = m.root(m.outputs[i].buffer);
    if (!m.boundOutput[r] || m.outputMemory[r]) continue;
    outs[i] = HostTensor::uninitialized(m.outputs[i].dtype, m.outputs[i].shape);
    m.outputMemory[r] = &outs[i];
  }
  return outs;
}

// Reads back what was not written in place: device memory is read by the queues (before the
// final wait), host memory copied after it.
void PreparedPlan::readOutputs(RunState& st, std::vector<HostTensor>& outs, bool afterWait) {
  Impl& m = *impl_;
  for (std::size_t i = 0; i < m.outputs.size(); ++i) {
    const Output& o = m.outputs[i];
    const uint32_t r = m.root(o.buffer);
    if (m.outputMemory[r] == &outs[i]) continue;
    const PlanBuffer& pb = m.buffers[r];
    const bool host = pb.leaf || m.boundOutput[r] || m.mem->hostMemory(pb.allocation);
    if (host != afterWait) continue;
    HostTensor h = HostTensor::uninitialized(o.dtype, o.shape);
    if (host)
      std::memcpy(h.bytes(), m.hostPtr(leaves_, o.buffer), h.byteSize());
    else
      st.outputEvents.push_back(m.poolDevice(pb.pool)->enqueueRead(m.mem->device(pb.allocation), h.bytes(), h.byteSize(), false));
    outs[i] = std::move(h);
  }
}

void PreparedPlan::record(const RunState& st, RunRecord& record) const {
  const Impl& m = *impl_;
  record.peakBytes = m.peakBytes;
  record.kernelNs = record.copyNs = 0;
  for (std::size_t i = 0; i < m.steps.size(); ++i) {
    const Step& s = m.steps[i];
    StepTiming t;
    t.label = s.label;
    t.device = s.device;
    const bool copy = s.op == Step::Op::Upload || s.op == Step::Op::Download || s.op == Step::Op::DeviceToDevice;
    t.kind = copy ? "copy" : s.op == Step::Op::ZeroCopy ? "zero-copy" : s.op == Step::Op::Gemm ? "gemm" : "launch";
    t.resident = st.skipped[i];
    t.ns = st.hostNs[i];
    for (const OpenCLEvent& e : st.events[i]) t.ns += static_cast<double>(e.ns());
    if (s.op == Step::Op::ZeroCopy) {
      // nothing moved: no time of its own (waits show in the wall time)
    } else if (copy) {
      t.gbps = t.resident ? 0 : static_cast<double>(s.bytes) / std::max(t.ns, 1.0);
      record.copyNs += t.ns;
    } else {
      t.gflops = s.flops / std::max(t.ns, 1.0);
      t.gbps = static_cast<double>(s.kernelBytes) / std::max(t.ns, 1.0);
      record.kernelNs += t.ns;
    }
    record.steps.push_back(std::move(t));
  }
  for (const OpenCLEvent& e : st.outputEvents) record.copyNs += static_cast<double>(e.ns());
}

std::vector<HostTensor> PreparedPlan::run(const Progress& progress, RunRecord& record) {
  Impl& m = *impl_;
  RunState st;
  st.events.resize(m.steps.size());
  st.hostNs.assign(m.steps.size(), 0.0);
  st.skipped.assign(m.steps.size(), false);
  const auto t0 = Clock::now();
  std::vector<HostTensor> outs;
  m.mem->beginRun();
  if (std::any_of(m.steps.begin(), m.steps.end(), [](const Step& s) { return s.op == Step::Op::Gemm; }))
    setGemmThreads(blasThreads_);
  auto forgetResident = [&] {  // what was resident may be half-written: upload it again next time
    for (Step& s : m.steps) s.uploaded = false;
  };
  try {
    outs = bindOutputs();
    for (std::size_t i = 0; i < m.steps.size(); ++i) {
      progress.check("execution");
      enqueueStep(i, st);
    }
    readOutputs(st, outs, false);
    m.finishAll();
    readOutputs(st, outs, true);
  } catch (...) {
    m.drainQuietly();
    forgetResident();
    throw;
  }
  record.totalNs = sinceNs(t0);
  record.cold = runs_ == 0;
  for (std::size_t i = 0; i < m.steps.size(); ++i)
    for (const OpenCLEvent& e : st.events[i])
      if (e.status() < 0) {
        forgetResident();
        throw Error(ErrorCode::Launch, m.steps[i].label + " failed on the device (OpenCL error " + std::to_string(e.status()) + ")");
      }
  this->record(st, record);
  ++runs_;
  return outs;
}

}  // namespace ks
