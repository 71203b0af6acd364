// Kernelizer runs: their titles, the plan's run, a run's graph, a term's trace renamed.
#include "engine/session/kernelizer_run.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace ks {

std::string runTitle(const KernelizerRun& r) {
  return r.term + (r.afterAot ? ", after AOT matching" : ", before AOT matching");
}

int planRunOf(const std::vector<KernelizerRun>& runs, const PlanKernels& plan) {
  const auto has = [](const std::vector<uint32_t>& v, uint32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  int best = -1;
  std::size_t bestUsed = 0, bestUnused = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const KernelizerRun& r = runs[i];
    std::size_t used = 0;
    for (uint32_t k : plan.fused) used += has(r.kernels, k);
    for (uint32_t m : plan.gemms) used += has(r.gemms, m);
    std::size_t unused = 0;
    for (uint32_t k : r.kernels) unused += !has(plan.fused, k);
    if (best < 0 || used > bestUsed || (used == bestUsed && unused < bestUnused)) {
      best = static_cast<int>(i);
      bestUsed = used;
      bestUnused = unused;
    }
  }
  return best;
}

Graph runGraph(const Graph& egraph, const KernelizerRun& r) {
  Graph g = egraph;
  if (r.forms.empty()) return g;
  std::vector<std::pair<ClassId, NodeId>> choices;
  for (auto [c, n] : r.forms) choices.push_back({ClassId(c), NodeId(n)});
  g.chooseStructural(choices);
  return g;
}

namespace {
// "%12" in a reason names a class of the term's graph: renamed like the ids, or a reason would
// name another class than the step's fields.
std::string renamed(const std::string& text, const std::function<uint32_t(uint32_t)>& name) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '%' || i + 1 >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      out += text[i++];
      continue;
    }
    std::size_t j = i + 1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    out += "%" + std::to_string(name(static_cast<uint32_t>(std::stoul(text.substr(i + 1, j - i - 1)))));
    i = j;
  }
  return out;
}
}  // namespace

FusionTrace traceInEGraph(FusionTrace t, const Graph& egraph, const std::vector<ClassId>& origin) {
  const std::function<uint32_t(uint32_t)> name = [&](uint32_t c) { return c < origin.size() ? egraph.find(origin[c]).v : c; };
  for (FusionStep& st : t.steps) {
    st.cls = name(st.cls);
    st.subject = name(st.subject);
    st.reason = renamed(st.reason, name);
    for (auto& [id, k] : st.diff.set)
      for (auto* list : {&k.classes, &k.loads, &k.stores})
        for (uint32_t& c : *list) c = name(c);
  }
  t.error = renamed(t.error, name);
  return t;
}

std::vector<std::pair<uint32_t, uint32_t>> formsOf(const Graph& egraph, const MaterializedTerm& term) {
  std::vector<std::pair<uint32_t, uint32_t>> forms;
  const Graph& tg = term.graph;
  for (ClassId tc : tg.topoOrder(term.outputs)) {
    if (tg.isLeaf(tc)) continue;
    const ClassId ec = egraph.find(term.origin.at(tc.v));
    Node want = tg.structural(tc);
    for (ClassId& o : want.in) o = egraph.find(term.origin.at(o.v));
    const auto canonical = [&](NodeId n) {
      Node have = egraph.node(n);
      for (ClassId& o : have.in) o = egraph.find(o);
      return have;
    };
    const std::vector<NodeId>& nodes = egraph.eclass(ec).nodes;
    if (nodes.empty() || canonical(nodes.front()) == want) continue;
    // A form reading its own class (the as-built mul(x, 1) merged into x's class) cannot be a
    // structural node: the structural nodes would cycle. The e-graph's node stands for it.
    if (std::find(want.in.begin(), want.in.end(), ec) != want.in.end()) continue;
    const auto it = std::find_if(nodes.begin(), nodes.end(), [&](NodeId n) { return canonical(n) == want; });
    if (it != nodes.end()) forms.push_back({ec.v, it->v});
  }
  return forms;
}

}  // namespace ks
