// The cost model: roofline floors and per-schedule estimates from the lowered IR.
#include "engine/tune/cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "engine/core/error.h"
#include "engine/core/progress.h"
#include "engine/devices/device_info.h"
#include "engine/kernel/kernel.h"
#include "engine/kernel/lowered_kernel.h"
#include "engine/kernel/lowering.h"

namespace ks {

DeviceRates deviceRates(const DeviceLimits& limits, double peakGBs, double peakGflops) {
  DeviceRates d;
  d.gpu = limits.gpu;
  d.computeUnits = std::max<int64_t>(1, limits.computeUnits);
  d.measured = peakGBs > 0 && peakGflops > 0;
  if (d.gpu) {
    // A large GPU: thousands of items per unit, long memory latency, launches of a few us.
    d.gbs = peakGBs > 0 ? peakGBs : 1000.0;
    d.gflops = peakGflops > 0 ? peakGflops : 10000.0;
    d.launchNs = 3000;
    d.latencyNs = 600;
    d.itemsPerUnit = 2048;
  } else {
    // A CPU driver: one work-group at a time per core, caches and prefetchers hide latency, and a
    // launch costs tens of microseconds of thread wake-up and work-group scheduling.
    d.gbs = peakGBs > 0 ? peakGBs : 10.0 * static_cast<double>(std::min<int64_t>(d.computeUnits, 8));
    d.gflops = peakGflops > 0 ? peakGflops : 50.0 * static_cast<double>(d.computeUnits);
    d.launchNs = 20000;
    d.latencyNs = 100;
    d.itemsPerUnit = 1;
  }
  return d;
}

DeviceRates deviceRates(const DeviceInfo& info) {
  DeviceLimits l;
  l.computeUnits = std::max(1, info.computeUnits);
  l.maxWorkGroupSize = static_cast<int64_t>(info.maxWorkGroupSize);
  l.gpu = info.kind == DeviceKind::OpenCL && info.maxWorkGroupSize > 0 && info.maxWorkGroupSize <= 1024 &&
          info.deviceName.find("pthread") == std::string::npos;
  return deviceRates(l, info.peakGBs, info.peakGflops);
}

double Roofline::percentOfPeak(double measuredNs) const {
  const double floor = std::max(computeNs, memoryNs);
  return measuredNs > 0 ? 100.0 * floor / measuredNs : 0.0;
}

Roofline roofline(double flops, double bytes, const DeviceRates& d, int launches) {
  Roofline r;
  r.flops = flops;
  r.bytes = bytes;
  r.computeNs = d.gflops > 0 ? flops / d.gflops : 0;  // FLOP / (GFLOP/s) = ns
  r.memoryNs = d.gbs > 0 ? bytes / d.gbs : 0;
  r.launchNs = d.launchNs * launches;
  return r;
}

Roofline roofline(const Kernel& k, const DeviceRates& d) {
  return roofline(k.flops(), static_cast<double>(k.bytesMoved()), d);
}

namespace {

// ---------------------------------------------------------------- index strides
// The value of an index with the given variables set, every other one at its lowest value, and
// loop variables at their first iteration (their begin expressions, `loops`).
int64_t evalIdx(const Idx& e, const std::map<int32_t, int64_t>& at, const std::map<int32_t, Idx>& loops = {}) {
  switch (e->kind) {
    case IdxKind::Var: {
      if (auto it = at.find(e->var); it != at.end()) return it->second;
      if (auto it = loops.find(e->var); it != loops.end()) return evalIdx(it->second, at, loops);
      return e->lo;
    }
    case IdxKind::Lin: {
      int64_t v = e->c;
      for (const auto& [k, a] : e->terms) v += k * evalIdx(a, at, loops);
      return v;
    }
    case IdxKind::Div: return evalIdx(e->a, at, loops) / e->c;
    case IdxKind::Mod: return evalIdx(e->a, at, loops) % e->c;
    case IdxKind::Min: return std::min(evalIdx(e->a, at, loops), evalIdx(e->b, at, loops));
    case IdxKind::Within: return evalIdx(e->a, at, loops);
  }
  return 0;
}

// Elements between the accesses of two neighbouring items (the first NDRange axis moves fastest
// across a GPU's warp); 0 when the index does not depend on that axis.
int64_t itemStride(const Idx& e, const std::vector<int32_t>& fastVars, const std::map<int32_t, Idx>& loops) {
  if (!e || fastVars.empty()) return 0;
  std::map<int32_t, int64_t> a, b;
  for (int32_t v : fastVars) a[v] = 0, b[v] = 1;
  return std::llabs(evalIdx(e, b, loops) - evalIdx(e, a, loops));
}

// ---------------------------------------------------------------- per-launch walk
struct LaunchCost {
  double slots = 0;        // issue slots per item
  double cacheBytes = 0;   // bytes per item through the cache hierarchy (GPU: L2 sectors)
  double flightBytes = 0;  // global bytes one item has outstanding per loop iteration (Little's law)
  double rounds = 0;       // dependent memory round trips per item (cache hits count a quarter)
  int64_t vecWidth = 1;
  int64_t chains = 1;      // independent accumulations in the busiest loop body (a register tile's outputs)
  std::vector<BufRef> buffers;  // global buffers the launch touches
  bool readsParams = false;     // false: every global read is of a temporary (in cache)
};

class LaunchWalker {
 public:
  LaunchWalker(const LoweredKernel& k, const LoweredLaunch& l, const DeviceRates& d) : k_(k), l_(l), d_(d) {
    for (const LStmt& s : l.body)
      if (s.kind == LStmtKind::Special && s.axis == 0 && static_cast<SpecialKind>(s.op) != SpecialKind::GroupId)
        fast_.push_back(s.dst);
    // The emitter writes the rows of a register tile, and a row schedule's runs, as vector
    // statements: a CPU runs them on SIMD lanes.
    const Schedule& sc = k.schedule;
    const int64_t lanes = sc.rowItems > 0 ? sc.vec : std::min(sc.vec, sc.tileN);
    cpuVector_ = !d.gpu && sc.vec > 1 && (sc.tileN > 1 || sc.rowItems > 0) ? static_cast<double>(lanes) : 1.0;
  }

