// Finds the operands of a matmul-like reduce that can be staged in local memory, by following a
// symbolic element (m, n, r, batch z) of the reduce operand down to every param it reads.
#include "engine/kernel/local_tiling.h"

#include <functional>
#include <map>
#include <set>

#include "engine/kernel/index_map.h"
#include "engine/kernel/schedule.h"

namespace ks {

namespace {

enum SymVar : int32_t { VarM = 0, VarN = 1, VarZ = 2, VarR = 3 };

// Calls `visit(param, index, clean)` for every param read under `op` at element `idx`; clean is
// false below a Pad (masked reads) or a nested reduce (its own loop index).
void walkParams(const Kernel& k, int32_t op, const std::vector<Idx>& idx, bool clean, std::set<std::string>& seen,
                const std::function<void(int32_t, const std::vector<Idx>&, bool)>& visit) {
  std::string key = std::to_string(op) + (clean ? "@" : "!");
  for (const Idx& i : idx) key += i->key + ",";
  if (!seen.insert(key).second) return;
  const KOp& o = k.at(op);
  switch (o.kind) {
    case KOpKind::Param: visit(op, idx, clean); return;
    case KOpKind::Const: return;
    case KOpKind::Move: {
      Mask pad;
      std::vector<Idx> in = moveSourceIndex(o, k.at(o.src[0]).shape, idx, pad);
      walkParams(k, o.src[0], in, clean && pad.empty(), seen, visit);
      return;
    }
    case KOpKind::Reduce: {
      std::vector<Idx> in = idx;
      in.push_back(idx::cst(0));
      walkParams(k, o.src[0], in, false, seen, visit);
      return;
    }
    default:
      for (int32_t s : o.src)
        walkParams(k, s, k.at(s).shape.empty() ? std::vector<Idx>{} : idx, clean, seen, visit);
  }
}

bool onlyBatchVars(const Idx& e) {
  switch (e->kind) {
    case IdxKind::Var: return e->var == VarZ;
    case IdxKind::Lin:
      for (auto& [c, a] : e->terms)
        if (!onlyBatchVars(a)) return false;
      return true;
    default: return onlyBatchVars(e->a) && (!e->b || onlyBatchVars(e->b));
  }
}

// Coefficients of m, n and r in a flat index, or false when it is not affine in them (with any
// function of the batch index z added).
bool affineInMNR(const Idx& f, int64_t& am, int64_t& an, int64_t& ar) {
  am = an = ar = 0;
  std::vector<std::pair<int64_t, Idx>> terms;
  if (f->kind == IdxKind::Lin) terms = f->terms;
  else terms.push_back({1, f});
  for (auto& [c, a] : terms) {
    if (a->kind == IdxKind::Var && a->var == VarM) am += c;
    else if (a->kind == IdxKind::Var && a->var == VarN) an += c;
    else if (a->kind == IdxKind::Var && a->var == VarR) ar += c;
    else if (!onlyBatchVars(a)) return false;
  }
  return true;
}

}  // namespace

LocalTilePlan planLocalTiles(const Kernel& k) {
  LocalTilePlan plan;
  const KernelGridInfo g = kernelGridInfo(k);
  if (g.topReduce < 0) {
    plan.why = "needs exactly one reduce at output level";
    return plan;
  }
  // The reduce's own shape: it differs from the store's at most by axes of size 1.
  const Shape& S = k.at(g.topReduce).shape;
  if (gridShape(S) != gridShape(k.at(g.primaryStore).shape)) {
    plan.why = "the reduce's result is reshaped before it is stored";
    return plan;
  }
  if (k.hasMoveAfterReduce(true)) {
    plan.why = "a movement op follows the reduce";
    return plan;
  }
  plan.reduce = g.topReduce;
  const int32_t operand = k.at(g.topReduce).src[0];
  const std::vector<Idx> idx = [&] {
    std::vector<Idx> v = outputIndex(S, idx::var(VarZ, "z", 0, g.B - 1), idx::var(VarM, "m", 0, g.M - 1),
                                     idx::var(VarN, "n", 0, g.N - 1));
    v.push_back(idx::var(VarR, "r", 0, g.reduceLen - 1));
    return v;
  }();
  struct Reads { std::set<std::string> flats; Idx flat; bool clean = true; };
  std::map<int32_t, Reads> reads;
  std::set<std::string> seen;
  walkParams(k, operand, idx, true, seen, [&](int32_t p, const std::vector<Idx>& pidx, bool clean) {
    Reads& r = reads[p];
    r.clean = r.clean && clean && k.at(p).paramKind() == ParamKind::Read;
    if (!r.clean) return;
    r.flat = flatIndex(pidx, k.at(p).shape);
    r.flats.insert(r.flat->key);
  });
  for (auto& [p, r] : reads) {
    const DType t = k.at(p).dtype;
    if (!r.clean || r.flats.size() != 1 || t == DType::F16 || t == DType::Bool) continue;
    int64_t am, an, ar;
    if (!affineInMNR(r.flat, am, an, ar) || ar == 0) continue;
    if (am != 0 && an == 0) plan.operands.push_back({p, true});
    else if (an != 0 && am == 0) plan.operands.push_back({p, false});
  }
  if (plan.operands.empty()) plan.why = "no operand of the reduce is read along (m, r) or (r, n) alone";
  return plan;
}

std::vector<Idx> stagedParamIndex(const Kernel& k, int32_t reduceOperand, int32_t param, const std::vector<Idx>& idx) {
  std::vector<Idx> found;
  std::set<std::string> seen;
  walkParams(k, reduceOperand, idx, true, seen, [&](int32_t p, const std::vector<Idx>& pidx, bool) {
    if (p == param && found.empty()) found = pidx;
  });
  return found;
}

}  // namespace ks
