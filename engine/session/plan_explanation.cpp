// Class-level "why this plan": the extraction's decision and a what-if extraction without it.
#include "engine/session/plan_explanation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/core/error.h"

namespace ks {

std::string producerLabel(const Session& s, NodeId id) {
  const Graph& g = s.graph();
  const Node& n = g.node(id);
  const auto deviceName = [&](uint32_t d) { return d < s.devices().size() ? s.devices()[d].name : "device " + std::to_string(d); };
  if (n.kind == NodeKind::ToDevice) return "copy to " + deviceName(n.device);
  if (n.kind != NodeKind::Kernel) return n.label();
  const KernelEntry& e = s.trace().entries.at(n.ref);
  if (e.kind == KernelEntry::Kind::Gemm) return e.gemm.str() + " on " + deviceName(e.device);
  return s.trace().kernels.at(e.fused).name + " on " + deviceName(e.device) + " (" + e.schedule + ")";
}

namespace {
// The plan's class whose producer computes c: c itself, or a store of the fused kernel that
// computes c inside (invalid when the plan does not compute c).
ClassId decidingClass(const Session& s, ClassId c, std::string& inside) {
  const Extraction& ex = s.trace().extraction;
  if (ex.chosen.count(c)) return c;
  const Graph& g = s.graph();
  for (NodeId id : ex.order) {
    const Node& n = g.node(id);
    if (n.kind != NodeKind::Kernel) continue;
    const KernelEntry& e = s.trace().entries.at(n.ref);
    if (e.kind != KernelEntry::Kind::Fused) continue;
    const FusedKernel& f = s.trace().kernels.at(e.fused).fused;
    if (std::find(f.classes.begin(), f.classes.end(), c) == f.classes.end()) continue;
    for (ClassId st : f.stores)
      if (auto it = ex.chosen.find(g.find(st)); it != ex.chosen.end() && it->second == id) {
        inside = "computed inside " + s.trace().kernels.at(e.fused).name + ", which stores %" + std::to_string(g.find(st).v);
        return g.find(st);
      }
  }
  return ClassId();
}
}  // namespace

PlanExplanation explainPlan(const Session& s, ClassId c0) {
  const Graph& g = s.graph();
  if (!c0.valid() || c0.v >= g.classCount()) throw Error(ErrorCode::Usage, "no class %" + std::to_string(c0.v));
  PlanExplanation e;
  e.asked = g.find(c0);
  if (g.isLeaf(e.asked)) throw Error(ErrorCode::Unsupported, "%" + std::to_string(e.asked.v) + " is a leaf: the plan reads it, nothing computes it");
  e.decided = decidingClass(s, e.asked, e.inside);
  if (!e.decided.valid())
    throw Error(ErrorCode::Unsupported, "the plan does not compute %" + std::to_string(e.asked.v) +
                                      " (no kernel of the plan stores it or computes it on the way: another form of its consumers was chosen)");
  const Extraction& ex = s.trace().extraction;
  const auto d = std::find_if(ex.decisions.begin(), ex.decisions.end(), [&](const ClassDecision& x) { return x.cls == e.decided; });
  if (d == ex.decisions.end()) throw Error(ErrorCode::Internal, "no extraction decision for %" + std::to_string(e.decided.v));
  e.chosen = d->chosen;
  e.why = d->why;
  e.alternatives = d->alternatives.size();
  e.dagNs = ex.totalNs;
  e.chosenLabel = producerLabel(s, e.chosen);
  const AlternativeCost* runner = nullptr;
  for (const AlternativeCost& a : d->alternatives) {
    if (a.node == e.chosen) e.chosenNs = a.ownNs, e.chosenTreeNs = a.treeNs;
    else if (a.valid && (!runner || a.treeNs < runner->treeNs)) runner = &a;
  }
  if (runner) {
    e.runnerUp = runner->node;
    e.runnerUpLabel = producerLabel(s, runner->node);
    e.runnerUpNs = runner->ownNs;
    e.runnerUpTreeNs = runner->treeNs;
  }
  try {
    const Extraction without = s.extractWithout({e.chosen});
    e.withoutNs = without.totalNs;
    if (auto it = without.chosen.find(e.decided); it != without.chosen.end()) {
      e.withoutChoice = it->second;
      e.withoutLabel = producerLabel(s, it->second);
    }
  } catch (const Error& err) {
    if (err.code() != ErrorCode::Unsupported) throw;  // no plan without the node: withoutNs stays infinite
  }
  return e;
}

std::string explanationText(const Session& s, const PlanExplanation& e) {
  const Graph& g = s.graph();
  char buf[512];
  std::string out;
  auto line = [&](const char* fmt, auto... args) {
    std::snprintf(buf, sizeof buf, fmt, args...);
    out += buf;
    out += "\n";
  };
  const auto ms = [](double ns) { return ns / 1e6; };
  line("%%%u %s : %s%s", e.asked.v, g.structural(e.asked).label().c_str(), std::string(dtypeName(g.dtype(e.asked))).c_str(),
       shapeStr(g.shape(e.asked)).c_str());
  if (!e.inside.empty()) line("%s; its producer decides:", e.inside.c_str());
  line("chosen: node %u, %s: %.3f ms (with its operands' producers %.3f ms); %s", e.chosen.v, e.chosenLabel.c_str(), ms(e.chosenNs),
       ms(e.chosenTreeNs), e.why.c_str());
  if (e.runnerUp.valid())
    line("runner-up: node %u, %s: %.3f ms (with its operands' producers %.3f ms), of %zu alternatives", e.runnerUp.v,
         e.runnerUpLabel.c_str(), ms(e.runnerUpNs), ms(e.runnerUpTreeNs), e.alternatives);
  else
    line("runner-up: none (the only producer on the plan's devices)");
  if (std::isfinite(e.withoutNs))
    line("without the chosen node: plan DAG cost %.3f ms -> %.3f ms (%+.3f ms, %+.1f%%), %%%u then from %s", ms(e.dagNs), ms(e.withoutNs),
         ms(e.withoutNs - e.dagNs), 100.0 * (e.withoutNs - e.dagNs) / std::max(e.dagNs, 1e-9), e.decided.v,
         e.withoutLabel.empty() ? "(not needed)" : e.withoutLabel.c_str());
  else
    line("without the chosen node: no plan on the plan's devices (plan DAG cost %.3f ms)", ms(e.dagNs));
  return out;
}

}  // namespace ks