  LaunchCost run() {
    walk(l_.body, 1.0, 0);
    return c_;
  }

 private:
  // Trip count of the first item (every variable at its lowest value): bounds like
  // min(lo + chunk, K) are exact there, where their ranges would overstate them.
  static double trips(const LStmt& f) {
    const int64_t len = evalIdx(f.end, {}) - evalIdx(f.begin, {});
    const double n = static_cast<double>(len - f.span) / static_cast<double>(f.step) + 1.0;
    return std::max(n, 0.0);
  }

  void access(const LStmt& s, double m, double& iterBytes) {
    const bool global = s.buf.space != BufRef::Space::Local;
    const int64_t w = s.kind == LStmtKind::VLoad ? static_cast<int64_t>(s.dsts.size())
                      : s.kind == LStmtKind::VStore ? static_cast<int64_t>(s.args.size())
                                                    : 1;
    const double b = static_cast<double>(dtypeSize(bufferDType(k_, l_, s.buf)));
    c_.vecWidth = std::max(c_.vecWidth, w);
    const int64_t stride = itemStride(s.index, fast_, loops_);
    if (global && std::find(c_.buffers.begin(), c_.buffers.end(), s.buf) == c_.buffers.end()) c_.buffers.push_back(s.buf);
    if (d_.gpu) {
      // 32 neighbouring items share 32-byte sectors: broadcast, contiguous or one sector each.
      const double useful = static_cast<double>(w) * b;
      double warpBytes;
      if (stride == 0) warpBytes = std::ceil(useful / 32.0) * 32.0;
      else warpBytes = std::min(32.0 * std::ceil(useful / 32.0), std::ceil((31.0 * stride * b + useful) / 32.0)) * 32.0;
      if (global) c_.cacheBytes += m * warpBytes / 32.0;
      // The load/store units move 128 bytes a cycle per unit against 128 FMAs: a word costs four
      // FMA slots, a broadcast word one. A global word read through L1 costs twice a local one
      // (tag lookup and sector traffic on top of the same data path).
      c_.slots += m * (stride == 0 ? 1.0 : useful) * (global ? 2.0 : 1.0);
    } else {
      if (global) c_.cacheBytes += m * static_cast<double>(w) * b;
      c_.slots += m;
    }
    if (global && (s.kind == LStmtKind::Load || s.kind == LStmtKind::VLoad)) iterBytes += static_cast<double>(w) * b;
  }

