// Two sessions compared by structure (see session_diff.h).
#include "engine/session/session_diff.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "engine/graph/term_hash.h"

namespace ks {

namespace {
// One session with everything the diff matches on computed once.
struct Indexed {
  const Session& s;
  std::vector<std::string> deviceNames;
  std::vector<uint64_t> term;     // by class id
  std::vector<uint64_t> fused;    // by fused kernel index
  std::vector<DiffStep> steps;    // by plan step
  std::vector<uint64_t> stepKey;  // by plan step: the term hashes of what it computes
  bool fromRun = false;
};

uint64_t fusedHash(const FusedKernel& f, const std::vector<uint64_t>& term) {
  uint64_t h = hashMix(0xf05edull, f.kernel.hash());
  for (ClassId c : f.loads) h = hashMix(h, term.at(c.v));
  h = hashMix(h, 0x5707e5ull);
  for (ClassId c : f.stores) h = hashMix(h, term.at(c.v));
  return h;
}

uint64_t gemmHash(const GemmSpec& spec, const Node& n, const std::vector<uint64_t>& term) {
  uint64_t h = hashMix(hashString(spec.str()), static_cast<uint64_t>(spec.strideA));
  h = hashMix(h, static_cast<uint64_t>(spec.strideB));
  for (ClassId c : n.in) h = hashMix(h, term.at(c.v));
  for (ClassId c : n.out) h = hashMix(h, term.at(c.v));
  return h;
}

// The kernel a Kernel node runs, by structure.
uint64_t kernelHashOf(const Indexed& ix, const Node& n) {
  const KernelEntry& e = ix.s.trace().entries.at(n.ref);
  return e.kind == KernelEntry::Kind::Gemm ? gemmHash(e.gemm, n, ix.term) : ix.fused.at(e.fused);
}

std::string kernelNameOf(const Indexed& ix, const KernelEntry& e) {
  return e.kind == KernelEntry::Kind::Gemm ? e.gemm.str() : ix.s.trace().kernels.at(e.fused).name;
}

DiffStep stepOf(const Indexed& ix, std::size_t i) {
  const CompileTrace& t = ix.s.trace();
  const PlanStep& st = t.plan.steps[i];
  const Graph& g = ix.s.graph();
  const Node& n = g.node(st.node);
  DiffStep d;
  d.index = static_cast<int>(i);
  d.label = st.label;
  d.device = ix.deviceNames.at(st.device);
  d.ns = ix.fromRun ? ix.s.runs().back().steps[i].ns : n.timeNs;
  if (st.kind == PlanStep::Kind::Copy) {
    d.kind = "copy";
    d.kernel = ix.term.at(g.classOf(st.node).v);
    return d;
  }
  const KernelEntry& e = t.entries.at(st.kernel);
  d.kind = e.kind == KernelEntry::Kind::Gemm ? "gemm" : "launch";
  if (e.kind == KernelEntry::Kind::Fused) d.schedule = e.schedule;
  d.kernel = kernelHashOf(ix, n);
  return d;
}

// What a step computes: the classes it stores (a copy: the copy's class), by structure.
uint64_t stepKeyOf(const Indexed& ix, std::size_t i) {
  const PlanStep& st = ix.s.trace().plan.steps[i];
  const Graph& g = ix.s.graph();
  if (st.kind == PlanStep::Kind::Copy) return hashMix(0xc0907ull, ix.term.at(g.classOf(st.node).v));
  std::vector<uint64_t> outs;
  for (ClassId c : g.node(st.node).out) outs.push_back(ix.term.at(g.find(c).v));
  std::sort(outs.begin(), outs.end());
  uint64_t h = 0x1a0c4ull;
  for (uint64_t o : outs) h = hashMix(h, o);
  return h;
}

Indexed indexSession(const Session& s, const std::string& file) {
  if (!s.hasStage(Stage::Planned) || s.trace().plan.steps.empty())
    throw Error(ErrorCode::Usage, (file.empty() ? std::string("a session") : file) +
                                      ": has no plan to compare (it was saved before the plan stage, or runs on host alone)");
  Indexed ix{s, {}, {}, {}, {}, {}, false};
  for (const DeviceInfo& d : s.devices()) ix.deviceNames.push_back(d.name);
  ix.term = termHashes(s.graph(), ix.deviceNames);
  for (const KernelRecord& k : s.trace().kernels) ix.fused.push_back(fusedHash(k.fused, ix.term));
  const std::size_t n = s.trace().plan.steps.size();
  ix.fromRun = !s.runs().empty() && s.runs().back().steps.size() == n;
  for (std::size_t i = 0; i < n; ++i) {
    ix.steps.push_back(stepOf(ix, i));
    ix.stepKey.push_back(stepKeyOf(ix, i));
  }
  return ix;
}

DiffSide sideOf(const Indexed& ix, const std::string& file) {
  const Session& s = ix.s;
  DiffSide d;
  d.file = file;
  d.program = s.program().name;
  d.devices = ix.deviceNames;
  d.tune = s.trace().tuneLevel;
  for (ClassId c : s.graph().canonicalClasses()) d.classes += s.graph().structural(c).isStructural();
  d.kernels = s.trace().kernels.size();
  d.steps = s.trace().plan.steps.size();
  d.predictedNs = s.trace().plan.predictedNs;
  if (!s.runs().empty()) d.runNs = s.runs().back().totalNs;
  d.timesFromRun = ix.fromRun;
  return d;
}

// Term hashes of the structural values of a session, each with its class id.
std::unordered_map<uint64_t, uint32_t> valueClasses(const Indexed& ix) {
  std::unordered_map<uint64_t, uint32_t> r;
  const Graph& g = ix.s.graph();
  for (ClassId c : g.canonicalClasses())
    if (g.structural(c).isStructural()) r.emplace(ix.term[c.v], c.v);
  return r;
}

void matchClasses(const Indexed& a, const Indexed& b, SessionDiff& d) {
  const auto ca = valueClasses(a), cb = valueClasses(b);
  for (const auto& [h, c] : ca) {
    if (cb.count(h)) ++d.matchedClasses;
    else d.onlyAClasses.push_back(c);
  }
  for (const auto& [h, c] : cb)
    if (!ca.count(h)) d.onlyBClasses.push_back(c);
  std::sort(d.onlyAClasses.begin(), d.onlyAClasses.end());
  std::sort(d.onlyBClasses.begin(), d.onlyBClasses.end());
}

// Every kernel a session has, launched or not (fused kernels and the GEMMs of its Kernel nodes).
std::unordered_set<uint64_t> compiledKernels(const Indexed& ix) {
  std::unordered_set<uint64_t> r(ix.fused.begin(), ix.fused.end());
  const Graph& g = ix.s.graph();
  for (std::size_t i = 0; i < g.nodeCount(); ++i) {
    const Node& n = g.node(NodeId(static_cast<uint32_t>(i)));
    if (n.kind == NodeKind::Kernel && ix.s.trace().entries.at(n.ref).kind == KernelEntry::Kind::Gemm)
      r.insert(kernelHashOf(ix, n));
  }
  return r;
}

void addLaunches(const Indexed& ix, bool sideA, std::vector<DiffKernel>& rows, std::unordered_map<uint64_t, std::size_t>& at) {
  const CompileTrace& t = ix.s.trace();
  for (std::size_t i = 0; i < ix.steps.size(); ++i) {
    const DiffStep& st = ix.steps[i];
    if (st.kind == "copy") continue;
    auto [it, fresh] = at.emplace(st.kernel, rows.size());
    if (fresh) rows.emplace_back();
    DiffKernel& k = rows[it->second];
    k.hash = st.kernel;
    k.gemm = st.kind == "gemm";
    std::string& name = sideA ? k.nameA : k.nameB;
    std::optional<double>& ns = sideA ? k.nsA : k.nsB;
    name = kernelNameOf(ix, t.entries.at(t.plan.steps[i].kernel));
    ns = ns.value_or(0) + st.ns;
    (sideA ? k.deviceA : k.deviceB) = st.device;
    (sideA ? k.scheduleA : k.scheduleB) = st.schedule;
  }
}

std::vector<DiffKernel> diffKernels(const Indexed& a, const Indexed& b) {
  std::vector<DiffKernel> rows;
  std::unordered_map<uint64_t, std::size_t> at;
  addLaunches(a, true, rows, at);
  addLaunches(b, false, rows, at);
  const auto ka = compiledKernels(a), kb = compiledKernels(b);
  for (DiffKernel& k : rows) {
    k.compiledA = ka.count(k.hash) > 0;
    k.compiledB = kb.count(k.hash) > 0;
  }
  return rows;
}

// The term hashes of the classes a launch computes (a fused kernel: every class inside it and
// its stores; a GEMM: its stores). Empty for copies.
std::unordered_set<uint64_t> computedBy(const Indexed& ix, std::size_t step) {
  std::unordered_set<uint64_t> r;
  const PlanStep& st = ix.s.trace().plan.steps[step];
  if (st.kind == PlanStep::Kind::Copy) return r;
  const Graph& g = ix.s.graph();
  const KernelEntry& e = ix.s.trace().entries.at(st.kernel);
  if (e.kind == KernelEntry::Kind::Fused) {
    const FusedKernel& f = ix.s.trace().kernels.at(e.fused).fused;
    for (ClassId c : f.classes) r.insert(ix.term.at(g.find(c).v));
    for (ClassId c : f.stores) r.insert(ix.term.at(g.find(c).v));
  }
  for (ClassId c : g.node(st.node).out) r.insert(ix.term.at(g.find(c).v));
  return r;
}

// Steps that compute exactly the same classes pair first; the launches left then pair by the
// most classes computed in common (a kernel that fused one more op, or a GEMM that took over a
// matmul from a fused kernel), each step at most once.
std::vector<std::pair<std::size_t, std::size_t>> pairSteps(const Indexed& a, const Indexed& b) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::unordered_map<uint64_t, std::size_t> inB;
  for (std::size_t i = 0; i < b.stepKey.size(); ++i) inB.emplace(b.stepKey[i], i);
  std::vector<bool> usedA(a.steps.size()), usedB(b.steps.size());
  for (std::size_t i = 0; i < a.stepKey.size(); ++i)
    if (auto it = inB.find(a.stepKey[i]); it != inB.end() && !usedB[it->second]) {
      pairs.push_back({i, it->second});
      usedA[i] = usedB[it->second] = true;
    }
  std::unordered_map<uint64_t, std::vector<std::size_t>> bStepsOf;  // class hash -> unpaired B launches
  for (std::size_t j = 0; j < b.steps.size(); ++j)
    if (!usedB[j])
      for (uint64_t h : computedBy(b, j)) bStepsOf[h].push_back(j);
  struct Candidate {
    int common;
    std::size_t i, j;
  };
  std::vector<Candidate> cands;
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    if (usedA[i]) continue;
    std::map<std::size_t, int> common;
    for (uint64_t h : computedBy(a, i))
      if (auto it = bStepsOf.find(h); it != bStepsOf.end())
        for (std::size_t j : it->second) ++common[j];
    for (const auto& [j, n] : common) cands.push_back({n, i, j});
  }
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) { return x.common > y.common; });
  for (const Candidate& c : cands)
    if (!usedA[c.i] && !usedB[c.j]) {
      pairs.push_back({c.i, c.j});
      usedA[c.i] = usedB[c.j] = true;
    }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

