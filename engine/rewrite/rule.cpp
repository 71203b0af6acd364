// The helpers every rule family uses, and family names.
#include "engine/rewrite/rule.h"

namespace ks {

const char* ruleFamilyName(RuleFamily f) {
  switch (f) {
    case RuleFamily::Movement: return "movement";
    case RuleFamily::Layout: return "layout";
    case RuleFamily::Matmul: return "matmul";
    case RuleFamily::Algebra: return "algebra";
  }
  return "?";
}

namespace rule {

Node make(NodeKind kind, std::vector<ClassId> in, std::vector<int64_t> attr, uint8_t op) {
  Node n;
  n.kind = kind;
  n.in = std::move(in);
  n.attr = std::move(attr);
  n.op = op;
  return n;
}

const Node* constOf(const Graph& g, ClassId c) {
  for (NodeId n : g.eclass(c).nodes)
    if (g.node(n).kind == NodeKind::Const) return &g.node(n);
  return nullptr;
}

bool isConstValue(const Graph& g, ClassId c, double v) {
  const Node* n = constOf(g, c);
  if (!n) return false;
  const Scalar& s = n->value;
  // Bitwise comparison through Scalar::of keeps -0 apart from +0.
  return s == Scalar::of(s.dtype(), v);
}

}  // namespace rule
}  // namespace ks
