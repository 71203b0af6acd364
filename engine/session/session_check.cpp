// Validation of a loaded session: each rule names the JSON pointer of the value it checks, in the
// layout Session::toJson writes.
#include "engine/session/session_check.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "engine/session/session.h"

namespace ks {

namespace {
std::string at(const std::string& path, std::size_t i) { return path + "/" + std::to_string(i); }

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::Parse, path + ": " + what);
}

// `v` must index a list of `n` things described by `what` ("a buffer of the plan").
void inRange(const std::string& path, uint64_t v, std::size_t n, const char* what) {
  if (v < n) return;
  const std::string range = n == 0 ? " (there are none)" : " (0.." + std::to_string(n - 1) + ")";
  bad(path, std::string("expected ") + what + range + ", found " + std::to_string(v));
}

void shape(const std::string& path, const Shape& s) {
  for (std::size_t d = 0; d < s.size(); ++d)
    if (s[d] < 0) bad(at(path, d), "expected a dimension >= 0, found " + std::to_string(s[d]));
}

void stage(const std::string& path, Stage s) {
  if (s > Stage::Planned)
    bad(path, "expected a stage 0.." + std::to_string(static_cast<int>(Stage::Planned)) + ", found " +
                  std::to_string(static_cast<int>(s)));
}

// Counts the checks compare against.
struct Sizes {
  std::size_t classes, nodes, leaves, devices, kernels, entries;
  const Graph& graph;
};

std::string describe(DType t, const Shape& s) { return std::string(dtypeName(t)) + shapeStr(s); }

// A kernel reads each loaded class through its read parameter of the same dtype and shape, and
// writes each stored class (of its element count) through a store: what the views and the
// plan take from the class is what the kernel reads and writes.
void paramsMatchClasses(const std::string& path, const FusedKernel& f, const Sizes& n) {
  const std::vector<int32_t> reads = f.kernel.readParams(), stores = f.kernel.storeOps();
  for (std::size_t i = 0; i < reads.size(); ++i) {
    const KOp& p = f.kernel.at(reads[i]);
    const ClassId c = f.loads[i];
    if (p.dtype != n.graph.dtype(c) || p.shape != n.graph.shape(c))
      bad(at(path + "/loads", i), "expected a class of the kernel's read parameter's " + describe(p.dtype, p.shape) + ", found %" +
                                      std::to_string(c.v) + " of " + describe(n.graph.dtype(c), n.graph.shape(c)));
  }
  for (std::size_t i = 0; i < stores.size(); ++i) {
    const KOp& st = f.kernel.at(stores[i]);
    const ClassId c = f.stores[i];
    if (st.dtype != n.graph.dtype(c) || numel(st.shape) != numel(n.graph.shape(c)))
      bad(at(path + "/stores", i), "expected a class of the stored value's " + describe(st.dtype, st.shape) + ", found %" +
                                       std::to_string(c.v) + " of " + describe(n.graph.dtype(c), n.graph.shape(c)));
  }
}

void classList(const std::string& path, const std::vector<ClassId>& v, const Sizes& n) {
  for (std::size_t i = 0; i < v.size(); ++i) inRange(at(path, i), v[i].v, n.classes, "a class of the graph");
}

void fused(const std::string& path, const FusedKernel& f, const Sizes& n) {
  if (std::string p = verifyKernel(f.kernel); !p.empty()) bad(path + "/kernel", "not a valid kernel: " + p);
  classList(path + "/loads", f.loads, n);
  classList(path + "/stores", f.stores, n);
  classList(path + "/classes", f.classes, n);
  if (f.kernel.readParams().size() != f.loads.size())
    bad(path + "/loads", "expected one load per read parameter of the kernel (" + std::to_string(f.kernel.readParams().size()) +
                             "), found " + std::to_string(f.loads.size()));
  if (f.kernel.storeOps().size() != f.stores.size())
    bad(path + "/stores", "expected one store per store op of the kernel (" + std::to_string(f.kernel.storeOps().size()) +
                              "), found " + std::to_string(f.stores.size()));
  paramsMatchClasses(path, f, n);
}