PlanDiff diffPlan(const Indexed& a, const Indexed& b, SessionDiff& d) {
  PlanDiff p;
  d.stepStatusA.assign(a.steps.size(), "only_a");
  d.stepStatusB.assign(b.steps.size(), "only_b");
  for (const auto& [i, j] : pairSteps(a, b)) {
    const DiffStep &sa = a.steps[i], &sb = b.steps[j];
    DiffStepChange c{sa, sb, {}};
    if (sa.kind != sb.kind) c.what.push_back("kind");
    if (sa.device != sb.device) c.what.push_back("device");
    if (sa.schedule != sb.schedule) c.what.push_back("schedule");
    if (sa.kernel != sb.kernel) c.what.push_back("kernel");
    const char* status = c.what.empty() ? "same" : "changed";
    d.stepStatusA[i] = d.stepStatusB[j] = status;
    if (c.what.empty()) ++p.same;
    else p.changed.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < a.steps.size(); ++i)
    if (d.stepStatusA[i] == "only_a") p.onlyA.push_back(a.steps[i]);
  for (std::size_t j = 0; j < b.steps.size(); ++j)
    if (d.stepStatusB[j] == "only_b") p.onlyB.push_back(b.steps[j]);
  return p;
}

uint64_t fusionSignature(const Indexed& ix, const FusionStep& s) {
  auto termOf = [&](uint32_t c) { return c < ix.term.size() ? ix.term[c] : 0; };
  uint64_t h = hashMix(static_cast<uint64_t>(s.action), termOf(s.cls));
  h = hashMix(h, termOf(s.subject));
  return hashMix(h, hashString(s.rule));
}

