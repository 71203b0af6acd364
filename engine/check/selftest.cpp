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
#include "engine/rewrite/runner.h"
#include "engine/rewrite/term.h"
#include "engine/session/host_check.h"
#include "engine/tune/cost_model.h"
#include "engine/tune/term_cost.h"

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

// Saturates `g` with `rules` and makes the static best term its structural form, as the session's
// rewrite stage does (without a device: the cost model's default rates); returns that term
// materialised as a graph of its own, which the session kernelizes (an e-graph with merged
// classes may hold cycles). Limits are quick's, with time enough that the node and round limits,
// not the clock, stop it: a failure must reproduce from its seed.
MaterializedTerm rewriteToBestTerm(Graph& g, const std::vector<Rule>& rules, const std::vector<ClassId>& outputs,
                                   SelftestReport& rep, bool& inexact) {
  RewriteLimits limits;
  limits.seconds = 30;
  const RewriteReport r = saturate(g, rules, limits);
  rep.merges += r.steps.size();
  inexact = anyInexactMerge(r);
  const DeviceRates rates = deviceRates(DeviceLimits{}, 0, 0);
  const TermChoice choice = chooseTerm(g, [&rates](const Graph& gr, NodeId n) { return termNodeNs(gr, n, rates); });
  const bool changed = adoptTerm(g, choice) > 0;
  rep.rewritten += changed;
  rep.inexactTerms += inexact && changed;
  return materialize(g, choice, outputs);
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
  os << "rewrites (" << rewriteMode << "): " << rewritten << " programs kernelized as another term, " << merges
     << " merges, " << inexactTerms << " terms from inexact rules (checked with the magnitude bound)\n";
  for (const std::string& f : failures) os << "FAIL " << f << "\n";
  os << "selftest: " << passed << " passed, " << failed << " failed\n";
  return os.str();
}

SelftestReport runSelftest(const SelftestOptions& options, const Progress& progress) {
  SelftestReport rep;
  const std::vector<Rule> rules = selectRules(options.rewrite);
  rep.rewriteMode = rewriteModeName(options.rewrite.mode);
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
    const std::vector<HostTensor> leaves = bindLeaves(p, {}, seed);
    // The graph kernelized: the program, or its rewritten term once it agrees with the program.
    Graph g = p.graph;
    std::vector<ClassId> outputs = p.outputClasses();
    if (!rules.empty()) {
      try {
        bool inexact = false;
        Graph egraph = p.graph;
        MaterializedTerm term = rewriteToBestTerm(egraph, rules, outputs, rep, inexact);
        const std::vector<HostTensor> got = HostExecutor::run(term.graph, term.outputs, leaves);
        const HostCheck hc = checkAgainstHost(p.graph, egraph, outputs, leaves, got, VerifyBudget{}, inexact);
        for (std::size_t o = 0; o < hc.mismatch.size(); ++o)
          if (!hc.mismatch[o].empty())
            fail("rewritten term (" + std::string(inexact ? "inexact" : "exact") + " rules)", "output " + std::to_string(o) + ": " + hc.mismatch[o]);
        g = std::move(term.graph);
        outputs = std::move(term.outputs);
      } catch (const Error& e) {
        fail("rewrite", e.what());
      }
      if (!programOk) {
        ++rep.failed;
        continue;
      }
    }
    const KernelizeResult kr = kernelize(g, outputs);
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
    std::vector<HostTensor> values;
    try {
      values = HostExecutor::run(g, needed, leaves);
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