void program(const Session& s, const Sizes& n) {
  const Program& p = s.program();
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    inRange(at("/program/inputs", i) + "/class", p.inputs[i].cls.v, n.classes, "a class of the graph");
    inRange(at("/program/inputs", i) + "/leaf", p.inputs[i].leaf, n.leaves, "a leaf of the graph");
  }
  for (std::size_t i = 0; i < p.params.size(); ++i) {
    inRange(at("/program/params", i) + "/class", p.params[i].cls.v, n.classes, "a class of the graph");
    inRange(at("/program/params", i) + "/leaf", p.params[i].leaf, n.leaves, "a leaf of the graph");
    inRange(at("/program/params", i) + "/init", static_cast<uint64_t>(p.params[i].init.kind), 7, "an initializer kind");
  }
  for (std::size_t i = 0; i < p.outputs.size(); ++i)
    inRange(at("/program/outputs", i) + "/class", p.outputs[i].cls.v, n.classes, "a class of the graph");
  for (std::size_t i = 0; i < p.updates.size(); ++i) {
    const std::string path = at("/program/updates", i);
    inRange(path + "/param", p.updates[i].param, p.params.size(), "a parameter of the program");
    inRange(path + "/class", p.updates[i].value.v, n.classes, "a class of the graph");
    const LeafInfo& l = n.graph.leaf(p.params[p.updates[i].param].leaf);  // leaves checked above
    const ClassId c = p.updates[i].value;
    if (n.graph.dtype(c) != l.dtype || n.graph.shape(c) != l.shape)
      bad(path + "/class", "expected a class of the parameter's " + describe(l.dtype, l.shape) + ", found %" + std::to_string(c.v) +
                               " of " + describe(n.graph.dtype(c), n.graph.shape(c)));
  }
  inRange("/options/tune", static_cast<uint64_t>(s.options().tune), 3, "a tuning level");
}

void graph(const Graph& g, const Sizes& n) {
  for (std::size_t i = 0; i < g.leaves().size(); ++i) shape(at("/graph/leaves", i) + "/shape", g.leaves()[i].shape);
  for (std::size_t c = 0; c < g.classCount(); ++c) shape(at("/graph/classes", c) + "/shape", g.eclass(ClassId(c)).shape);
  for (std::size_t i = 0; i < g.nodeCount(); ++i) {
    const Node& nd = g.node(NodeId(i));
    const std::string path = at("/graph/nodes", i);
    if (nd.kind == NodeKind::Kernel) {
      inRange(path + "/ref", nd.ref, n.entries, "a kernel entry of the trace");
      classList(path + "/out", nd.out, n);
    }
    if (nd.kind == NodeKind::Kernel || nd.kind == NodeKind::ToDevice) inRange(path + "/device", nd.device, n.devices, "a device");
  }
}

void plan(const ExecPlan& pl, const Sizes& n, std::size_t pools) {
  const std::size_t nb = pl.buffers.size();
  for (std::size_t i = 0; i < pl.steps.size(); ++i) {
    const PlanStep& st = pl.steps[i];
    const std::string path = at("/trace/plan/steps", i);
    inRange(path + "/node", st.node.v, n.nodes, "a node of the graph");
    inRange(path + "/device", st.device, n.devices, "a device");
    if (st.kind == PlanStep::Kind::Launch) inRange(path + "/kernel", st.kernel, n.entries, "a kernel entry of the trace");
    if (st.kind == PlanStep::Kind::Copy && (st.inputs.size() != 1 || st.outputs.size() != 1))
      bad(path, "expected a copy to read one buffer and write one");
    for (std::size_t k = 0; k < st.inputs.size(); ++k) inRange(at(path + "/inputs", k), st.inputs[k], nb, "a buffer of the plan");
    for (std::size_t k = 0; k < st.outputs.size(); ++k) inRange(at(path + "/outputs", k), st.outputs[k], nb, "a buffer of the plan");
  }
  const int64_t steps = static_cast<int64_t>(pl.steps.size());
  for (std::size_t i = 0; i < nb; ++i) {
    const PlanBuffer& b = pl.buffers[i];
    const std::string path = at("/trace/plan/buffers", i);
    inRange(path + "/class", b.cls.v, n.classes, "a class of the graph");
    inRange(path + "/pool", b.pool, pools, "a memory pool");
    if (!pl.allocations.empty()) inRange(path + "/allocation", b.allocation, pl.allocations.size(), "an allocation of the plan");
    if (b.firstStep < -1 || b.firstStep >= steps)
      bad(path + "/first", "expected -1 or a step of the plan, found " + std::to_string(b.firstStep));
    if (b.lastStep < -1 || b.lastStep > steps)  // an output lives to the end: one past the last step
      bad(path + "/last", "expected -1, a step of the plan or " + std::to_string(steps) + ", found " + std::to_string(b.lastStep));
    if (b.bytes < 0) bad(path + "/bytes", "expected a size >= 0, found " + std::to_string(b.bytes));
    if (b.alias != -1) {
      if (b.alias < 0 || static_cast<std::size_t>(b.alias) >= nb || pl.buffers[b.alias].alias != -1 ||
          static_cast<std::size_t>(b.alias) == i)
        bad(path + "/alias", "expected -1 or another buffer that aliases none, found " + std::to_string(b.alias));
    }
  }
  for (std::size_t i = 0; i < pl.allocations.size(); ++i)
    inRange(at("/trace/plan/allocations", i) + "/pool", pl.allocations[i].pool, pools, "a memory pool");
  for (std::size_t i = 0; i < pl.outputs.size(); ++i) {
    inRange(at("/trace/plan/outputs", i) + "/0", pl.outputs[i].first.v, n.classes, "a class of the graph");
    inRange(at("/trace/plan/outputs", i) + "/1", pl.outputs[i].second, nb, "a buffer of the plan");
  }
}