  void walk(const std::vector<LStmt>& body, double m, int depth) {
    double iterBytes = 0;
    bool loads = false, paramLoads = false;
    std::vector<int32_t> accumulated;
    for (const LStmt& s : body)
      if (s.kind == LStmtKind::Compute && s.assign && std::find(accumulated.begin(), accumulated.end(), s.dst) == accumulated.end())
        accumulated.push_back(s.dst);
    c_.chains = std::max(c_.chains, static_cast<int64_t>(accumulated.size()));
    for (const LStmt& s : body) {
      switch (s.kind) {
        case LStmtKind::Special: c_.slots += m; break;
        case LStmtKind::Compute: c_.slots += m / (depth > 0 ? cpuVector_ : 1.0); break;
        case LStmtKind::Load:
        case LStmtKind::VLoad:
          loads = loads || s.buf.space != BufRef::Space::Local;
          paramLoads = paramLoads || s.buf.space == BufRef::Space::Param;
          access(s, m, iterBytes);
          break;
        case LStmtKind::Store:
        case LStmtKind::VStore: access(s, m, iterBytes); break;
        case LStmtKind::For: {
          const double t = trips(s);
          c_.slots += m * t;  // the loop's own compare and increment
          loops_[s.dst] = s.begin;
          walk(s.body, m * t, depth + 1);
          break;
        }
        case LStmtKind::If: walk(s.body, m, depth); break;  // the taken path (an upper bound)
        case LStmtKind::Barrier: c_.slots += m * (d_.gpu ? 16.0 : 4.0); break;
      }
    }
    c_.flightBytes = std::max(c_.flightBytes, iterBytes);
    // A compiler unrolls simple loops about four times, so a loop body's loads overlap in groups.
    // Temporaries were written by the launch before: their reads hit the cache (a quarter of the
    // latency of memory).
    if (loads) c_.rounds += std::max(1.0, m / 4.0) * (paramLoads ? 1.0 : 0.25);
    c_.readsParams = c_.readsParams || paramLoads;
  }

