// Matmul rules on the form the builder gives a 2-D matmul: P[m,k] @ Q[n,k]^T is
// sum_k(expand(reshape(P, [m,1,k])) * expand(reshape(Q, [1,n,k]))), called NT(P, Q) here.
// Transposing a product swaps it (exact: the same products summed in the same order);
// associativity regroups a chain (not exact: the sums round differently).
#include "engine/rewrite/rule.h"

namespace ks {

namespace {
using rule::forEach;
using rule::make;

struct NT {
  ClassId p, q;
};

// The classes x of shape [m,k] with expand(reshape(x, unit at `unitAxis`)) in class c; the
// builder leaves the expand out where it would not change the shape (m or n is 1).
template <class F>
void expandedOperands(const Graph& g, ClassId c, int unitAxis, F&& f) {
  auto reshaped = [&](ClassId r0) {
    const Shape& r = g.shape(r0);
    if (r.size() != 3 || r[unitAxis] != 1) return;
    forEach(g, r0, NodeKind::Reshape, [&](const Node& rs) {
      const Shape& x = g.shape(rs.in[0]);
      if (x.size() == 2 && x[0] == r[1 - unitAxis] && x[1] == r[2]) f(rs.in[0]);
    });
  };
  reshaped(c);
  forEach(g, c, NodeKind::Expand, [&](const Node& e) { reshaped(e.in[0]); });
}

// Every NT(P, Q) that node n (in a class of shape [m,n]) is.
std::vector<NT> matchNT(const Graph& g, const Node& n) {
  std::vector<NT> found;
  if (n.kind != NodeKind::Reduce || n.reduceOp() != ReduceOp::Sum || n.attr != std::vector<int64_t>{2}) return found;
  if (g.shape(n.in[0]).size() != 3) return found;
  forEach(g, n.in[0], NodeKind::Binary, [&](const Node& mul) {
    if (mul.binaryOp() != BinaryOp::Mul) return;
    for (int side = 0; side < 2; ++side)
      expandedOperands(g, mul.in[side], 1, [&](ClassId p) {
        expandedOperands(g, mul.in[1 - side], 0, [&](ClassId q) {
          if (side == 0 || g.find(mul.in[0]) != g.find(mul.in[1])) found.push_back({p, q});
        });
      });
  });
  return found;
}

// Every NT in class c.
std::vector<NT> ntOf(const Graph& g, ClassId c) {
  std::vector<NT> all;
  for (NodeId id : g.eclass(c).nodes)
    for (const NT& nt : matchNT(g, g.node(id))) all.push_back(nt);
  return all;
}

ClassId buildNT(Graph& g, ClassId p, ClassId q) {
  const Shape ps = g.shape(p), qs = g.shape(q);
  const int64_t m = ps[0], k = ps[1], n = qs[0];
  const Shape full{m, n, k};
  const ClassId a = g.add(make(NodeKind::Expand, {g.add(make(NodeKind::Reshape, {p}, {m, 1, k}))}, full));
  const ClassId b = g.add(make(NodeKind::Expand, {g.add(make(NodeKind::Reshape, {q}, {1, n, k}))}, full));
  const ClassId prod = g.add(make(NodeKind::Binary, {a, b}, {}, static_cast<uint8_t>(BinaryOp::Mul)));
  return g.add(make(NodeKind::Reduce, {prod}, {2}, static_cast<uint8_t>(ReduceOp::Sum)));
}

ClassId transposed(Graph& g, ClassId x) { return g.add(make(NodeKind::Permute, {x}, {1, 0})); }

// NT(P, Q) -> permute(NT(Q, P)): (P Q^T) = (Q P^T)^T. With permute-permute this is the seed's
// transpose fusion permute(A) @ permute(B) <-> permute(B @ A).
Rule matmulTranspose() {
  Rule r{"matmul-transpose", RuleFamily::Matmul, true, true, "P @ Q^T -> (Q @ P^T)^T (the seed's transpose fusion)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    for (const NT& nt : matchNT(g, n)) out.push_back({c, {nt.p, nt.q}, {}, {}, {}, 0});
  };
  r.apply = [](Graph& g, const Match& m) { return transposed(g, buildNT(g, m.cls[1], m.cls[0])); };
  return r;
}

// (A @ B) @ C -> A @ (B @ C). In NT form: NT(NT(A, Bt), Ct) -> NT(A, permute(NT(permute(Bt), Ct))).
Rule matmulAssocRight() {
  Rule r{"matmul-assoc-right", RuleFamily::Matmul, false, true, "(A @ B) @ C -> A @ (B @ C) (not exact: sums round differently)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    for (const NT& outer : matchNT(g, n))
      for (const NT& inner : ntOf(g, outer.p)) out.push_back({c, {inner.p, inner.q, outer.q}, {}, {}, {}, 0});
  };
  r.apply = [](Graph& g, const Match& m) {
    const ClassId bc = buildNT(g, transposed(g, m.cls[1]), m.cls[2]);  // B @ C, [k, p]
    return buildNT(g, m.cls[0], transposed(g, bc));
  };
  return r;
}

// A @ (B @ C) -> (A @ B) @ C. In NT form: NT(A, permute(NT(B, Ct))) -> NT(NT(A, permute(B)), Ct).
Rule matmulAssocLeft() {
  Rule r{"matmul-assoc-left", RuleFamily::Matmul, false, true, "A @ (B @ C) -> (A @ B) @ C (not exact: sums round differently)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    for (const NT& outer : matchNT(g, n))
      forEach(g, outer.q, NodeKind::Permute, [&](const Node& t) {
        if (t.attr != std::vector<int64_t>{1, 0}) return;
        for (const NT& inner : ntOf(g, t.in[0])) out.push_back({c, {outer.p, inner.p, inner.q}, {}, {}, {}, 0});
      });
  };
  r.apply = [](Graph& g, const Match& m) {
    const ClassId ab = buildNT(g, m.cls[0], transposed(g, m.cls[1]));
    return buildNT(g, ab, m.cls[2]);
  };
  return r;
}
}  // namespace

std::vector<Rule> matmulRules() { return {matmulTranspose(), matmulAssocRight(), matmulAssocLeft()}; }

}  // namespace ks