void extraction(const Extraction& ex, const Sizes& n) {
  for (std::size_t i = 0; i < ex.order.size(); ++i) inRange(at("/trace/extraction/order", i), ex.order[i].v, n.nodes, "a node of the graph");
  for (const auto& [c, nd] : ex.chosen) {
    inRange("/trace/extraction/chosen", c.v, n.classes, "a class of the graph");
    inRange("/trace/extraction/chosen", nd.v, n.nodes, "a node of the graph");
  }
  for (std::size_t i = 0; i < ex.decisions.size(); ++i) {
    const ClassDecision& d = ex.decisions[i];
    const std::string path = at("/trace/extraction/decisions", i);
    inRange(path + "/class", d.cls.v, n.classes, "a class of the graph");
    if (d.chosen.valid()) inRange(path + "/chosen", d.chosen.v, n.nodes, "a node of the graph");
    for (std::size_t a = 0; a < d.alternatives.size(); ++a)
      inRange(at(path + "/alternatives", a) + "/node", d.alternatives[a].node.v, n.nodes, "a node of the graph");
  }
}

void fusionTrace(const std::string& path, const FusionTrace& f, const Sizes& n) {
  for (std::size_t i = 0; i < f.steps.size(); ++i) {
    const FusionStep& st = f.steps[i];
    const std::string step = at(path + "/steps", i);
    if (st.cls != UINT32_MAX) inRange(step + "/class", st.cls, n.classes, "a class of the graph");
    if (st.subject != UINT32_MAX) inRange(step + "/subject", st.subject, n.classes, "a class of the graph");
    for (const auto& [id, k] : st.diff.set)
      for (const auto* list : {&k.classes, &k.loads, &k.stores})
        for (uint32_t c : *list) inRange(step + "/diff/set", c, n.classes, "a class of the graph");
  }
}

// A run's forms must be structural nodes of their classes: the Fusion view makes them the
// structural nodes of the run's graph.
void fusionRuns(const CompileTrace& t, const Sizes& n) {
  for (std::size_t i = 0; i < t.fusionRuns.size(); ++i) {
    const KernelizerRun& r = t.fusionRuns[i];
    const std::string path = at("/trace/fusion_runs", i);
    inRange(path + "/candidate", static_cast<uint64_t>(r.candidate), std::max<std::size_t>(1, t.rewrite.candidates.size()),
            "a candidate term");
    for (std::size_t k = 0; k < r.kernels.size(); ++k) inRange(at(path + "/kernels", k), r.kernels[k], n.kernels, "a kernel of the trace");
    for (std::size_t m = 0; m < r.gemms.size(); ++m) inRange(at(path + "/gemms", m), r.gemms[m], t.matches.size(), "an AOT match");
    for (std::size_t f = 0; f < r.forms.size(); ++f) {
      const auto [c, node] = r.forms[f];
      inRange(at(path + "/forms", f) + "/0", c, n.classes, "a class of the graph");
      inRange(at(path + "/forms", f) + "/1", node, n.nodes, "a node of the graph");
      const auto& nodes = n.graph.eclass(ClassId(c)).nodes;
      if (!n.graph.node(NodeId(node)).isStructural() || std::find(nodes.begin(), nodes.end(), NodeId(node)) == nodes.end())
        bad(at(path + "/forms", f) + "/1", "expected a structural node of %" + std::to_string(c) + ", found node " + std::to_string(node));
    }
    fusionTrace(path + "/trace", r.trace, n);
  }
  if (t.planRun < -1 || t.planRun >= static_cast<int>(t.fusionRuns.size()))
    bad("/trace/plan_run", "expected -1 or a run of fusion_runs (-1.." + std::to_string(static_cast<int>(t.fusionRuns.size()) - 1) +
                               "), found " + std::to_string(t.planRun));
}

