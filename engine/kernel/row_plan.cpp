// Which reduces a row kernel computes once per row, found by walking the output element's index
// down through the movement ops.
#include "engine/kernel/row_plan.h"

#include <algorithm>
#include <unordered_set>

#include "engine/kernel/index_map.h"
#include "engine/kernel/schedule.h"

namespace ks {

bool mentions(const Idx& e, const std::set<int32_t>& vars) {
  if (!e) return false;
  switch (e->kind) {
    case IdxKind::Var: return vars.count(e->var) > 0 && e->lo != e->hi;  // a one-value range is a constant
    case IdxKind::Lin:
      return std::any_of(e->terms.begin(), e->terms.end(), [&](const auto& t) { return mentions(t.second, vars); });
    case IdxKind::Div:
    case IdxKind::Mod:
    case IdxKind::Within: return mentions(e->a, vars);
    case IdxKind::Min: return mentions(e->a, vars) || mentions(e->b, vars);
  }
  return false;
}

namespace {

class RowWalker {
 public:
  RowWalker(const Kernel& k, std::set<int32_t> variant) : k_(k), variant_(std::move(variant)) {}

  void walk(int32_t op, const std::vector<Idx>& idx, const Mask& mask) {
    if (!plan.why.empty()) return;
    std::string key = std::to_string(op) + "@";
    for (const Idx& i : idx) key += i->key + ",";
    key += "|" + mask.key();
    if (!seen_.insert(key).second) return;
    const KOp& o = k_.at(op);
    switch (o.kind) {
      case KOpKind::Const:
      case KOpKind::Param:
      case KOpKind::Store: return;
      case KOpKind::Move: {
        Mask m = mask, pad;
        const std::vector<Idx> in = moveSourceIndex(o, k_.at(o.src[0]).shape, idx, pad);
        m.append(pad);
        walk(o.src[0], in, m);
        return;
      }
      case KOpKind::Unary:
      case KOpKind::Cast:
      case KOpKind::Bitcast:
      case KOpKind::Binary:
      case KOpKind::Where:
        for (int32_t s : o.src) walk(s, k_.at(s).shape.empty() ? std::vector<Idx>{} : idx, mask);
        return;
      case KOpKind::Reduce: reduce(op, idx, mask); return;
    }
  }

  RowPlan plan;

 private:
  void reduce(int32_t op, const std::vector<Idx>& idx, const Mask& mask) {
    bool varies = false;
    for (const Idx& i : idx) varies = varies || mentions(i, variant_);
    for (const Mask::Term& t : mask.terms) varies = varies || mentions(t.e, variant_);
    if (varies) {
      // Inside a row reduce a reduce along the reduced index is an ordinary nested reduce; at the
      // output level it is per element, which a row group does not compute.
      if (depth_ == 0) plan.why = "a reduce (op " + std::to_string(op) + ") varies along the output row";
      return;
    }
    for (const RowReduce& r : plan.reduces)
      if (r.reduce == op) {
        bool same = r.idx.size() == idx.size() && r.mask.key() == mask.key();
        for (std::size_t i = 0; same && i < idx.size(); ++i) same = r.idx[i]->key == idx[i]->key;
        if (!same) plan.why = "reduce op " + std::to_string(op) + " is read at two elements per row";
        return;
      }
    const int64_t K = k_.at(k_.at(op).src[0]).shape.back();
    const int32_t rv = nextVar_--;
    std::vector<Idx> inner = idx;
    // A reduce over one element reads index 0 (a variable of one value would pass for a constant).
    inner.push_back(K <= 1 ? idx::cst(0) : idx::var(rv, "__r" + std::to_string(-rv), 0, K - 1));
    variant_.insert(rv);
    ++depth_;
    walk(k_.at(op).src[0], inner, mask);
    --depth_;
    plan.reduces.push_back({op, idx, mask});
  }

  const Kernel& k_;
  std::set<int32_t> variant_;
  std::unordered_set<std::string> seen_;
  int depth_ = 0;
  int32_t nextVar_ = -1000;
};

}  // namespace

RowPlan rowReduces(const Kernel& k, const std::vector<int32_t>& values, const std::vector<Idx>& lane,
                   const std::set<int32_t>& variant) {
  RowWalker w(k, variant);
  for (int32_t v : values) w.walk(v, lane, Mask{});
  RowPlan p = std::move(w.plan);
  if (p.why.empty()) {
    std::sort(p.reduces.begin(), p.reduces.end(), [](const RowReduce& a, const RowReduce& b) { return a.reduce < b.reduce; });
    if (p.reduces.empty()) p.why = "no reduce is constant along the output row";
  }
  return p;
}

RowPlan planRows(const Kernel& k, int64_t* rowLength) {
  const KernelGridInfo g = kernelGridInfo(k);
  RowPlan p;
  if (g.primaryStore < 0) {
    p.why = "kernel has no store";
    return p;
  }
  if (rowLength) *rowLength = g.N;
  const Shape& S = k.at(g.primaryStore).shape;
  const int32_t rowVar = -1, colVar = -2;
  const Idx row = idx::var(rowVar, "__row", 0, std::max<int64_t>(g.B * g.M - 1, 0));
  const Idx n = idx::var(colVar, "__col", 0, std::max<int64_t>(g.N - 1, 0));
  const Idx b = idx::div(row, g.M), m = idx::mod(row, g.M);
  std::vector<int32_t> values;
  for (int32_t st : k.storeOps())
    if (k.at(st).shape == S) values.push_back(k.at(st).src[1]);
  return rowReduces(k, values, outputIndex(S, b, m, n), {colVar});
}

}  // namespace ks
