// The pipeline, stage by stage: match AOT kernels, kernelize, autotune, extract, plan, run.
#include "engine/session/session.h"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <map>

#include "engine/codegen/opencl_emitter.h"
#include "engine/core/json_read.h"
#include "engine/core/median.h"
#include "engine/core/tolerance.h"
#include "engine/devices/device_runtime.h"
#include "engine/eval/host_executor.h"
#include "engine/kernel/lowering.h"
#include "engine/plan/gemm_layouts.h"
#include "engine/plan/plan_choice_cache.h"
#include "engine/plan/prepared_plan.h"
#include "engine/plan/gemm_step.h"
#include "engine/plan/memory_ops.h"
#include "engine/rewrite/saturation_cache.h"
#include "engine/rewrite/term.h"
#include "engine/rewrite/term_candidates.h"
#include "engine/tune/autotuner.h"
#include "engine/tune/term_cost.h"
#include "engine/tune/tuning_cache.h"

namespace ks {

const char* stageName(Stage s) {
  switch (s) {
    case Stage::Loaded: return "loaded";
    case Stage::Matched: return "matched";
    case Stage::Kernelized: return "kernelized";
    case Stage::Tuned: return "tuned";
    case Stage::Extracted: return "extracted";
    case Stage::Planned: return "planned";
  }
  return "?";
}

namespace {
using Clock = std::chrono::steady_clock;

bool hostOnly(const std::vector<DeviceInfo>& d) { return d.size() == 1 && d[0].kind == DeviceKind::Host; }

DeviceLimits limitsOf(const DeviceInfo& d) {
  DeviceLimits l;
  // Bounded: a file can claim any size, and schedules multiply these.
  if (d.maxWorkGroupSize) l.maxWorkGroupSize = static_cast<int64_t>(std::min<uint64_t>(d.maxWorkGroupSize, 1u << 20));
  if (d.localMemBytes) l.localMemBytes = static_cast<int64_t>(std::min<uint64_t>(d.localMemBytes, 1u << 30));
  l.computeUnits = std::max(1, d.computeUnits);
  l.fp64 = d.fp64;
  return l;
}

KernelEntry tunedEntry(const KernelRecord& kernel, uint32_t k, uint32_t device, const TunedKernel& winner) {
  KernelEntry e;
  e.kind = KernelEntry::Kind::Fused;
  e.fused = k;
  e.device = device;
  e.schedule = winner.schedule.str();
  e.scheduleJson = winner.schedule.toJson().dump();
  // A kernel with nothing to store is never launched: it costs nothing. A launched one costs at
  // least a nanosecond, whatever the device timer's resolution says.
  e.timeNs = winner.compiled.lowered.launches.empty() ? 0.0 : std::max(winner.ns, 1.0);
  e.flops = kernel.flops;
  e.bytes = kernel.bytes;
  return e;
}

OutputValue describeOutput(const std::string& name, const HostTensor& value) {
  OutputValue o;
  o.name = name;
  o.value = value;
  const int64_t n = value.numel();
  // min and max of the values that are not NaN (NaN when all are); the mean is NaN when any is.
  double sum = 0;
  int64_t nans = 0;
  o.min = INFINITY;
  o.max = -INFINITY;
  for (int64_t e = 0; e < n; ++e) {
    const double v = value.getDouble(e);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    o.min = std::min(o.min, v);
    o.max = std::max(o.max, v);
    sum += v;
  }
  o.mean = n == 0 ? 0 : nans ? NAN : sum / static_cast<double>(n);
  if (n == 0) o.min = o.max = 0;
  if (n > 0 && nans == n) o.min = o.max = NAN;
  return o;
}

std::tuple<uint64_t, std::vector<uint32_t>, std::vector<uint32_t>> kernelIdentity(const FusedKernel& f) {
  std::vector<uint32_t> loads, stores;
  for (ClassId c : f.loads) loads.push_back(c.v);
  for (ClassId c : f.stores) stores.push_back(c.v);
  return {f.kernel.hash(), loads, stores};
}
}  // namespace

Session::Session(Program program, SessionOptions options) : program_(std::move(program)), options_(std::move(options)) {
  const std::vector<DeviceInfo> found =
      options_.devices == "host" ? std::vector<DeviceInfo>{hostDeviceInfo()} : discoverDevices();
  devices_ = selectDevices(options_.devices, found);
  poolOf_ = memoryPools(devices_);
  if (!hostOnly(devices_)) {
    runtime_ = std::make_unique<DeviceRuntime>(devices_, options_.zeroCopy);
    std::string warning;
    cache_ = TuningCache::open(options_.cache, &warning);
    if (!warning.empty()) trace_.warnings.push_back(warning);
  }
  trace_.tuneLevel = tuneLevelName(options_.tune);
  snapshot(Stage::Loaded);
  reached_ = true;
}

Session::Session() = default;
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

void Session::snapshot(Stage s) {
  trace_.snapshots.push_back({s, static_cast<uint32_t>(program_.graph.classCount()), static_cast<uint32_t>(program_.graph.nodeCount())});
}

void Session::runTo(Stage target, const Progress& progress) {
  if (!live() && target > stage_)
    throw Error(ErrorCode::Usage, "this session was loaded from a file: it can be viewed but not compiled further");
  while (stage_ < target) {
    const Stage next = static_cast<Stage>(static_cast<int>(stage_) + 1);
    const auto t0 = Clock::now();
    progress.check(stageName(next));
    progress.report(0, std::string("stage: ") + stageName(next));
    switch (next) {
      case Stage::Matched: match(progress); break;
      case Stage::Kernelized: kernelize(); break;
      case Stage::Tuned: tune(progress); break;
      case Stage::Extracted: extract(); break;
      case Stage::Planned: plan(progress); break;
      case Stage::Loaded: break;
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    trace_.stageTimes.push_back({next, ms});
    trace_.compileMs += ms;
    stage_ = next;
    snapshot(next);
  }
}

// ---------------------------------------------------------------- rewrite
RewriteLimits rewriteLimits(TuneLevel level, RewriteMode mode) {
  RewriteLimits l;
  switch (level) {
    case TuneLevel::None: l.iterations = 4, l.nodes = 2000, l.seconds = 0.2; break;
    case TuneLevel::Quick: l.iterations = 8, l.nodes = 10000, l.seconds = 0.5; break;
    case TuneLevel::Full: l.iterations = 16, l.nodes = 40000, l.seconds = 2.0; break;
  }
  if (mode == RewriteMode::Aggressive) l.iterations *= 2, l.nodes *= 2, l.seconds *= 2, l.matchLimit *= 2;
  return l;
}

namespace {
// Static cost of the term the structural nodes form, each shared class once.
double termCost(const Graph& g, const std::vector<ClassId>& outputs, const DeviceRates& rates) {
  double ns = 0;
  for (ClassId c : g.topoOrder(outputs)) ns += termNodeNs(g, g.eclass(c).nodes.front(), rates);
  return ns;
}
}  // namespace

// Saturates the program's e-graph and makes the cheapest term by the static cost model the
// structural nodes, which every later stage compiles. The builder's ids stay valid (find); the
// un-rewritten graph is kept for the oracle.
void Session::rewrite(const Progress& progress) {
  std::vector<Rule> rules = selectRules(options_.rewrite);
  RewriteTrace& t = trace_.rewrite;
  t.mode = rewriteModeName(options_.rewrite.mode);
  if (rules.empty()) return;
  for (const Rule& r : rules) t.rules.push_back(r.name);
  original_ = std::make_unique<Graph>(program_.graph);
  uint64_t key = program_.cacheKey();
  for (const LeafInfo& l : program_.graph.leaves())
    for (char ch : l.name) key = (key ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  const SaturationKey skey{key, ruleSetKey(rules), rewriteLimits(options_.tune, options_.rewrite.mode)};
  if (auto hit = findSaturated(skey)) {
    program_.graph = hit->graph;
    t.report = hit->report;
    t.cached = true;
  } else {
    t.report = saturate(program_.graph, rules, skey.limits, progress);
    keepSaturated(skey, std::make_shared<Saturated>(Saturated{program_.graph, t.report}));
  }
  t.ran = true;
  DeviceRates rates = deviceRates(DeviceLimits{}, 0, 0);
  for (const DeviceInfo& d : devices_)
    if (d.compiles()) {
      rates = deviceRates(d);
      break;
    }
  Graph& g = program_.graph;
  const auto outputs = program_.resultClasses();
  t.originalNs = termCost(g, outputs, rates);
  const TermChoice choice = chooseTerm(g, [&rates](const Graph& gr, NodeId n) { return termNodeNs(gr, n, rates); });
  t.termChanges = adoptTerm(g, choice);
  t.termNs = termCost(g, outputs, rates);
  if (termCandidateCount(options_) > 1) chooseTerms(outputs, rates);
}

int termCandidateCount(const SessionOptions& o) {
  if (o.termCandidates > 0) return o.termCandidates;
  // quick keeps 2: each further term is kernelized and tuned, and at 4 the transformer's quick
  // compile took over twice its time without rewrites.
  return o.tune == TuneLevel::Full ? 6 : 2;
}

// The static best is the structural term; its runners-up (diverse terms of the e-graph, cheapest
// first) and the program as built are materialised, to be kernelized beside it.
void Session::chooseTerms(const std::vector<ClassId>& outputs, const DeviceRates& rates) {
  RewriteTrace& t = trace_.rewrite;
  const Graph& g = program_.graph;
  const std::size_t want = static_cast<std::size_t>(termCandidateCount(options_));
  const NodeCost cost = [&rates](const Graph& gr, NodeId n) { return termNodeNs(gr, n, rates); };
  // The as-built term takes one place when the static best is not that term already.
  const bool asBuilt = t.termChanges > 0;
  std::vector<TermCandidate> found = candidateTerms(g, cost, outputs, want - (asBuilt ? 1 : 0));
  t.candidates.push_back({"static best", t.termNs, 0, {}, {}, 0, 0});
  for (std::size_t i = 1; i < found.size(); ++i) {
    terms_.push_back(materialize(g, found[i].choice, outputs));
    t.candidates.push_back({"runner-up " + std::to_string(i), found[i].staticNs, found[i].differ, {}, {}, 0, 0});
  }
  if (!asBuilt) return;
  MaterializedTerm built;
  built.graph = *original_;
  built.outputs = outputs;
  for (uint32_t c = 0; c < built.graph.classCount(); ++c) built.origin.push_back(g.find(ClassId(c)));
  std::size_t differ = 0;
  for (ClassId c : built.graph.topoOrder(outputs)) {
    Node n = built.graph.structural(c);
    for (ClassId& o : n.in) o = g.find(o);
    differ += !(n == g.structural(c));
  }
  terms_.push_back(std::move(built));
  t.candidates.push_back({"as built", t.originalNs, differ, {}, {}, 0, 0});
}

// ---------------------------------------------------------------- match
void Session::match(const Progress& progress) {
  if (hostOnly(devices_)) return;
  rewrite(progress);
  preAotGraph_ = std::make_unique<Graph>(program_.graph);
  uint32_t blas = UINT32_MAX;
  for (std::size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i].kind == DeviceKind::OpenBlas) blas = static_cast<uint32_t>(i);
  if (blas == UINT32_MAX) return;
  const auto outputs = program_.resultClasses();
  trace_.matches = withEpilogues(program_.graph, outputs, findMatmuls(program_.graph, outputs));
  addGemmKernels(program_.graph, trace_.matches, blas, trace_.entries);
}

// ---------------------------------------------------------------- kernelize
void Session::kernelize() {
  if (hostOnly(devices_)) return;
  const auto outputs = program_.resultClasses();
  const std::string term = trace_.rewrite.candidates.empty() ? "program" : trace_.rewrite.candidates[0].source;
  // Before AOT matching, on the graph as it was then. A failed run is kept: its trace shows where.
  KernelizeResult plain = ks::kernelize(preAotGraph_ ? *preAotGraph_ : program_.graph, outputs);
  trace_.fusionRuns.push_back({0, term, false, std::move(plain.trace), {}, {}, {}});
  if (plain.error) throw *plain.error;
  std::vector<uint32_t> made = addKernels(plain.kernels, 0);
  trace_.fusionRuns.back().kernels = made;
  // After it: the gaps between AOT kernels, when there are any.
  if (!trace_.matches.empty()) {
    KernelizeResult aot = ks::kernelize(program_.graph, outputs);
    trace_.fusionRuns.push_back({0, term, true, std::move(aot.trace), {}, {}, {}});
    if (aot.error) throw *aot.error;
    KernelizerRun& run = trace_.fusionRuns.back();
    run.kernels = addKernels(aot.kernels, 1);
    for (uint32_t i = 0; i < trace_.matches.size(); ++i) run.gemms.push_back(i);
    made.insert(made.end(), run.kernels.begin(), run.kernels.end());
  }
  preAotGraph_.reset();
  if (!trace_.rewrite.candidates.empty()) {
    trace_.rewrite.candidates[0].kernels = made;
    for (uint32_t i = 0; i < trace_.matches.size(); ++i) trace_.rewrite.candidates[0].gemms.push_back(i);
  }
  compileTerms();
}

namespace {
// A kernel of a candidate term's own graph, its classes named as the e-graph's.
FusedKernel inEGraph(FusedKernel f, const Graph& g, const MaterializedTerm& term) {
  for (auto* list : {&f.loads, &f.stores, &f.classes})
    for (ClassId& c : *list) c = g.find(term.origin.at(c.v));
  return f;
}
}  // namespace

// The runner-up terms, after the static best's passes (whose boundaries must stay its own AOT
// kernels): each is matched and kernelized on its own graph, twice as the best is, and its GEMMs and
// kernels join the e-classes they compute. A kernel or GEMM two terms share is kept once.
void Session::compileTerms() {
  uint32_t blas = UINT32_MAX;
  for (std::size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i].kind == DeviceKind::OpenBlas) blas = static_cast<uint32_t>(i);
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    MaterializedTerm& term = terms_[i];
    TermCandidateRecord& rec = trace_.rewrite.candidates.at(i + 1);
    const int candidate = static_cast<int>(i + 1);
    const auto forms = formsOf(program_.graph, term);
    rec.kernels = kernelizeTerm(term, {candidate, rec.source, false, {}, {}, {}, forms});
    if (blas == UINT32_MAX) continue;
    rec.gemms = matchTerm(term, blas);
    if (rec.gemms.empty()) continue;
    const std::vector<uint32_t> more = kernelizeTerm(term, {candidate, rec.source, true, {}, {}, rec.gemms, forms});
    rec.kernels.insert(rec.kernels.end(), more.begin(), more.end());
  }
  terms_.clear();
  if (blas != UINT32_MAX && trace_.rewrite.ran) addGemmLayouts(blas);
}

