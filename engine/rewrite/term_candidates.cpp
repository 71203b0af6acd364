// Diverse candidate terms by repeated greedy choice with the earlier choices made dearer.
#include "engine/rewrite/term_candidates.h"

#include <cmath>
#include <unordered_map>

namespace ks {

std::vector<NodeId> reachableChoice(const Graph& g, const TermChoice& t, const std::vector<ClassId>& outputs) {
  std::vector<NodeId> r(g.classCount(), NodeId());
  std::vector<ClassId> stack;
  for (ClassId o : outputs) stack.push_back(g.find(o));
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    if (r[c.v].valid() || !t.node.at(c.v).valid()) continue;
    r[c.v] = t.node[c.v];
    for (ClassId o : g.node(r[c.v]).in) stack.push_back(g.find(o));
  }
  return r;
}

namespace {
double dagCost(const Graph& g, const std::vector<NodeId>& reach, const NodeCost& cost) {
  double ns = 0;
  for (NodeId n : reach)
    if (n.valid()) ns += cost(g, n);
  return ns;
}
}  // namespace

std::vector<TermCandidate> candidateTerms(const Graph& g, const NodeCost& cost, const std::vector<ClassId>& outputs,
                                          std::size_t max, double penalty) {
  std::vector<TermCandidate> out;
  std::vector<std::vector<NodeId>> seen;
  std::unordered_map<uint32_t, int> used;  // node -> how many earlier tries chose it
  // A few more tries than candidates: a penalised choice can land on a term already kept.
  for (std::size_t attempt = 0; out.size() < max && attempt < 2 * max; ++attempt) {
    // Each earlier choice of a node multiplies its cost again, so later tries move further away.
    const NodeCost penalised = [&](const Graph& gr, NodeId n) {
      auto it = used.find(n.v);
      return cost(gr, n) * (it == used.end() ? 1.0 : std::pow(penalty, it->second));
    };
    TermChoice t = chooseTerm(g, attempt == 0 ? cost : penalised);
    std::vector<NodeId> reach = reachableChoice(g, t, outputs);
    bool complete = true;
    for (ClassId o : outputs) complete = complete && reach[g.find(o).v].valid();
    bool dup = false;
    for (const auto& s : seen) dup = dup || s == reach;
    for (NodeId n : reach)
      if (n.valid()) ++used[n.v];
    if (!complete || dup) continue;
    TermCandidate c{std::move(t), dagCost(g, reach, cost), 0};
    if (!seen.empty())
      for (std::size_t i = 0; i < reach.size(); ++i) c.differ += reach[i].valid() && reach[i] != seen.front()[i];
    seen.push_back(std::move(reach));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace ks
