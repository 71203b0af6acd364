// Movement rules: compositions of permutes, reshapes, expands, pads and narrows that collapse
// into one op or cancel. All are exact: they move or select the same elements.
#include <numeric>

#include "engine/rewrite/rule.h"

namespace ks {

namespace {
using rule::forEach;
using rule::make;

bool isIdentity(const std::vector<int64_t>& axes) {
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// The class itself as a replacement: the runner merges root with it.
ClassId same(Graph&, const Match& m) { return m.cls[0]; }

Rule permutePermute() {
  Rule r{"permute-permute", RuleFamily::Movement, true, true, "permute(permute(x, p), q) -> permute(x, p[q])", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Permute) return;
    forEach(g, n.in[0], NodeKind::Permute, [&](const Node& inner) {
      std::vector<int64_t> axes;
      for (int64_t a : n.attr) axes.push_back(inner.attr[a]);
      out.push_back({c, {inner.in[0]}, axes, {}, {}, 0});
    });
  };
  r.apply = [](Graph& g, const Match& m) {
    return isIdentity(m.ints) ? m.cls[0] : g.add(make(NodeKind::Permute, {m.cls[0]}, m.ints));
  };
  return r;
}

Rule permuteIdentity() {
  Rule r{"permute-identity", RuleFamily::Movement, true, true, "permute(x, identity) -> x", {}, same};
  r.search = [](const Graph&, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind == NodeKind::Permute && isIdentity(n.attr)) out.push_back({c, {n.in[0]}, {}, {}, {}, 0});
  };
  return r;
}

Rule reshapeReshape() {
  Rule r{"reshape-reshape", RuleFamily::Movement, true, true, "reshape(reshape(x, s), t) -> reshape(x, t)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Reshape) return;
    forEach(g, n.in[0], NodeKind::Reshape, [&](const Node& inner) { out.push_back({c, {inner.in[0]}, n.attr, {}, {}, 0}); });
  };
  r.apply = [](Graph& g, const Match& m) {
    return g.shape(m.cls[0]) == m.ints ? m.cls[0] : g.add(make(NodeKind::Reshape, {m.cls[0]}, m.ints));
  };
  return r;
}

// Reshape or expand to the operand's own shape.
Rule sameShape(const char* name, NodeKind kind) {
  Rule r{name, RuleFamily::Movement, true, true, std::string(nodeKindName(kind)) + "(x, shape(x)) -> x", {}, same};
  r.search = [kind](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind == kind && g.shape(n.in[0]) == n.attr) out.push_back({c, {n.in[0]}, {}, {}, {}, 0});
  };
  return r;
}

Rule expandExpand() {
  Rule r{"expand-expand", RuleFamily::Movement, true, true, "expand(expand(x, s), t) -> expand(x, t)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Expand) return;
    forEach(g, n.in[0], NodeKind::Expand, [&](const Node& inner) { out.push_back({c, {inner.in[0]}, n.attr, {}, {}, 0}); });
  };
  r.apply = [](Graph& g, const Match& m) { return g.add(make(NodeKind::Expand, {m.cls[0]}, m.ints)); };
  return r;
}

// narrow(pad(x, axis, lp, rp), axis, lp, dim) selects exactly x again.
Rule narrowPad() {
  Rule r{"narrow-pad", RuleFamily::Movement, true, true, "narrow(pad(x, a, l, r), a, l, dim(x)) -> x", {}, same};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Narrow) return;
    forEach(g, n.in[0], NodeKind::Pad, [&](const Node& pad) {
      const int64_t axis = pad.attr[0], lp = pad.attr[1], rp = pad.attr[2];
      if (lp < 0 || rp < 0 || n.attr[0] != axis) return;
      if (n.attr[1] == lp && n.attr[2] == g.shape(pad.in[0])[axis]) out.push_back({c, {pad.in[0]}, {}, {}, {}, 0});
    });
  };
  return r;
}

Rule narrowNarrow() {
  Rule r{"narrow-narrow", RuleFamily::Movement, true, true, "narrow(narrow(x, a, s, l), a, t, k) -> narrow(x, a, s + t, k)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Narrow) return;
    forEach(g, n.in[0], NodeKind::Narrow, [&](const Node& inner) {
      if (inner.attr[0] == n.attr[0]) out.push_back({c, {inner.in[0]}, {n.attr[0], inner.attr[1] + n.attr[1], n.attr[2]}, {}, {}, 0});
    });
  };
  r.apply = [](Graph& g, const Match& m) { return g.add(make(NodeKind::Narrow, {m.cls[0]}, m.ints)); };
  return r;
}

// A pad that only crops (both pads <= 0) is a narrow.
Rule cropIsNarrow() {
  Rule r{"crop-narrow", RuleFamily::Movement, true, true, "pad(x, a, -s, -r) -> narrow(x, a, s, dim - s - r)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Pad || n.attr[1] > 0 || n.attr[2] > 0) return;
    const int64_t d = g.shape(n.in[0])[n.attr[0]];
    out.push_back({c, {n.in[0]}, {n.attr[0], -n.attr[1], d + n.attr[1] + n.attr[2]}, {}, {}, 0});
  };
  r.apply = [](Graph& g, const Match& m) { return g.add(make(NodeKind::Narrow, {m.cls[0]}, m.ints)); };
  return r;
}

// Two growing pads of one axis with one fill value are one pad.
Rule padPad() {
  Rule r{"pad-pad", RuleFamily::Movement, true, true, "pad(pad(x, a, l, r, v), a, l2, r2, v) -> pad(x, a, l + l2, r + r2, v)", {}, {}};
  r.search = [](const Graph& g, ClassId c, const Node& n, std::vector<Match>& out) {
    if (n.kind != NodeKind::Pad || n.attr[1] < 0 || n.attr[2] < 0) return;
    forEach(g, n.in[0], NodeKind::Pad, [&](const Node& inner) {
      if (inner.attr[0] != n.attr[0] || inner.attr[1] < 0 || inner.attr[2] < 0 || !(inner.value == n.value)) return;
      out.push_back({c, {inner.in[0]}, {n.attr[0], inner.attr[1] + n.attr[1], inner.attr[2] + n.attr[2]}, {}, n.value, 0});
    });
  };
  r.apply = [](Graph& g, const Match& m) {
    Node p = make(NodeKind::Pad, {m.cls[0]}, m.ints);
    p.value = m.value;
    return g.add(std::move(p));
  };
  return r;
}
}  // namespace

std::vector<Rule> movementRules() {
  return {permutePermute(), permuteIdentity(), reshapeReshape(), sameShape("reshape-same", NodeKind::Reshape),
          expandExpand(), sameShape("expand-same", NodeKind::Expand), narrowPad(), narrowNarrow(), cropIsNarrow(), padPad()};
}

}  // namespace ks