// One kernelizer run on a candidate term's own graph, recorded as `run` with the e-graph's class
// ids; its kernels join the trace's. Returns their trace kernel indices.
std::vector<uint32_t> Session::kernelizeTerm(const MaterializedTerm& term, KernelizerRun run) {
  KernelizeResult r = ks::kernelize(term.graph, term.outputs);
  run.trace = traceInEGraph(std::move(r.trace), program_.graph, term.origin);
  trace_.fusionRuns.push_back(std::move(run));
  if (r.error) throw *r.error;
  std::vector<FusedKernel> kernels;
  for (const FusedKernel& f : r.kernels) kernels.push_back(inEGraph(f, program_.graph, term));
  trace_.fusionRuns.back().kernels = addKernels(kernels, trace_.fusionRuns.back().afterAot ? 1 : 0);
  return trace_.fusionRuns.back().kernels;
}

// GEMMs reading an operand's transpose partner instead (gemm_layouts.h), once every kernelizer
// pass ran (they are no boundary of any) and before tuning (GEMM entries come first). Each
// belongs to the candidate terms of the GEMM it varies.
void Session::addGemmLayouts(uint32_t blas) {
  const Graph& g = program_.graph;
  std::vector<MatmulMatch> fresh;
  const std::size_t count = trace_.matches.size();
  for (std::size_t i = 0; i < count; ++i)
    for (const MatmulMatch& v : transposedOperandVariants(g, trace_.matches[i])) {
      const auto same = [&](const MatmulMatch& x) {
        return g.find(x.out) == g.find(v.out) && g.find(x.a) == v.a && g.find(x.b) == v.b && x.spec == v.spec;
      };
      if (std::any_of(trace_.matches.begin(), trace_.matches.end(), same)) continue;
      const auto bounds = [i](const std::vector<uint32_t>& gemms) {
        return std::find(gemms.begin(), gemms.end(), static_cast<uint32_t>(i)) != gemms.end();
      };
      for (TermCandidateRecord& c : trace_.rewrite.candidates)
        if (bounds(c.gemms)) c.gemms.push_back(static_cast<uint32_t>(trace_.matches.size()));
      for (KernelizerRun& r : trace_.fusionRuns)
        if (bounds(r.gemms)) r.gemms.push_back(static_cast<uint32_t>(trace_.matches.size()));
      trace_.matches.push_back(v);
      fresh.push_back(v);
    }
  addGemmKernels(program_.graph, fresh, blas, trace_.entries);
}