  const LoweredKernel& k_;
  const LoweredLaunch& l_;
  const DeviceRates& d_;
  std::vector<int32_t> fast_;
  std::map<int32_t, Idx> loops_;  // loop variable -> its first value
  double cpuVector_ = 1.0;
  LaunchCost c_;
};

// Bytes of the global buffers a launch touches: what it moves from memory at least once.
double bufferBytes(const LoweredKernel& lk, const std::vector<BufRef>& bufs) {
  double b = 0;
  for (const BufRef& r : bufs) {
    const bool param = r.space == BufRef::Space::Param;
    const int64_t n = param ? lk.params[static_cast<std::size_t>(r.id)].numel : lk.temps[static_cast<std::size_t>(r.id)].numel;
    const DType t = param ? lk.params[static_cast<std::size_t>(r.id)].dtype : lk.temps[static_cast<std::size_t>(r.id)].dtype;
    b += static_cast<double>(n) * static_cast<double>(dtypeSize(t));
  }
  return b;
}
}  // namespace

ScheduleEstimate estimateLowered(const Kernel& k, const LoweredKernel& lk, const DeviceRates& d) {
  (void)k;
  ScheduleEstimate e;
  const double slotRate = d.gpu ? d.gflops / 2.0 : d.gflops / 32.0;  // issue slots per ns
  const double slotsInFlight = static_cast<double>(d.computeUnits * d.itemsPerUnit);
  double total = 0, worst = -1, bytes = 0;
  for (const LoweredLaunch& l : lk.launches) {
    const LaunchCost c = LaunchWalker(lk, l, d).run();
    const double items = static_cast<double>(l.items());
    const double cache = c.cacheBytes * items;
    const double dram = std::min(bufferBytes(lk, c.buffers), std::max(cache, 1.0));
    double use, occupancy, latencyNs = 0, issueNs;
    if (d.gpu) {
      const double resident = std::min(items, slotsInFlight);
      occupancy = resident / slotsInFlight;
      // Little's law: full bandwidth needs bandwidth x latency bytes in flight; an item has about
      // four loop iterations' loads outstanding (what a compiler's unrolling overlaps).
      const double latency = d.latencyNs * (c.readsParams ? 1.0 : 0.25);
      use = std::min(1.0, resident * 4.0 * std::max(c.flightBytes, 4.0) / (d.gbs * latency));
      latencyNs = std::ceil(items / slotsInFlight) * c.rounds * d.latencyNs;
      // A quarter of the items a unit holds keep its pipelines busy when each has one chain of
      // dependent operations; an item with several independent chains (a register tile) needs
      // fewer companions. Work-groups run on one unit each: fewer groups than units leave units idle.
      const double ilp = std::clamp(static_cast<double>(c.chains) / 4.0, 1.0, 4.0);
      const double group = static_cast<double>(std::max<int64_t>(1, l.local[0] * l.local[1] * l.local[2]));
      const double units = l.local[0] > 0 ? std::min(1.0, std::ceil(items / group) / static_cast<double>(d.computeUnits)) : 1.0;
      issueNs = c.slots * items / (slotRate * std::min(units, 4.0 * occupancy * ilp));
    } else {
      const double groupSize = l.local[0] > 0 ? static_cast<double>(l.local[0] * l.local[1] * l.local[2]) : 64.0;
      use = std::min(1.0, std::ceil(items / groupSize) / static_cast<double>(d.computeUnits));
      occupancy = use;
      issueNs = c.slots * items / (slotRate * use);
    }
    const double memNs = dram / (d.gbs * std::max(use, 1e-9));
    const double cacheNs = cache / (d.gbs * (d.gpu ? 3.0 : 8.0));
    const std::pair<double, const char*> terms[] = {
        {memNs, "memory"}, {cacheNs, "cache"}, {issueNs, "issue"}, {latencyNs, "latency"}};
    const auto* top = std::max_element(std::begin(terms), std::end(terms), [](auto& a, auto& b) { return a.first < b.first; });
    total += top->first;
    bytes += std::max(cache, dram);
    if (top->first > worst) worst = top->first, e.bound = top->second, e.occupancy = occupancy;
    e.vecWidth = std::max(e.vecWidth, c.vecWidth);
  }
  const double launchNs = d.launchNs * static_cast<double>(lk.launches.size());
  if (launchNs > total) e.bound = "launch";
  e.ns = total + launchNs;
  e.bytes = bytes;
  if (lk.launches.empty()) e.occupancy = 1.0;
  return e;
}

ScheduleEstimate estimateSchedule(const Kernel& k, const Schedule& s, const DeviceLimits& limits, const DeviceRates& d) {
  try {
    return estimateLowered(k, lowerKernel(k, s, limits), d);
  } catch (const Error&) {
    ScheduleEstimate e;
    e.ns = std::numeric_limits<double>::infinity();
    e.bound = "does not lower";
    return e;
  }
}

std::vector<Schedule> orderByModel(const Kernel& k, const std::vector<Schedule>& cands, const DeviceLimits& limits,
                                   const DeviceRates& d, std::vector<ScheduleEstimate>* estimates,
                                   const Progress* progress) {
  std::vector<ScheduleEstimate> est;
  for (const Schedule& s : cands) {
    if (progress) progress->check("autotune");
    est.push_back(estimateSchedule(k, s, limits, d));
  }
  std::vector<std::size_t> order(cands.size());
  std::iota(order.begin(), order.end(), 0);
  // The first candidate stays first (the reference result: the default, or a row kernel's row
  // schedule); ties keep enumeration order.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const bool da = a == 0, db = b == 0;
    if (da != db) return da;
    return est[a].ns < est[b].ns;
  });
  std::vector<Schedule> out;
  std::vector<ScheduleEstimate> outEst;
  for (std::size_t i : order) out.push_back(cands[i]), outEst.push_back(est[i]);
  if (estimates) *estimates = std::move(outEst);
  return out;
}

}  // namespace ks
