// A rewrite rule: a named pattern with a guard (search) and the term that replaces it (apply).
// Rules are values; the families live one per file and are listed by rule_set.h.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/scalar.h"
#include "engine/graph/graph.h"

namespace ks {

// Order is part of the session-file format: append only.
enum class RuleFamily : uint8_t { Movement, Layout, Matmul, Algebra };
inline constexpr int kNumRuleFamilies = 4;
const char* ruleFamilyName(RuleFamily f);  // "movement"

// What a search found: the class the pattern's root node is in, the classes its variables bound
// to, and whatever attributes the replacement needs.
struct Match {
  ClassId root;
  std::vector<ClassId> cls;
  std::vector<int64_t> ints;
  std::vector<int64_t> ints2;
  Scalar value;
  uint8_t op = 0;
};

struct Rule {
  std::string name;  // "permute-permute": what flags, records and views name it by
  RuleFamily family = RuleFamily::Movement;
  // Exact: the replacement gives bit-identical results for every input, NaN, inf and signed
  // zero included. An inexact rule says in `note` what can differ.
  bool exact = true;
  bool onByDefault = true;
  std::string note;  // "x + 0 -> x (not exact: -0 + 0 is +0)"
  // Pattern and guard: called with each node of each canonical class; appends what matched.
  std::function<void(const Graph&, ClassId, const Node&, std::vector<Match>&)> search;
  // Replacement: adds the equivalent term to the graph and returns its class. The runner merges
  // it with m.root; the shapes and dtypes must agree (a merge checks them).
  std::function<ClassId(Graph&, const Match&)> apply;
};

// Small helpers the rule files share.
namespace rule {
// Calls f(node) for each node of class c of the given kind (a copy of the list: f may look at
// other classes, never at a graph being changed).
template <class F>
void forEach(const Graph& g, ClassId c, NodeKind kind, F&& f) {
  const std::vector<NodeId> nodes = g.eclass(c).nodes;
  for (NodeId n : nodes)
    if (g.node(n).kind == kind) f(g.node(n));
}
Node make(NodeKind kind, std::vector<ClassId> in, std::vector<int64_t> attr = {}, uint8_t op = 0);
// The rank-0 constant value of a class, if it holds one.
const Node* constOf(const Graph& g, ClassId c);
bool isConstValue(const Graph& g, ClassId c, double v);
}  // namespace rule

// The families (one file each).
std::vector<Rule> movementRules();
std::vector<Rule> layoutRules();
std::vector<Rule> matmulRules();
std::vector<Rule> algebraRules();

}  // namespace ks