// The term's matmuls: each marks its class in the term's graph as an AOT boundary (untimed: only
// the kernelizer sees it), and one not matched yet joins the e-graph as a timed GEMM. Returns the
// trace match index of each.
std::vector<uint32_t> Session::matchTerm(MaterializedTerm& term, uint32_t blas) {
  std::vector<uint32_t> indices;
  const Graph& g = program_.graph;
  std::vector<MatmulMatch> fresh;
  for (const MatmulMatch& m : findMatmuls(term.graph, term.outputs)) {
    Node boundary;
    boundary.kind = NodeKind::Kernel;
    boundary.in = {m.a, m.b};
    boundary.out = {m.out};
    boundary.device = blas;
    term.graph.addAlternative(m.out, boundary);
    MatmulMatch e = m;
    for (ClassId* c : {&e.out, &e.a, &e.b}) *c = g.find(term.origin.at(c->v));
    auto same = [&](const MatmulMatch& x) {
      return g.find(x.out) == e.out && g.find(x.a) == e.a && g.find(x.b) == e.b && x.spec == e.spec;
    };
    const auto at = std::find_if(trace_.matches.begin(), trace_.matches.end(), same);
    indices.push_back(static_cast<uint32_t>(at - trace_.matches.begin()));
    if (at == trace_.matches.end()) {
      trace_.matches.push_back(e);
      fresh.push_back(e);
    }
  }
  addGemmKernels(program_.graph, fresh, blas, trace_.entries);
  return indices;
}

