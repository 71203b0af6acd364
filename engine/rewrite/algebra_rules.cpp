// Bounded algebra: identities with 0 and 1, double negation, distributivity, scaling out of a
// sum and constant folding. Which are exact in IEEE arithmetic is said per rule: x + 0 is not
// (-0 + 0 is +0), x - x is not (inf - inf is NaN) and is off by default, reassociating sums
// rounds differently.
#include "engine/eval/host_executor.h"
#include "engine/rewrite/rule.h"

namespace ks {

namespace {
using rule::forEach;
using rule::isConstValue;
using rule::make;

ClassId same(Graph&, const Match& m) { return m.cls[0]; }

// op(x, k) -> x and, for commutative ops, op(k, x) -> x, where k is the constant `v`.
// `bothZeros`: an integer or a constant of either sign of zero matches (exact only where stated).
Rule identity(const char* name, BinaryOp op, double v, bool exact, const char* note, bool bothZeros = false) {
  Rule r{name, RuleFamily::Algebra, exact, true, note, {}, same};
  r.search = [op, v, bothZeros](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Binary || n.binaryOp() != op) return;
    auto isK = [&](ClassId k) { return isConstValue(g, k, v) || (bothZeros && isConstValue(g, k, -v)); };
    for (int side = 0; side < 2; ++side) {
      if (side == 0 && !isCommutative(op)) continue;
      const ClassId k = n.in[side], x = n.in[1 - side];
      // The other operand must have the result's shape (a constant only broadcasts).
      if (isK(k) && g.shape(x) == g.shape(c)) out.push_back({c, {x}, {}, {}, {}, 0});
    }
  };
  return r;
}

Rule negNeg() {
  Rule r{"neg-neg", RuleFamily::Algebra, true, true, "neg(neg(x)) -> x", {}, same};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Unary || n.unaryOp() != UnaryOp::Neg) return;
    forEach(g, n.in[0], NodeKind::Unary, [&](const Node& inner) {
      if (inner.unaryOp() == UnaryOp::Neg) out.push_back({c, {inner.in[0]}, {}, {}, {}, 0});
    });
  };
  return r;
}

// pow(x, 2) -> x*x: a square is one multiply where pow is a library call (ONNX exports of layer
// norm square with Pow; PoCL's pow took 1.8 ms on a [128, 256] row kernel that otherwise costs
// microseconds). Exact: pow(x, 2) is the rounded square, and so is x*x, for -0, inf and NaN too.
Rule powSquare() {
  Rule r{"pow-square", RuleFamily::Algebra, true, true, "pow(x, 2) -> x*x", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind == NodeKind::Binary && n.binaryOp() == BinaryOp::Pow && isFloat(g.dtype(c)) &&
        isConstValue(g, n.in[1], 2.0) && g.shape(n.in[0]) == g.shape(c))
      out.push_back({c, {n.in[0]}, {}, {}, {}, 0});
  };
  r.apply = [](Graph& g, const Match& m) {
    return g.add(make(NodeKind::Binary, {m.cls[0], m.cls[0]}, {}, static_cast<uint8_t>(BinaryOp::Mul)));
  };
  return r;
}

// A rank-0 constant broadcast to `shape` (reshape to ones, then expand).
ClassId filled(Graph& g, Scalar v, const Shape& shape) {
  Node k;
  k.kind = NodeKind::Const;
  k.dtype = v.dtype();
  k.value = v;
  ClassId c = g.add(std::move(k));
  if (shape.empty()) return c;
  c = g.add(make(NodeKind::Reshape, {c}, Shape(shape.size(), 1)));
  return g.add(make(NodeKind::Expand, {c}, shape));
}