DiffFusionStep fusionStepOf(const FusionStep& s) {
  return {s.index, std::string(fusionActionName(s.action)), s.node, s.rule, s.reason, s.cls};
}

FusionDecisionDiff diffFusion(const Indexed& a, const Indexed& b) {
  // The static best's run before AOT matching: the one every session has, made the same way.
  static const std::vector<FusionStep> none;
  const auto stepsOf = [](const Session& s) -> const std::vector<FusionStep>& {
    return s.trace().fusionRuns.empty() ? none : s.trace().fusionRuns.front().trace.steps;
  };
  const auto& sa = stepsOf(a.s);
  const auto& sb = stepsOf(b.s);
  FusionDecisionDiff f;
  f.stepsA = static_cast<int>(sa.size());
  f.stepsB = static_cast<int>(sb.size());
  std::vector<uint64_t> ha, hb;
  for (const FusionStep& s : sa) ha.push_back(fusionSignature(a, s));
  for (const FusionStep& s : sb) hb.push_back(fusionSignature(b, s));
  std::size_t i = 0;
  while (i < ha.size() && i < hb.size() && ha[i] == hb[i]) ++i;
  if (i < ha.size() || i < hb.size()) {
    f.firstDifference = static_cast<int>(i);
    if (i < sa.size()) f.a = fusionStepOf(sa[i]);
    if (i < sb.size()) f.b = fusionStepOf(sb[i]);
  }
  // Multiset difference: a decision made twice on one side and once on the other counts once.
  std::map<uint64_t, int> count;
  for (uint64_t h : ha) ++count[h];
  for (uint64_t h : hb) --count[h];
  for (const auto& [h, c] : count) (c > 0 ? f.onlyA : f.onlyB) += std::abs(c);
  return f;
}