// Kernelizer passes can produce the same kernel twice (same code, loads and stores): kept once.
// Returns the index of each kernel's record, new or already there.
std::vector<uint32_t> Session::addKernels(const std::vector<FusedKernel>& kernels, int pass) {
  std::map<std::tuple<uint64_t, std::vector<uint32_t>, std::vector<uint32_t>>, uint32_t> seen;
  for (uint32_t i = 0; i < trace_.kernels.size(); ++i) seen.emplace(kernelIdentity(trace_.kernels[i].fused), i);
  std::vector<uint32_t> indices;
  for (const FusedKernel& f : kernels) {
    const auto [it, added] = seen.emplace(kernelIdentity(f), static_cast<uint32_t>(trace_.kernels.size()));
    indices.push_back(it->second);
    if (!added) continue;
    KernelRecord r;
    r.fused = f;
    r.name = "k" + std::to_string(trace_.kernels.size()) + " " + f.kernel.name();
    r.flops = f.kernel.flops();
    r.bytes = f.kernel.bytesMoved();
    r.pass = pass;
    trace_.kernels.push_back(std::move(r));
  }
  return indices;
}

// ---------------------------------------------------------------- tune, memory ops
void Session::tune(const Progress& progress) {
  if (hostOnly(devices_)) return;
  TuneBudget budget = defaultBudget(options_.tune);
  if (options_.budgetCount > 0) budget.maxCandidates = options_.budgetCount;
  if (options_.budgetSeconds > 0) budget.maxSeconds = options_.budgetSeconds;
  if (options_.budgetModelSeconds > 0) budget.maxModelSeconds = options_.budgetModelSeconds;
  Autotuner tuner(*cache_, options_.tune, budget);
  for (uint32_t d = 0; d < devices_.size(); ++d) {
    if (!devices_[d].compiles()) continue;
    TuneRecords out{trace_.measurements, trace_.searches, trace_.warnings};
    auto winners = tuner.tuneDevice(runtime_->opencl(d), d, trace_.kernels, progress, out);
    progress.check("autotune");
    for (uint32_t k = 0; k < winners.size(); ++k) {
      if (!winners[k]) continue;
      trace_.entries.push_back(tunedEntry(trace_.kernels[k], k, d, *winners[k]));
      runtime_->compiled[{k, d}] = std::move(winners[k]->compiled);
    }
  }
  memoryOps();
}