Rule subSelf() {
  Rule r{"sub-self", RuleFamily::Algebra, false, false, "x - x -> 0 (not exact: inf - inf and NaN - NaN are NaN; off by default)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind == NodeKind::Binary && n.binaryOp() == BinaryOp::Sub && g.find(n.in[0]) == g.find(n.in[1]))
      out.push_back({c, {n.in[0]}, {}, {}, {}, 0});
  };
  r.apply = [](Graph& g, const Match& m) { return filled(g, Scalar::of(g.dtype(m.root), 0.0), g.shape(m.root)); };
  return r;
}

// a*b + a*c -> a*(b + c), the common factor on either side of either product.
Rule factor() {
  Rule r{"factor", RuleFamily::Algebra, false, true, "a*b + a*c -> a*(b + c) (not exact: rounds differently)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Binary || n.binaryOp() != BinaryOp::Add) return;
    auto isMul = [](const Node& m) { return m.binaryOp() == BinaryOp::Mul; };
    forEach(g, n.in[0], NodeKind::Binary, [&](const Node& p) {
      if (!isMul(p)) return;
      forEach(g, n.in[1], NodeKind::Binary, [&](const Node& q) {
        if (!isMul(q)) return;
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j)
            // b and c of the result's shape: b + c of two constants would be a rank-0 class
            // that is not (yet) a constant, which a product with a tensor cannot broadcast.
            if (g.find(p.in[i]) == g.find(q.in[j]) && g.shape(p.in[1 - i]) == g.shape(c) && g.shape(q.in[1 - j]) == g.shape(c))
              out.push_back({c, {p.in[i], p.in[1 - i], q.in[1 - j]}, {}, {}, {}, 0});
      });
    });
  };
  r.apply = [](Graph& g, const Match& m) {
    const ClassId sum = g.add(make(NodeKind::Binary, {m.cls[1], m.cls[2]}, {}, static_cast<uint8_t>(BinaryOp::Add)));
    return g.add(make(NodeKind::Binary, {m.cls[0], sum}, {}, static_cast<uint8_t>(BinaryOp::Mul)));
  };
  return r;
}

// a*(b + c) -> a*b + a*c: the other direction, so either form can be extracted.
Rule distribute() {
  Rule r{"distribute", RuleFamily::Algebra, false, true, "a*(b + c) -> a*b + a*c (not exact: rounds differently)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Binary || n.binaryOp() != BinaryOp::Mul) return;
    for (int side = 0; side < 2; ++side)
      forEach(g, n.in[1 - side], NodeKind::Binary, [&](const Node& s) {
        if (s.binaryOp() != BinaryOp::Add) return;
        // A product of two constants would be a rank-0 class that is not a constant (see factor).
        const bool aFull = g.shape(n.in[side]) == g.shape(c);
        if (aFull || (g.shape(s.in[0]) == g.shape(c) && g.shape(s.in[1]) == g.shape(c)))
          out.push_back({c, {n.in[side], s.in[0], s.in[1]}, {}, {}, {}, 0});
      });
  };
  r.apply = [](Graph& g, const Match& m) {
    const uint8_t mul = static_cast<uint8_t>(BinaryOp::Mul);
    const ClassId ab = g.add(make(NodeKind::Binary, {m.cls[0], m.cls[1]}, {}, mul));
    const ClassId ac = g.add(make(NodeKind::Binary, {m.cls[0], m.cls[2]}, {}, mul));
    return g.add(make(NodeKind::Binary, {ab, ac}, {}, static_cast<uint8_t>(BinaryOp::Add)));
  };
  return r;
}

