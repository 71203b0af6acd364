// Layout rules: elementwise ops commute with a permute, so the kernelizer can fuse on either
// side of a transpose. Exact: the same op on the same elements, moved.
#include "engine/rewrite/rule.h"

namespace ks {

namespace {
using rule::forEach;
using rule::make;

bool isUnaryLike(const Node& n) { return n.kind == NodeKind::Unary || n.kind == NodeKind::Cast; }

// unary(permute(x, p)) -> permute(unary(x), p); Cast counts as unary. The match keeps the node
// (op and dtype) in `ints` = {kind, op, dtype}.
Rule unaryPermute() {
  Rule r{"unary-permute", RuleFamily::Layout, true, true, "unary(permute(x, p)) -> permute(unary(x), p)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (!isUnaryLike(n)) return;
    forEach(g, n.in[0], NodeKind::Permute, [&](const Node& p) {
      out.push_back({c, {p.in[0]}, p.attr, {static_cast<int64_t>(n.kind), n.op, static_cast<int64_t>(n.dtype)}, {}, 0});
    });
  };
  r.apply = [](Graph& g, const Match& m) {
    Node u = make(static_cast<NodeKind>(m.ints2[0]), {m.cls[0]}, {}, static_cast<uint8_t>(m.ints2[1]));
    u.dtype = static_cast<DType>(m.ints2[2]);
    return g.add(make(NodeKind::Permute, {g.add(std::move(u))}, m.ints));
  };
  return r;
}

Rule permuteUnary() {
  Rule r{"permute-unary", RuleFamily::Layout, true, true, "permute(unary(x), p) -> unary(permute(x, p))", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Permute) return;
    for (NodeId id : g.eclass(n.in[0]).nodes) {
      const Node& u = g.node(id);
      if (isUnaryLike(u)) out.push_back({c, {u.in[0]}, n.attr, {static_cast<int64_t>(u.kind), u.op, static_cast<int64_t>(u.dtype)}, {}, 0});
    }
  };
  r.apply = [](Graph& g, const Match& m) {
    Node u = make(static_cast<NodeKind>(m.ints2[0]), {g.add(make(NodeKind::Permute, {m.cls[0]}, m.ints))}, {},
                  static_cast<uint8_t>(m.ints2[1]));
    u.dtype = static_cast<DType>(m.ints2[2]);
    return g.add(std::move(u));
  };
  return r;
}

// binary(permute(a, p), permute(b, p)) -> permute(binary(a, b), p); a rank-0 constant operand
// stays as it is (it broadcasts on either side).
Rule binaryPermute() {
  Rule r{"binary-permute", RuleFamily::Layout, true, true, "binary(permute(a, p), permute(b, p)) -> permute(binary(a, b), p)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Binary) return;
    const ClassId x = n.in[0], y = n.in[1];
    if (g.isConst(x) || g.isConst(y)) {
      const int side = g.isConst(x) ? 1 : 0;
      if (g.isConst(n.in[side])) return;
      forEach(g, n.in[side], NodeKind::Permute, [&](const Node& p) {
        std::vector<ClassId> in = n.in;
        in[side] = p.in[0];
        out.push_back({c, in, p.attr, {}, {}, n.op});
      });
      return;
    }
    forEach(g, x, NodeKind::Permute, [&](const Node& px) {
      forEach(g, y, NodeKind::Permute, [&](const Node& py) {
        if (px.attr == py.attr) out.push_back({c, {px.in[0], py.in[0]}, px.attr, {}, {}, n.op});
      });
    });
  };
  r.apply = [](Graph& g, const Match& m) {
    return g.add(make(NodeKind::Permute, {g.add(make(NodeKind::Binary, m.cls, {}, m.op))}, m.ints));
  };
  return r;
}

Rule permuteBinary() {
  Rule r{"permute-binary", RuleFamily::Layout, true, true, "permute(binary(a, b), p) -> binary(permute(a, p), permute(b, p))", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Permute) return;
    forEach(g, n.in[0], NodeKind::Binary, [&](const Node& b) { out.push_back({c, b.in, n.attr, {}, {}, b.op}); });
  };
  r.apply = [](Graph& g, const Match& m) {
    std::vector<ClassId> in;
    for (ClassId o : m.cls) in.push_back(g.isConst(o) ? o : g.add(make(NodeKind::Permute, {o}, m.ints)));
    return g.add(make(NodeKind::Binary, in, {}, m.op));
  };
  return r;
}
}  // namespace

std::vector<Rule> layoutRules() { return {unaryPermute(), permuteUnary(), binaryPermute(), permuteBinary()}; }

}  // namespace ks