void Session::memoryOps() {
  const DeviceRuntime& rt = *runtime_;
  insertMemoryOps(program_.graph, {trace_.entries, trace_.kernels, trace_.matches, poolOf_,
                                   [&rt](uint32_t from, uint32_t to, int64_t bytes) { return rt.transferNs(from, to, bytes); }});
}

// ---------------------------------------------------------------- extract / plan
namespace {
// What a plan choice was measured for: the graph and devices (the plan key), the candidate count,
// the zero-copy switch and each kernel entry's device and schedule.
uint64_t planChoiceKey(uint64_t planKey, int max, bool zeroCopy, const std::vector<KernelEntry>& entries) {
  uint64_t key = planKey;
  auto mix = [&key](uint64_t v) { key = (key ^ v) * 1099511628211ull; };
  mix(static_cast<uint64_t>(max));
  mix(zeroCopy);
  for (const KernelEntry& e : entries) {
    mix(e.device);
    mix(e.kind == KernelEntry::Kind::Gemm);
    for (char ch : e.schedule) mix(static_cast<unsigned char>(ch));
  }
  return key;
}
}  // namespace

void Session::extract() {
  if (hostOnly(devices_)) return;
  ExtractionDevices d{poolOf_, std::vector<bool>(devices_.size(), true), runtime_->hostVisiblePools()};
  trace_.extraction = ks::extract(program_.graph, program_.resultClasses(), d);
}

void Session::plan(const Progress& progress) {
  if (hostOnly(devices_)) return;
  const int max = options_.planCandidates > 0 ? options_.planCandidates
                  : options_.tune == TuneLevel::None ? 1
                  : options_.tune == TuneLevel::Quick ? 5
                                                       : 10;
  trace_.planChoice = {};
  if (max <= 1) {
    ExtractionDevices d{poolOf_, std::vector<bool>(devices_.size(), true), runtime_->hostVisiblePools()};
    std::vector<std::string> names;
    for (auto& dev : devices_) names.push_back(dev.name);
    trace_.plan = buildPlan(program_.graph, program_.resultClasses(), trace_.extraction, trace_.entries, d, names);
  } else {
    // A warm compile (the same graph, devices and kernel schedules) reuses this process's choice.
    const uint64_t key = planChoiceKey(planKey(), max, options_.zeroCopy, trace_.entries);
    if (std::optional<PlanChoice> kept = options_.cache == "none" ? std::nullopt : findPlanChoice(key)) {
      trace_.planChoice = std::move(*kept);
      trace_.planChoice.why += "; measured by an earlier compile of this program in this process";
    } else {
      choosePlanByMeasurement(max, progress);
      keepPlanChoice(key, trace_.planChoice);
    }
    const PlanCandidate& w = trace_.planChoice.candidates.at(static_cast<std::size_t>(trace_.planChoice.chosen));
    trace_.extraction = w.extraction;
    trace_.plan = w.plan;
  }
  trace_.plan.key = planKey();
  prepared_.reset();
  recordPlanForms();
}

