// The absolute-value form of an expression, built beside it in a copy of its graph.
#include "engine/session/magnitude.h"

#include <cmath>
#include <unordered_map>

namespace ks {

namespace {
Node unary(ClassId x, UnaryOp op) {
  Node n;
  n.kind = NodeKind::Unary;
  n.in = {x};
  n.op = static_cast<uint8_t>(op);
  return n;
}

bool isMovement(NodeKind k) {
  return k == NodeKind::Expand || k == NodeKind::Permute || k == NodeKind::Reshape || k == NodeKind::Narrow ||
         k == NodeKind::Flip;
}
}  // namespace

MagnitudeGraph magnitudeGraph(const Graph& g, const std::vector<ClassId>& results) {
  MagnitudeGraph m{g, {}};
  Graph& out = m.graph;
  std::unordered_map<uint32_t, ClassId> mag;  // class -> its magnitude class
  const auto magOf = [&](ClassId c) {
    auto it = mag.find(c.v);
    return it == mag.end() ? c : it->second;
  };
  for (ClassId c : g.topoOrder(results)) {
    if (!isFloat(g.dtype(c))) continue;  // real values: conditions and indices stay exact
    Node n = g.structural(c);
    for (ClassId& o : n.in) o = isFloat(g.dtype(o)) ? magOf(o) : o;
    ClassId r;
    switch (n.kind) {
      case NodeKind::Leaf: r = out.add(unary(c, UnaryOp::Abs)); break;
      case NodeKind::Const: r = out.addConst(Scalar::of(n.value.dtype(), std::fabs(n.value.toDouble()))); break;
      case NodeKind::Unary:
        r = n.unaryOp() == UnaryOp::Neg || n.unaryOp() == UnaryOp::Abs ? n.in[0] : out.add(unary(out.add(n), UnaryOp::Abs));
        break;
      case NodeKind::Binary:
        if (n.binaryOp() == BinaryOp::Sub) n.op = static_cast<uint8_t>(BinaryOp::Add);
        r = n.binaryOp() == BinaryOp::Add || n.binaryOp() == BinaryOp::Mul ? out.add(n) : out.add(unary(out.add(n), UnaryOp::Abs));
        break;
      case NodeKind::Pad:
        n.value = Scalar::of(n.value.dtype(), std::fabs(n.value.toDouble()));
        r = out.add(n);
        break;
      case NodeKind::Reduce:
        r = n.reduceOp() == ReduceOp::Sum ? out.add(n) : out.add(unary(out.add(n), UnaryOp::Abs));
        break;
      default: r = isMovement(n.kind) ? out.add(n) : out.add(unary(out.add(n), UnaryOp::Abs)); break;
    }
    mag[c.v] = r;
  }
  for (ClassId c : results) m.results.push_back(magOf(c));
  return m;
}

}  // namespace ks