// What a class's extracted producer is, by structure, and in words.
std::pair<uint64_t, std::string> choiceOf(const Indexed& ix, NodeId chosen) {
  if (!chosen.valid()) return {0x1eafull, "leaf"};
  const Graph& g = ix.s.graph();
  const Node& n = g.node(chosen);
  const std::string& dev = ix.deviceNames.at(n.device);
  if (n.kind == NodeKind::ToDevice) return {hashMix(0xc0907ull, hashString(dev)), "copy to " + dev};
  if (n.kind != NodeKind::Kernel) return {hashMix(0x57ac7ull, n.hash()), n.label()};
  const KernelEntry& e = ix.s.trace().entries.at(n.ref);
  std::string text = kernelNameOf(ix, e) + " on " + dev;
  if (e.kind == KernelEntry::Kind::Fused) text += " (" + e.schedule + ")";
  uint64_t h = hashMix(kernelHashOf(ix, n), hashString(dev));
  return {hashMix(h, hashString(e.schedule)), text};
}

std::vector<DiffChoice> diffChoices(const Indexed& a, const Indexed& b) {
  std::unordered_map<uint64_t, const ClassDecision*> inB;
  for (const ClassDecision& d : b.s.trace().extraction.decisions) inB.emplace(b.term.at(d.cls.v), &d);
  std::vector<DiffChoice> r;
  for (const ClassDecision& da : a.s.trace().extraction.decisions) {
    auto it = inB.find(a.term.at(da.cls.v));
    if (it == inB.end()) continue;
    const ClassDecision& db = *it->second;
    const auto ca = choiceOf(a, da.chosen), cb = choiceOf(b, db.chosen);
    if (ca.first == cb.first) continue;
    r.push_back({da.cls.v, db.cls.v, a.s.graph().structural(da.cls).label(), ca.second, cb.second, da.why, db.why});
  }
  return r;
}
}  // namespace

SessionDiff diffSessions(const Session& sa, const Session& sb, const std::string& fileA, const std::string& fileB) {
  const Indexed a = indexSession(sa, fileA), b = indexSession(sb, fileB);
  SessionDiff d;
  d.a = sideOf(a, fileA);
  d.b = sideOf(b, fileB);
  matchClasses(a, b, d);
  d.kernels = diffKernels(a, b);
  d.plan = diffPlan(a, b, d);
  d.fusion = diffFusion(a, b);
  d.choices = diffChoices(a, b);
  return d;
}

}  // namespace ks