// Extraction's candidates, each prepared and timed on the devices, then the local search.
void Session::choosePlanByMeasurement(int max, const Progress& progress) {
  progress.report(0.0, "measuring candidate plans");
  const std::vector<ClassId> outputs = program_.resultClasses();
  const std::vector<bool> hostVisible = runtime_->hostVisiblePools();
  const PlanInputs in{program_.graph, outputs, trace_.entries, devices_, poolOf_, hostVisible};
  // The device subsets take all but one slot (the mixed plan, each device alone, OpenBLAS's
  // thread twins); the rest go to the local search from the fastest of them.
  PlanNodeSets seen;
  std::vector<PlanCandidate> candidates = planCandidates(in, max >= 3 ? max - 1 : max, seen);
  ChoiceLimits limits;
  limits.maxCandidates = max;
  trace_.planChoice = choosePlan(
      std::move(candidates), [&](const PlanCandidate& c) { return prepareCandidate(c, progress); }, limits,
      [&](const PlanCandidate& base, int room) {
        progress.check("the plan choice");
        progress.report(0.5, "measuring local-search neighbours of " + candidateName(base));
        return localNeighbours(in, base, seen, room);
      });
  trace_.planChoice.policy = blasPolicy(trace_.planChoice, devices_);
}

Extraction Session::extractWithout(const std::vector<NodeId>& excluded) const {
  if (!live() || !hasStage(Stage::Planned) || hostOnly(devices_))
    throw Error(ErrorCode::Usage, "what-if extraction needs a compiled plan on compiling devices");
  std::vector<bool> allowed(devices_.size(), true);
  std::vector<NodeId> without = excluded;
  if (trace_.planChoice.chosen >= 0) {
    const PlanCandidate& kept = trace_.planChoice.candidates.at(static_cast<std::size_t>(trace_.planChoice.chosen));
    allowed = kept.allowed;
    without.insert(without.end(), kept.excluded.begin(), kept.excluded.end());  // what the local search left out
  }
  ExtractionDevices d{poolOf_, allowed, runtime_->hostVisiblePools()};
  return ks::extract(program_.graph, program_.resultClasses(), d, without);
}

// The plan's kernel steps: fused kernels by trace kernel index, GEMMs by match index.
PlanKernels Session::planKernels() const {
  PlanKernels p;
  for (NodeId id : trace_.extraction.order) {
    const Node& n = program_.graph.node(id);
    if (n.kind != NodeKind::Kernel) continue;
    const KernelEntry& e = trace_.entries.at(n.ref);
    if (e.kind == KernelEntry::Kind::Gemm) p.gemms.push_back(n.ref);
    else p.fused.push_back(e.fused);
  }
  return p;
}

// How much of the plan each candidate term made (its kernel steps, and those no other term
// made), and the kernelizer run the plan's kernels come from.
void Session::recordPlanForms() {
  const PlanKernels plan = planKernels();
  trace_.planRun = planRunOf(trace_.fusionRuns, plan);
  auto& cands = trace_.rewrite.candidates;
  if (cands.empty()) return;
  for (TermCandidateRecord& c : cands) c.planKernels = c.planOnly = 0;
  const auto count = [&cands](uint32_t index, bool gemm) {
    std::vector<std::size_t> makers;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const auto& list = gemm ? cands[i].gemms : cands[i].kernels;
      if (std::find(list.begin(), list.end(), index) != list.end()) makers.push_back(i);
    }
    for (std::size_t i : makers) {
      ++cands[i].planKernels;
      cands[i].planOnly += makers.size() == 1;
    }
  };
  for (uint32_t k : plan.fused) count(k, false);
  for (uint32_t m : plan.gemms) count(m, true);
  trace_.rewrite.planCandidate = 0;
  for (std::size_t i = 1; i < cands.size(); ++i)
    if (cands[i].planKernels > cands[static_cast<std::size_t>(trace_.rewrite.planCandidate)].planKernels)
      trace_.rewrite.planCandidate = static_cast<int>(i);
}

// A candidate made ready to time: prepared on the program's random inputs and the session's
// parameters, run once cold; each timed run after that is one steady-state run.
PreparedCandidate Session::prepareCandidate(const PlanCandidate& c, const Progress& progress) {
  const PlanSource source{program_.graph, c.plan, trace_.entries, trace_.kernels, devices_};
  std::vector<HostTensor> leaves = bindLeaves(program_, {}, options_.seed);
  for (auto& [i, value] : paramValues_) leaves[program_.params[i].leaf] = value;
  auto p = std::make_shared<PreparedPlan>(source, *runtime_, std::move(leaves));
  p->setBlasThreads(c.blasThreads);
  RunRecord cold;
  p->run(progress, cold);
  PreparedCandidate out;
  out.coldNs = cold.totalNs;
  for (const PlanAllocation& a : c.plan.allocations) out.bytes += a.bytes;
  out.bytes += p->residentBytes();
  out.time = [p, &progress] {
    RunRecord r;
    p->run(progress, r);
    return r.totalNs;
  };
  return out;
}

