// Differential testing of kernelizer + lowering + code generation against the host oracle.
#include "engine/check/selftest.h"

#include <memory>
#include <sstream>

#include "engine/core/tolerance.h"
#include "engine/devices/opencl_device.h"
#include "engine/eval/host_executor.h"
#include "engine/io/program_source.h"
#include "engine/kernel/interpreter.h"
#include "engine/kernel/lowering.h"
#include "engine/kernelizer/kernelizer.h"
#include "engine/program/random.h"

namespace ks {

namespace {
int64_t reduceTerms(const Kernel& k) {
  int64_t t = 1;
  for (const KOp& o : k.ops)
    if (o.kind == KOpKind::Reduce) t *= k.at(o.src[0]).shape.back();
  return t;
}

void countSchedule(std::map<std::string, int>& m, const Schedule& s) {
  if (s == Schedule{}) ++m["default"];
  if (s.wgN != 0) ++m["work-group shape"];
  if (s.tileM != 1 || s.tileN != 1) ++m["register tile"];
  if (s.vec != 1) ++m["vector width"];
  if (s.unroll != 1) ++m[s.splitAcc ? "reduce unroll (split accumulators)" : "reduce unroll"];
  if (s.localReduce != 1) ++m["local-memory reduction"];
  if (s.groupSplit != 1) ++m["split across work-groups"];
  if (s.localTileK != 0) ++m["local-memory tiling"];
}

std::string programText(const Program& p) {
  try {
    return printKs(p);
  } catch (const Error&) {
    return p.graph.dump();
  }
}
}  // namespace

std::string SelftestReport::summary() const {
  std::ostringstream os;
  os << "ops covered:\n";
  for (auto& [k, v] : ops) os << "  " << k << ": " << v << "\n";
  os << "schedule options covered (kernels run with each):\n";
  for (auto& [k, v] : schedules) os << "  " << k << ": " << v << "\n";
  os << programs << " programs, " << kernels << " kernels, " << runs << " kernel runs; schedules drawn "
     << schedulesDrawn << ", rejected by lowering " << schedulesRejected << "\n";
  for (const std::string& f : failures) os << "FAIL " << f << "\n";
  os << "selftest: " << passed << " passed, " << failed << " failed\n";
  return os.str();
}

SelftestReport runSelftest(const SelftestOptions& options, const Progress& progress) {
  SelftestReport rep;
  std::vector<std::unique_ptr<OpenCLDevice>> devices(options.devices.size());
  for (std::size_t d = 0; d < options.devices.size(); ++d)
    if (options.devices[d] != "interpreter") devices[d] = OpenCLDevice::open(options.devices[d]);
  for (int pi = 0; pi < options.programs; ++pi) {
    progress.check("selftest");
    const uint64_t seed = options.seed + static_cast<uint64_t>(pi);
    progress.report(static_cast<double>(pi) / options.programs, "program seed " + std::to_string(seed));
    Program p = randomProgram(seed, options.generator, &rep.ops);
    ++rep.programs;
    bool programOk = true;
    auto fail = [&](const std::string& where, const std::string& what) {
      programOk = false;
      rep.failures.push_back("seed " + std::to_string(seed) + " " + where + ": " + what + "\nprogram:\n" + programText(p));
    };
    const KernelizeResult kr = kernelize(p.graph, p.outputClasses());
    if (kr.error) {
      fail("kernelizer", kr.error->what());
      ++rep.failed;
      continue;
    }
    rep.kernels += static_cast<int>(kr.kernels.size());
    // The oracle's value of every class a kernel loads or stores.
    std::vector<ClassId> needed;
    for (const FusedKernel& f : kr.kernels) {
      needed.insert(needed.end(), f.loads.begin(), f.loads.end());
      needed.insert(needed.end(), f.stores.begin(), f.stores.end());
    }
    const std::vector<HostTensor> leaves = bindLeaves(p, {}, seed);
    std::vector<HostTensor> values;
    try {
      values = HostExecutor::run(p.graph, needed, leaves);
    } catch (const Error& e) {
      fail("host executor", e.what());
      ++rep.failed;
      continue;
    }
    auto valueOf = [&](ClassId c) -> const HostTensor& {
      for (std::size_t i = 0; i < needed.size(); ++i)
        if (needed[i] == c) return values[i];
      throw Error(ErrorCode::Internal, "selftest: no oracle value");
    };
    Random pick(seed * 7919 + 13);
    for (std::size_t d = 0; d < options.devices.size(); ++d) {
      const std::string& dev = options.devices[d];
      const DeviceLimits limits = devices[d] ? devices[d]->info().limits() : DeviceLimits{};
      // Draw a schedule per kernel and lower it.
      std::vector<LoweredKernel> lowered;
      std::vector<Schedule> drawn;
      for (const FusedKernel& f : kr.kernels) {
        std::vector<Schedule> cands = enumerateSchedules(f.kernel, limits, TuneLevel::Full);
        Schedule s = cands.empty() ? Schedule{} : cands[pick.next() % cands.size()];
        ++rep.schedulesDrawn;
        try {
          lowered.push_back(lowerKernel(f.kernel, s, limits));
        } catch (const Error&) {
          ++rep.schedulesRejected;
          s = Schedule{};
          lowered.push_back(lowerKernel(f.kernel, s, limits));
        }
        drawn.push_back(s);
      }
      std::vector<OpenCLKernel> built;
      if (devices[d]) {
        try {
          built = devices[d]->build(lowered);
        } catch (const Error& e) {
          fail("on " + dev + " (build)", e.what());
          continue;
        }
      }
      for (std::size_t ki = 0; ki < kr.kernels.size(); ++ki) {
        const FusedKernel& f = kr.kernels[ki];
        std::vector<HostTensor> buffers;
        std::size_t readIndex = 0;
        for (const LParam& lp : lowered[ki].params) {
          if (lp.kind == ParamKind::Read) buffers.push_back(valueOf(f.loads.at(readIndex++)).reshaped({lp.numel}));
          else buffers.push_back(HostTensor(lp.dtype, {lp.numel}));
        }
        ++rep.runs;
        countSchedule(rep.schedules, drawn[ki]);
        const std::string where = "on " + dev + ", kernel k" + std::to_string(ki) + " (schedule " + drawn[ki].str() + ")";
        try {
          if (devices[d]) devices[d]->runOnHost(built[ki], buffers);
          else runLowered(lowered[ki], buffers);
        } catch (const Error& e) {
          fail(where, e.what());
          continue;
        }
        // Store i writes the ReadWrite param its Store op names; params are in op order.
        const std::vector<int32_t> params = f.kernel.params(), stores = f.kernel.storeOps();
        for (std::size_t si = 0; si < stores.size(); ++si) {
          const int32_t paramOp = f.kernel.at(stores[si]).src[0];
          const std::size_t slot = static_cast<std::size_t>(std::find(params.begin(), params.end(), paramOp) - params.begin());
          const HostTensor& want = valueOf(f.stores[si]);
          const std::string bad = compareWithTolerance(buffers[slot].reshaped(want.shape()), want, reduceTerms(f.kernel));
          if (!bad.empty()) fail(where, "store of %" + std::to_string(f.stores[si].v) + ": " + bad);
        }
      }
    }
    if (programOk) ++rep.passed;
    else ++rep.failed;
  }
  return rep;
}

}  // namespace ks
