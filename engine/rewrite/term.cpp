// Greedy term choice by a fixpoint over the classes, and a chosen term copied into a new graph.
#include "engine/rewrite/term.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/core/error.h"

namespace ks {

double nodeCountCost(const Graph&, NodeId) { return 1.0; }

TermChoice chooseTerm(const Graph& g, const NodeCost& cost) {
  TermChoice t;
  t.node.assign(g.classCount(), NodeId());
  t.cost.assign(g.classCount(), std::numeric_limits<double>::infinity());
  const std::vector<ClassId> classes = g.canonicalClasses();
  // Bellman-Ford style: costs only fall, and each fall is by a node whose operands are cheaper,
  // so the loop ends; a class count of passes bounds it.
  for (bool changed = true; changed;) {
    changed = false;
    for (ClassId c : classes)
      for (NodeId n : g.eclass(c).nodes) {
        const Node& node = g.node(n);
        if (!node.isStructural()) continue;
        double total = cost(g, n);
        if (!(total > 0)) throw Error(ErrorCode::Internal, "term cost of node " + std::to_string(n.v) + " is not positive");
        // An operand class a node reads twice (x*x) is computed once.
        for (std::size_t i = 0; i < node.in.size(); ++i) {
          const ClassId oc = g.find(node.in[i]);
          const bool again = std::any_of(node.in.begin(), node.in.begin() + static_cast<std::ptrdiff_t>(i),
                                         [&](ClassId p) { return g.find(p) == oc; });
          if (!again) total += t.cost[oc.v];
        }
        if (total < t.cost[c.v] && !std::isinf(total)) {
          t.cost[c.v] = total;
          t.node[c.v] = n;
          changed = true;
        }
      }
  }
  return t;
}

std::size_t adoptTerm(Graph& g, const TermChoice& t) {
  std::vector<std::pair<ClassId, NodeId>> changes;
  for (ClassId c : g.canonicalClasses())
    if (t.node[c.v].valid() && t.node[c.v] != g.eclass(c).nodes.front()) changes.push_back({c, t.node[c.v]});
  g.chooseStructural(changes);
  return changes.size();
}

MaterializedTerm materialize(const Graph& g, const TermChoice& t, const std::vector<ClassId>& outputs) {
  MaterializedTerm m;
  m.classOf.assign(g.classCount(), ClassId());
  auto record = [&](ClassId from, ClassId to) {
    m.classOf[from.v] = to;
    if (m.origin.size() <= to.v) m.origin.resize(to.v + 1);
    m.origin[to.v] = from;
  };
  for (uint32_t i = 0; i < g.leaves().size(); ++i) record(g.find(g.leafClass(i)), m.graph.addLeaf(g.leaf(i)));
  // Iterative postorder over chosen nodes (acyclic by chooseTerm's costs).
  std::vector<std::pair<ClassId, bool>> stack;
  for (ClassId o : outputs) stack.push_back({g.find(o), false});
  while (!stack.empty()) {
    auto [c, expanded] = stack.back();
    stack.pop_back();
    if (m.classOf[c.v].valid()) continue;
    const NodeId chosen = t.node.at(c.v);
    if (!chosen.valid()) throw Error(ErrorCode::Internal, "class %" + std::to_string(c.v) + " has no term to extract");
    const Node& n = g.node(chosen);
    if (!expanded) {
      stack.push_back({c, true});
      for (ClassId o : n.in)
        if (!m.classOf[g.find(o).v].valid()) stack.push_back({g.find(o), false});
      continue;
    }
    Node copy = n;
    for (ClassId& o : copy.in) {
      o = m.classOf[g.find(o).v];
      if (!o.valid()) throw Error(ErrorCode::Internal, "the chosen term of %" + std::to_string(c.v) + " is cyclic");
    }
    record(c, m.graph.add(std::move(copy)));
  }
  for (ClassId o : outputs) m.outputs.push_back(m.classOf[g.find(o).v]);
  return m;
}

}  // namespace ks