void Session::keepPlanCandidate(std::size_t i) {
  if (!live() || !hasStage(Stage::Planned))
    throw Error(ErrorCode::Usage, "keeping a candidate plan needs the plan stage of a live session");
  PlanChoice& pc = trace_.planChoice;
  if (i >= pc.candidates.size())
    throw Error(ErrorCode::Usage, "there is no candidate plan " + std::to_string(i) + " (" +
                                      std::to_string(pc.candidates.size()) + " proposed)");
  for (PlanCandidate& c : pc.candidates) c.chosen = false;
  PlanCandidate& kept = pc.candidates[i];
  kept.chosen = true;
  pc.chosen = static_cast<int>(i);
  pc.why = "kept by request: " + candidateName(kept);
  trace_.extraction = kept.extraction;
  trace_.plan = kept.plan;
  trace_.plan.key = planKey();
  prepared_.reset();
  recordPlanForms();
}

// What a plan was made for: the graph (its cache key, Kernel and copy nodes included) and the
// device selection its steps index. A loaded session checks it against its own graph and devices.
uint64_t Session::planKey() const {
  uint64_t key = program_.cacheKey();
  for (const DeviceInfo& dev : devices_)
    for (char ch : dev.name) key = (key ^ static_cast<uint64_t>(ch)) * 1099511628211ull;
  return key;
}

// ---------------------------------------------------------------- run
const RunRecord& Session::run(const std::vector<std::pair<std::string, HostTensor>>& inputs, bool verify,
                              const Progress& progress) {
  if (!live())
    throw Error(ErrorCode::Usage, "this session was loaded from a file: it has no devices to run on");
  runTo(Stage::Planned, progress);
  std::vector<HostTensor> leaves = boundLeaves(inputs);
  const auto results = program_.resultClasses();
  RunRecord rec;
  rec.step = steps_;
  for (auto& d : devices_) rec.devices.push_back(d.name);
  const std::vector<HostTensor> values = execute(leaves, progress, rec);
  HostCheck check;
  if (verify) {
    progress.report(1.0, "verifying against host");
    // Parameters and constants of a prepared plan are its own (boundLeaves left them out).
    for (std::size_t i = 0; prepared_ && i < leaves.size(); ++i)
      if (program_.graph.leaf(static_cast<uint32_t>(i)).kind != LeafKind::Input) leaves[i] = prepared_->leaf(static_cast<uint32_t>(i));
    // The oracle runs the program as built, not the term the rewrites chose.
    const auto v0 = Clock::now();
    check = checkAgainstHost(original_ ? *original_ : program_.graph, program_.graph, results, leaves, values,
                             options_.verify, anyInexactMerge(trace_.rewrite.report));
    rec.verifyNs = std::chrono::duration<double, std::nano>(Clock::now() - v0).count();
    rec.verified = true;
    rec.verifyMode = check.mode;
    rec.verifyChecked = check.checked;
    rec.verifyTotal = check.total;
    rec.verifyReason = check.reason;
  }
  const std::size_t nOut = program_.outputs.size();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string& name = i < nOut ? program_.outputs[i].name : program_.params[program_.updates[i - nOut].param].name;
    OutputValue o = describeOutput(name, values[i]);
    if (verify) {
      o.verified = check.mode != VerifyMode::Skipped;
      o.mismatch = check.mismatch[i];
      o.maxAbsError = check.maxAbsError[i];
      rec.verifyPassed = rec.verifyPassed && o.mismatch.empty();
    }
    (i < nOut ? rec.outputs : rec.updates).push_back(std::move(o));
  }
  // The writes of `p <- expr` happen after every read of the step: the next step sees them.
  for (std::size_t u = 0; u < program_.updates.size(); ++u)
    setParam(program_.params[program_.updates[u].param].name, values[nOut + u]);
  ++steps_;
  runs_.push_back(std::move(rec));
  return runs_.back();
}

std::vector<HostTensor> Session::boundLeaves(const std::vector<std::pair<std::string, HostTensor>>& inputs) const {
  if (!prepared_) {
    std::vector<HostTensor> leaves = bindLeaves(program_, inputs, options_.seed);
    for (auto& [i, value] : paramValues_) leaves[program_.params[i].leaf] = value;
    return leaves;
  }
  // Parameters and constants live in the prepared plan; only the inputs are new.
  std::vector<HostTensor> leaves(program_.graph.leaves().size());
  bindInputs(program_, inputs, options_.seed, leaves);
  return leaves;
}

std::vector<HostTensor> Session::paramValues() const {
  std::vector<HostTensor> r;
  for (const ProgramParam& p : program_.params) r.push_back(param(p.name));
  return r;
}