// sum(k*x) -> k*sum(x) for a rank-0 constant k, and back.
Rule sumOfScaled() {
  Rule r{"sum-scaled", RuleFamily::Algebra, false, true, "sum(k*x) -> k*sum(x), k a constant (not exact: rounds differently)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Reduce || n.reduceOp() != ReduceOp::Sum) return;
    forEach(g, n.in[0], NodeKind::Binary, [&](const Node& m) {
      if (m.binaryOp() != BinaryOp::Mul) return;
      for (int side = 0; side < 2; ++side)
        if (g.isConst(m.in[side]) && !g.isConst(m.in[1 - side])) out.push_back({c, {m.in[side], m.in[1 - side]}, n.attr, {}, {}, 0});
    });
  };
  r.apply = [](Graph& g, const Match& m) {
    const ClassId s = g.add(make(NodeKind::Reduce, {m.cls[1]}, m.ints, static_cast<uint8_t>(ReduceOp::Sum)));
    return g.add(make(NodeKind::Binary, {m.cls[0], s}, {}, static_cast<uint8_t>(BinaryOp::Mul)));
  };
  return r;
}

Rule scaledSum() {
  Rule r{"scaled-sum", RuleFamily::Algebra, false, true, "k*sum(x) -> sum(k*x), k a constant (not exact: rounds differently)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Binary || n.binaryOp() != BinaryOp::Mul) return;
    for (int side = 0; side < 2; ++side) {
      if (!g.isConst(n.in[side])) continue;
      forEach(g, n.in[1 - side], NodeKind::Reduce, [&](const Node& s) {
        if (s.reduceOp() == ReduceOp::Sum && !g.shape(s.in[0]).empty()) out.push_back({c, {n.in[side], s.in[0]}, s.attr, {}, {}, 0});
      });
    }
  };
  r.apply = [](Graph& g, const Match& m) {
    const ClassId scaled = g.add(make(NodeKind::Binary, {m.cls[0], m.cls[1]}, {}, static_cast<uint8_t>(BinaryOp::Mul)));
    return g.add(make(NodeKind::Reduce, {scaled}, m.ints, static_cast<uint8_t>(ReduceOp::Sum)));
  };
  return r;
}

// Unary, Cast and Binary nodes whose operands are all rank-0 constants become one constant,
// computed by the host executor: the oracle's own semantics, so folding is exact by definition.
Rule constantFold() {
  Rule r{"fold-constants", RuleFamily::Algebra, true, true, "op(constants) -> constant (evaluated as the host does)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Unary && n.kind != NodeKind::Binary && n.kind != NodeKind::Cast) return;
    if (rule::constOf(g, c)) return;  // folded already
    std::vector<ClassId> consts;
    for (ClassId o : n.in) {
      if (!rule::constOf(g, o)) return;
      consts.push_back(o);
    }
    out.push_back({c, consts, {static_cast<int64_t>(n.kind), n.op, static_cast<int64_t>(n.dtype)}, {}, {}, 0});
  };
  r.apply = [](Graph& g, const Match& m) {
    Graph mini;
    Node op = make(static_cast<NodeKind>(m.ints[0]), {}, {}, static_cast<uint8_t>(m.ints[1]));
    op.dtype = static_cast<DType>(m.ints[2]);
    for (ClassId o : m.cls) op.in.push_back(mini.addConst(rule::constOf(g, o)->value));
    const ClassId root = mini.add(std::move(op));
    const HostTensor v = HostExecutor::run(mini, {root}, {}).at(0);
    const DType t = mini.dtype(root);
    return g.addConst(isFloat(t) ? Scalar::of(t, v.getDouble(0)) : Scalar::ofInt(t, v.getInt(0)));
  };
  return r;
}
}  // namespace

std::vector<Rule> algebraRules() {
  return {
      identity("mul-one", BinaryOp::Mul, 1.0, true, "x*1 -> x"),
      identity("div-one", BinaryOp::Div, 1.0, true, "x/1 -> x"),
      identity("sub-zero", BinaryOp::Sub, 0.0, true, "x - 0 -> x (exact: -0 - 0 is -0)"),
      identity("add-zero", BinaryOp::Add, 0.0, false, "x + 0 -> x (not exact: -0 + 0 is +0)", true),
      negNeg(),
      powSquare(),
      subSelf(),
      factor(),
      distribute(),
      sumOfScaled(),
      scaledSum(),
      constantFold(),
  };
}

}  // namespace ks