// The kept candidate is the one marked chosen; each candidate's devices and excluded nodes fit.
void planChoice(const PlanChoice& pc, const Sizes& n) {
  const std::string path = "/trace/plan_choice";
  if (pc.candidates.empty()) {
    if (pc.chosen != -1) bad(path + "/chosen", "expected -1 (no candidates), found " + std::to_string(pc.chosen));
    return;
  }
  if (pc.chosen < 0) bad(path + "/chosen", "expected the index of the kept candidate, found " + std::to_string(pc.chosen));
  inRange(path + "/chosen", static_cast<uint64_t>(pc.chosen), pc.candidates.size(), "a candidate");
  for (std::size_t i = 0; i < pc.candidates.size(); ++i) {
    const PlanCandidate& c = pc.candidates[i];
    const std::string cp = at(path + "/candidates", i);
    if (c.chosen != (static_cast<int>(i) == pc.chosen))
      bad(cp + "/chosen", std::string("expected ") + (c.chosen ? "false" : "true") + ": /trace/plan_choice/chosen is " +
                              std::to_string(pc.chosen));
    if (c.allowed.size() != n.devices)
      bad(cp + "/allowed", "expected one flag per device (" + std::to_string(n.devices) + "), found " + std::to_string(c.allowed.size()));
    for (std::size_t e = 0; e < c.excluded.size(); ++e) inRange(at(cp + "/excluded", e), c.excluded[e].v, n.nodes, "a node of the graph");
  }
}

void trace(const Session& s, const Sizes& n, std::size_t pools) {
  const CompileTrace& t = s.trace();
  for (std::size_t i = 0; i < t.snapshots.size(); ++i) {
    const std::string path = at("/trace/snapshots", i);
    stage(path + "/s", t.snapshots[i].stage);
    if (t.snapshots[i].classes > n.classes || t.snapshots[i].nodes > n.nodes)
      bad(path, "expected at most the graph's " + std::to_string(n.classes) + " classes and " + std::to_string(n.nodes) + " nodes");
  }
  for (std::size_t i = 0; i < t.stageTimes.size(); ++i) stage(at("/trace/stage_times", i) + "/s", t.stageTimes[i].stage);
  fusionRuns(t, n);
  for (std::size_t i = 0; i < t.kernels.size(); ++i) fused(at("/trace/kernels", i) + "/fused", t.kernels[i].fused, n);
  for (std::size_t i = 0; i < t.matches.size(); ++i)
    for (auto [key, c] : {std::pair{"/out", t.matches[i].out}, std::pair{"/a", t.matches[i].a}, std::pair{"/b", t.matches[i].b}})
      inRange(at("/trace/matches", i) + key, c.v, n.classes, "a class of the graph");
  for (std::size_t i = 0; i < t.measurements.size(); ++i) {
    inRange(at("/trace/measurements", i) + "/kernel", t.measurements[i].kernel, n.kernels, "a kernel of the trace");
    inRange(at("/trace/measurements", i) + "/device", t.measurements[i].device, n.devices, "a device");
  }
  for (std::size_t i = 0; i < t.searches.size(); ++i) {
    inRange(at("/trace/searches", i) + "/kernel", t.searches[i].kernel, n.kernels, "a kernel of the trace");
    inRange(at("/trace/searches", i) + "/device", t.searches[i].device, n.devices, "a device");
  }
  for (std::size_t i = 0; i < t.entries.size(); ++i) {
    const KernelEntry& e = t.entries[i];
    inRange(at("/trace/entries", i) + "/device", e.device, n.devices, "a device");
    if (e.kind == KernelEntry::Kind::Fused) inRange(at("/trace/entries", i) + "/fused", e.fused, n.kernels, "a kernel of the trace");
  }
  extraction(t.extraction, n);
  plan(t.plan, n, pools);
  planChoice(t.planChoice, n);
}
}  // namespace

void checkSession(const Session& s, const std::vector<uint32_t>& pools) {
  const Graph& g = s.graph();
  const Sizes n{g.classCount(), g.nodeCount(), g.leaves().size(), s.devices().size(), s.trace().kernels.size(),
                s.trace().entries.size(), g};
  stage("/stage", s.stage());
  if (pools.size() != n.devices)
    bad("/pools", "expected one memory pool per device (" + std::to_string(n.devices) + "), found " + std::to_string(pools.size()));
  std::size_t poolCount = 1;  // pool 0, host memory, always exists
  for (uint32_t p : pools) poolCount = std::max<std::size_t>(poolCount, std::size_t(p) + 1);
  program(s, n);
  graph(g, n);
  trace(s, n, poolCount);
}

}  // namespace ks