std::vector<HostTensor> Session::execute(const std::vector<HostTensor>& leaves, const Progress& progress, RunRecord& rec) {
  if (hostOnly(devices_)) {
    if (&leaves != &hostLeaves_) hostLeaves_ = leaves;
    const auto t0 = Clock::now();
    std::vector<HostTensor> values = HostExecutor::run(program_.graph, program_.resultClasses(), leaves);
    StepTiming t{"reference executor (node by node)", "host", "host", 0, 0, 0};
    t.ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    rec.totalNs = rec.kernelNs = t.ns;
    rec.cold = runs_.empty();
    rec.steps.push_back(t);
    return values;
  }
  if (!prepared_) {
    const PlanSource source{program_.graph, trace_.plan, trace_.entries, trace_.kernels, devices_};
    prepared_ = std::make_unique<PreparedPlan>(source, *runtime_, leaves);
    const PlanChoice& pc = trace_.planChoice;
    if (pc.chosen >= 0) prepared_->setBlasThreads(pc.candidates.at(static_cast<std::size_t>(pc.chosen)).blasThreads);
  } else {
    for (const ProgramInput& in : program_.inputs) prepared_->setLeaf(in.leaf, leaves[in.leaf]);
  }
  return prepared_->run(progress, rec);
}

SteadyState Session::repeatRuns(int warmups, int runs, double maxSeconds, const Progress& progress) {
  if (runs_.empty() || (!prepared_ && !hostOnly(devices_)))
    throw Error(ErrorCode::Usage, "repeatRuns needs a run of the session first");
  std::vector<RunRecord> timed;
  double spentNs = 0;
  for (int i = 0; i < warmups + runs; ++i) {
    progress.check("the steady-state runs");
    progress.report(static_cast<double>(i) / (warmups + runs), "steady-state run " + std::to_string(i + 1));
    RunRecord rec;
    if (prepared_) prepared_->run(progress, rec);
    else execute(hostLeaves_, progress, rec);
    if (i < warmups) continue;
    spentNs += rec.totalNs;
    timed.push_back(std::move(rec));
    if (spentNs > maxSeconds * 1e9) break;
  }
  return steadyStateOf(timed, warmups);
}

std::size_t Session::paramIndex(const std::string& name) const {
  for (std::size_t i = 0; i < program_.params.size(); ++i)
    if (program_.params[i].name == name) return i;
  throw Error(ErrorCode::Usage, "the program has no parameter named '" + name + "'");
}

void Session::setParam(const std::string& name, HostTensor value) {
  const std::size_t i = paramIndex(name);
  const LeafInfo& l = program_.graph.leaf(program_.params[i].leaf);
  if (value.shape() != l.shape)
    throw Error(ErrorCode::Shape, "parameter '" + name + "' has shape " + shapeStr(l.shape) + ", got " + shapeStr(value.shape()));
  value = value.castTo(l.dtype);
  if (prepared_) prepared_->setLeaf(program_.params[i].leaf, value);
  for (auto& [k, v] : paramValues_)
    if (k == i) {
      v = std::move(value);
      return;
    }
  paramValues_.push_back({i, std::move(value)});
}

HostTensor Session::param(const std::string& name) const {
  const std::size_t i = paramIndex(name);
  for (auto& [k, v] : paramValues_)
    if (k == i) return v;
  return program_.paramValue(i);
}

std::string Session::kernelSource(uint32_t kernel, const std::string& schedule, std::string* lowered) const {
  const Kernel& k = trace_.kernels.at(kernel).fused.kernel;
  Schedule s;
  DeviceLimits limits;
  bool found = schedule.empty() || schedule == "default";
  auto pick = [&](const std::string& json, uint32_t device) {
    s = Schedule::fromJsonText(json);
    limits = limitsOf(devices_.at(device));
    found = true;
  };
  for (const KernelEntry& e : trace_.entries)
    if (!found && e.kind == KernelEntry::Kind::Fused && e.fused == kernel && e.schedule == schedule) pick(e.scheduleJson, e.device);
  if (!found) {
    // Any measured schedule: re-enumerate and match by its text.
    for (std::size_t d = 0; d < devices_.size() && !found; ++d) {
      if (!devices_[d].compiles()) continue;
      for (const Schedule& c : enumerateSchedules(k, limitsOf(devices_[d]), TuneLevel::Full))
        if (c.str() == schedule) {
          s = c;
          limits = limitsOf(devices_[d]);
          found = true;
          break;
        }
    }
  }
  if (!found) throw Error(ErrorCode::Usage, "kernel " + std::to_string(kernel) + " has no schedule '" + schedule + "'");
  const LoweredKernel lk = lowerKernel(k, s, limits);
  if (lowered) *lowered = lk.print();
  return emitOpenCL(lk, "k" + std::to_string(kernel));
}

}  // namespace ks
