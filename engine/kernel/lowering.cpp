// Lowering of fused kernels: index propagation through movement ops, lanes for register tiles and
// unrolled reduce loops, vector loads/stores where lanes are provably contiguous, cooperative
// reductions (local memory tree, split across work-groups with a second pass).
#include "engine/kernel/lowering.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/kernel/index_map.h"
#include "engine/kernel/local_tiling.h"
#include "engine/kernel/row_plan.h"

namespace ks {

namespace {

[[noreturn]] void unsupported(const std::string& m) { throw Error(ErrorCode::Unsupported, "lowering: " + m); }

// One element being computed: its index in the op's shape and the pad conditions on the path.
struct Lane {
  std::vector<Idx> idx;
  Mask mask;
  // Under local tiling: the element's row, column and reduced index inside the work-group's block
  // (set on the lanes of a tiled reduce; staged operands are read from local memory there).
  Idx tm, tn, tr;
};

// Local tiling of one launch: the staged operands with their local arrays and the block's origin.
struct TileContext {
  LocalTilePlan plan;
  std::vector<int32_t> localOf;  // parallel to plan.operands: the Local array
  Shape S;                       // the reduce's shape (the output's, up to axes of size 1)
  Idx z, m0, n0, lid;            // batch index, first row and column of the block, linear local id
  int64_t BM = 1, BN = 1, Kt = 1, items = 1;
  int staged(int32_t param) const {
    for (std::size_t i = 0; i < plan.operands.size(); ++i)
      if (plan.operands[i].param == param) return static_cast<int>(i);
    return -1;
  }
};

LStmt barrier() {
  LStmt b;
  b.kind = LStmtKind::Barrier;
  return b;
}

std::string laneKey(int32_t op, const Lane& l) {
  std::string s = std::to_string(op) + "@";
  for (const Idx& i : l.idx) s += i->key + ",";
  if (!l.mask.empty()) s += "|" + l.mask.key();
  return s;
}

Scalar identityOf(ReduceOp r, DType t) {
  switch (r) {
    case ReduceOp::Sum: return Scalar::of(t, 0);
    case ReduceOp::Prod: return Scalar::of(t, 1);
    case ReduceOp::Max:
      if (isFloat(t)) return Scalar::of(t, -std::numeric_limits<double>::infinity());
      if (t == DType::Bool) return Scalar::boolean(false);
      return Scalar::of(t, -1e300);  // saturates to the dtype's lowest
    case ReduceOp::Min:
      if (isFloat(t)) return Scalar::of(t, std::numeric_limits<double>::infinity());
      if (t == DType::Bool) return Scalar::boolean(true);
      return Scalar::of(t, 1e300);
  }
  return Scalar::of(t, 0);
}

DType accDType(DType t) { return t == DType::F16 ? DType::F32 : t; }

bool floatOnly(UnaryOp u) {
  switch (u) {
    case UnaryOp::Neg:
    case UnaryOp::Abs:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Round:
    case UnaryOp::Trunc:
    case UnaryOp::Not:
    case UnaryOp::IsNan:
    case UnaryOp::Sign: return false;
    default: return true;
  }
}

// Reductions nested inside one kernel (each is a loop inside the previous one's body).
constexpr int kMaxReduceNesting = 64;

class LaunchBuilder {
 public:
  LaunchBuilder(const Kernel& k, LoweredKernel& lk, LoweredLaunch& l)
      : k_(k), lk_(lk), l_(l) {
    blocks_.push_back(&l_.body);
    memo_.emplace_back();
    const auto ps = k.params();
    for (std::size_t i = 0; i < ps.size(); ++i) paramPos_[ps[i]] = static_cast<int32_t>(i);
  }

  int32_t newVar(const std::string& prefix, DType t, bool isIndex = false) {
    l_.vars.push_back({prefix + std::to_string(l_.vars.size()), t, isIndex});
    return static_cast<int32_t>(l_.vars.size() - 1);
  }
  LStmt& emit(LStmt s) {
    blocks_.back()->push_back(std::move(s));
    return blocks_.back()->back();
  }
  void pushBlock(std::vector<LStmt>* b) {
    blocks_.push_back(b);
    memo_.emplace_back();
  }
  void popBlock() {
    blocks_.pop_back();
    memo_.pop_back();
  }
  const LArg* lookup(const std::string& key) const {
    for (auto it = memo_.rbegin(); it != memo_.rend(); ++it) {
      auto f = it->find(key);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }
  void remember(const std::string& key, LArg a) { memo_.back()[key] = a; }

  Idx special(SpecialKind kind, int axis, int64_t hi, const char* name) {
    const int32_t v = newVar(name, DType::I64, true);
    LStmt s;
    s.kind = LStmtKind::Special;
    s.dst = v;
    s.op = static_cast<uint8_t>(kind);
    s.axis = axis;
    emit(std::move(s));
    return idx::var(v, l_.vars[v].name, 0, hi);
  }

  LArg compute1(int32_t op, DType t, LOpKind kind, uint8_t o, std::vector<LArg> args, Mask mask = {}) {
    const int32_t v = newVar("v", t);
    LStmt s;
    s.kind = LStmtKind::Compute;
    s.dst = v;
    s.opKind = kind;
    s.op = o;
    s.args = std::move(args);
    s.mask = std::move(mask);
    emit(std::move(s));
    (void)op;
    return LArg::ofVar(v);
  }

  void assign(int32_t dst, BinaryOp b, LArg x, LArg y) {
    LStmt s;
    s.kind = LStmtKind::Compute;
    s.dst = dst;
    s.assign = true;
    s.opKind = LOpKind::Binary;
    s.op = static_cast<uint8_t>(b);
    s.args = {x, y};
    emit(std::move(s));
  }

  // Values of `op` at every lane (lanes with equal keys share one computation). The operands are
  // walked with an explicit stack: an elementwise chain is as deep as the program is long, and a
  // thread's stack is not. Only a reduce recurses (its loop body), so the depth is the nesting of
  // reductions, which is bounded.
  std::vector<LArg> compute(int32_t op, const std::vector<Lane>& lanes, int depth) {
    if (depth > kMaxReduceNesting)
      unsupported("more than " + std::to_string(kMaxReduceNesting) + " reductions nested in one kernel");
    std::vector<Frame> stack;
    std::vector<LArg> result;
    if (!open(op, lanes, stack, result)) return result;
    while (!stack.empty()) {
      if (stack.back().next < walkedOperands(stack.back().op)) {
        Frame& f = stack.back();
        const int32_t src = k_.at(f.op).src[f.next++];
        std::vector<Lane> sub = operandLanesOf(f, src);
        std::vector<LArg> vals;
        if (!open(src, sub, stack, vals)) stack.back().operands.push_back(std::move(vals));
        continue;
      }
      Frame& f = stack.back();
      const std::vector<LArg> vals = finish(f, depth);
      for (std::size_t j = 0; j < f.todo.size(); ++j) remember(f.keys[f.todo[j]], vals[j]);
      std::vector<LArg> all(f.keys.size());
      for (std::size_t i = 0; i < f.keys.size(); ++i) all[i] = *lookup(f.keys[i]);
      stack.pop_back();
      if (stack.empty()) result = std::move(all);
      else stack.back().operands.push_back(std::move(all));
    }
    return result;
  }

  // Emits `for (var = 0; var < end; var += step)` with a body this builder then writes into (until
  // popBlock); returns the loop variable. `var` is a variable made for it (newVar).
  Idx openFor(int32_t var, int64_t end, int64_t step) {
    LStmt f;
    f.kind = LStmtKind::For, f.dst = var, f.begin = idx::cst(0), f.end = idx::cst(end), f.step = step;
    LStmt& placed = emit(std::move(f));
    pushBlock(&placed.body);
    return idx::var(var, l_.vars[var].name, 0, std::max<int64_t>(end - step, 0));
  }

  // Cooperative reduction override: the value of `op` at the output lane comes from here.
  void preset(int32_t op, const Lane& lane, LArg v) { remember(laneKey(op, lane), v); }

  // Emits the accumulation loop(s) of reduce `op` for `lanes` over [lo, hi) of the reduced axis,
  // this item taking unroll-chunks t, t + L, ...; returns one accumulator per lane (acc dtype).
  std::vector<int32_t> reduceLoop(int32_t op, const std::vector<Lane>& lanes, const Idx& lo, const Idx& hi,
                                  const Idx& t, int64_t L, int64_t u, bool splitAcc, int depth) {
    const KOp& R = k_.at(op);
    const DType at = accDType(R.dtype);
    const int64_t accs = splitAcc ? u : 1;
    const Scalar ident = identityOf(R.reduceOp(), at);
    const BinaryOp comb = combinerOf(R.reduceOp());
    std::vector<std::vector<int32_t>> acc(lanes.size());
    for (auto& a : acc)
      for (int64_t j = 0; j < accs; ++j) a.push_back(newAccumulator(ident));
    const Idx len = idx::add(hi, idx::mul(lo, -1));
    const int64_t block = L * u;
    const Idx mainEnd = u == 1 ? hi : idx::add(lo, idx::mul(idx::div(len, block), block));
    auto loop = [&](const Idx& begin, const Idx& end, int64_t step, int64_t span) {
      const int32_t rv = newVar("r", DType::I64, true);
      LStmt f;
      f.kind = LStmtKind::For;
      f.dst = rv;
      f.begin = begin;
      f.end = end;
      f.step = step;
      f.span = span;
      LStmt& placed = emit(std::move(f));
      const int64_t rhi = std::max(begin->lo, end->hi - span);
      const Idx r = idx::var(rv, l_.vars[rv].name, std::min(begin->lo, rhi), rhi);
      pushBlock(&placed.body);
      std::vector<Lane> inner;
      for (const Lane& ln : lanes)
        for (int64_t j = 0; j < span; ++j) {
          Lane in = ln;
          in.idx.push_back(idx::addc(r, j));
          inner.push_back(std::move(in));
        }
      std::vector<LArg> vals = compute(R.src[0], inner, depth + 1);
      for (std::size_t li = 0; li < lanes.size(); ++li)
        for (int64_t j = 0; j < span; ++j) {
          const int32_t a = acc[li][static_cast<std::size_t>(j % accs)];
          assign(a, comb, LArg::ofVar(a), vals[li * span + j]);
        }
      popBlock();
    };
    loop(idx::add(lo, idx::mul(t, u)), mainEnd, block, u);
    int64_t lv = 0, hv = 0;
    const bool exact = idx::isConst(lo, &lv) && idx::isConst(hi, &hv) && (hv - lv) % block == 0;
    if (u > 1 && !exact) loop(idx::add(mainEnd, t), hi, L, 1);
    std::vector<int32_t> res;
    for (auto& a : acc) {
      for (int64_t j = 1; j < accs; ++j) assign(a[0], comb, LArg::ofVar(a[0]), LArg::ofVar(a[j]));
      res.push_back(a[0]);
    }
    return res;
  }

  LArg finishReduce(int32_t op, int32_t accVar) {
    const KOp& R = k_.at(op);
    if (R.dtype == accDType(R.dtype)) return LArg::ofVar(accVar);
    return compute1(op, R.dtype, LOpKind::Cast, 0, {LArg::ofVar(accVar)});
  }

  int32_t newAccumulator(const Scalar& ident) {
    const int32_t v = newVar("acc", ident.dtype());
    LStmt s;
    s.kind = LStmtKind::Compute;
    s.dst = v;
    s.opKind = LOpKind::Copy;
    s.args = {LArg::ofConst(ident)};
    emit(std::move(s));
    return v;
  }

  // Stores vals[i] at flat[i] of `buf`; unguarded runs of w consecutive indices become vector stores.
  void storeRuns(const BufRef& buf, DType t, const std::vector<Idx>& flat, const std::vector<Mask>& guards,
                 const std::vector<LArg>& vals, int64_t w) {
    std::vector<bool> done(flat.size(), false);
    if (w > 1 && t != DType::F16 && t != DType::Bool) {
      std::map<std::string, std::map<int64_t, std::size_t>> buckets;
      std::map<std::string, Idx> bases;
      for (std::size_t i = 0; i < flat.size(); ++i) {
        if (!guards[i].empty()) continue;
        auto [base, c] = idx::splitConst(flat[i]);
        const std::string key = base ? base->key : "";
        buckets[key].emplace(c, i);
        bases[key] = base;
      }
      for (auto& [key, byOff] : buckets)
        for (auto& [c, i] : byOff) {
          if (done[i]) continue;
          bool run = true;
          for (int64_t j = 0; j < w && run; ++j) run = byOff.count(c + j) && !done[byOff.at(c + j)];
          if (!run) continue;
          LStmt s;
          s.kind = LStmtKind::VStore;
          s.buf = buf;
          s.index = bases[key] ? idx::addc(bases[key], c) : idx::cst(c);
          for (int64_t j = 0; j < w; ++j) {
            s.args.push_back(vals[byOff.at(c + j)]);
            done[byOff.at(c + j)] = true;
          }
          emit(std::move(s));
        }
    }
    for (std::size_t i = 0; i < flat.size(); ++i) {
      if (done[i]) continue;
      LStmt s;
      s.kind = LStmtKind::Store;
      s.buf = buf;
      s.index = flat[i];
      s.mask = guards[i];
      s.args = {vals[i]};
      emit(std::move(s));
    }
  }

  // The reduce under local tiling: for each K block, the work-group copies the staged operands'
  // blocks into local memory, waits, accumulates from there, and waits again before the next copy.
  // The copy is double-buffered through registers: the next block's loads are issued before the
  // accumulation of this one (their latency hidden behind it) and stored after the second wait.
  std::vector<int32_t> tiledReduceLoop(int32_t op, const std::vector<Lane>& lanes) {
    const KOp& R = k_.at(op);
    const DType at = accDType(R.dtype);
    const BinaryOp comb = combinerOf(R.reduceOp());
    const int64_t K = k_.at(R.src[0]).shape.back(), Kt = tile->Kt, u = unroll;
    std::vector<int32_t> acc;
    for (std::size_t i = 0; i < lanes.size(); ++i) acc.push_back(newAccumulator(identityOf(R.reduceOp(), at)));
    const std::size_t staged = tile->plan.operands.size();
    std::vector<std::vector<int32_t>> held(staged);  // the block to store next, per operand
    for (std::size_t i = 0; i < staged; ++i)
      for (const LArg& v : stageLoads(static_cast<int>(i), R.src[0], idx::cst(0))) {
        const int32_t h = newVar("h", k_.at(tile->plan.operands[i].param).dtype);
        LStmt c;
        c.kind = LStmtKind::Compute, c.dst = h, c.opKind = LOpKind::Copy, c.args = {v};
        emit(std::move(c));
        held[i].push_back(h);
      }
    const int32_t kb = newVar("kb", DType::I64, true);
    LStmt f;
    f.kind = LStmtKind::For, f.dst = kb, f.begin = idx::cst(0), f.end = idx::cst(K), f.step = Kt;
    LStmt& outer = emit(std::move(f));
    const Idx k0 = idx::var(kb, l_.vars[kb].name, 0, K - Kt);
    pushBlock(&outer.body);
    for (std::size_t i = 0; i < staged; ++i) {
      std::vector<LArg> vals;
      for (int32_t h : held[i]) vals.push_back(LArg::ofVar(h));
      stageStores(static_cast<int>(i), vals);
    }
    emit(barrier());
    // The next block (the last iteration loads its own block again: the index stays in bounds).
    const Idx next = idx::min(idx::addc(k0, Kt), idx::cst(K - Kt));
    std::vector<std::vector<LArg>> loaded(staged);
    for (std::size_t i = 0; i < staged; ++i) loaded[i] = stageLoads(static_cast<int>(i), R.src[0], next);
    const int32_t kk = newVar("r", DType::I64, true);
    LStmt g;
    g.kind = LStmtKind::For, g.dst = kk, g.begin = idx::cst(0), g.end = idx::cst(Kt), g.step = u, g.span = u;
    LStmt& inner = emit(std::move(g));
    const Idx r = idx::var(kk, l_.vars[kk].name, 0, Kt - u);
    pushBlock(&inner.body);
    std::vector<Lane> in;
    for (const Lane& ln : lanes)
      for (int64_t j = 0; j < u; ++j) {
        Lane e = ln;
        e.tr = idx::addc(r, j);
        e.idx.push_back(idx::add(k0, e.tr));
        in.push_back(std::move(e));
      }
    std::vector<LArg> vals = compute(R.src[0], in, 1);
    for (std::size_t li = 0; li < lanes.size(); ++li)
      for (int64_t j = 0; j < u; ++j) assign(acc[li], comb, LArg::ofVar(acc[li]), vals[li * u + j]);
    popBlock();
    emit(barrier());
    for (std::size_t i = 0; i < staged; ++i)
      for (std::size_t j = 0; j < held[i].size(); ++j) {
        LStmt c;
        c.kind = LStmtKind::Compute, c.dst = held[i][j], c.assign = true, c.opKind = LOpKind::Copy, c.args = {loaded[i][j]};
        emit(std::move(c));
      }
    popBlock();
    return acc;
  }

  // Staged operand i's block for the K block starting at k0, as this item copies it: runs of w
  // consecutive elements, neighbouring items neighbouring runs (stageWidth).
  int64_t stageWidth(int i) const {
    const StagedOperand& so = tile->plan.operands[static_cast<std::size_t>(i)];
    const int64_t cols = so.rows ? tile->Kt : tile->BN;
    const int64_t per = (so.rows ? tile->BM : tile->Kt) * cols / tile->items;
    int64_t w = 1;
    while (w * 2 <= lk_.schedule.vec && per % (w * 2) == 0 && cols % (w * 2) == 0) w *= 2;
    return w;
  }

  // The block element (row, col) of this item's q-th run's element j: run number `run` of the
  // block (w divides cols), with ranges as tight as the index simplifier needs to drop the
  // operands' own div/mod chains.
  std::pair<Idx, Idx> stageElement(int i, int64_t q, int64_t j) const {
    const StagedOperand& so = tile->plan.operands[static_cast<std::size_t>(i)];
    const int64_t cols = so.rows ? tile->Kt : tile->BN, w = stageWidth(i);
    const Idx run = idx::addc(tile->lid, q * tile->items);
    return {idx::div(run, cols / w), idx::addc(idx::mul(idx::mod(run, cols / w), w), j)};
  }

  int64_t stageRuns(int i) const {
    const StagedOperand& so = tile->plan.operands[static_cast<std::size_t>(i)];
    const int64_t cols = so.rows ? tile->Kt : tile->BN;
    return (so.rows ? tile->BM : tile->Kt) * cols / tile->items / stageWidth(i);
  }

  std::vector<LArg> stageLoads(int i, int32_t reduceOperand, const Idx& k0) {
    const StagedOperand& so = tile->plan.operands[static_cast<std::size_t>(i)];
    std::vector<Lane> src;
    for (int64_t q = 0; q < stageRuns(i); ++q)
      for (int64_t j = 0; j < stageWidth(i); ++j) {
        const auto [row, col] = stageElement(i, q, j);
        std::vector<Idx> e = so.rows ? outputIndex(tile->S, tile->z, idx::add(tile->m0, row), tile->n0)
                                     : outputIndex(tile->S, tile->z, tile->m0, idx::add(tile->n0, col));
        e.push_back(idx::add(k0, so.rows ? col : row));
        src.push_back({stagedParamIndex(k_, reduceOperand, so.param, e), {}, nullptr, nullptr, nullptr});
      }
    return loadParam(so.param, src);
  }

  // Stores the values stageLoads gave into the local block: K-major ([Kt][BM] and [Kt][BN]), so
  // an item's tile rows and columns are consecutive in local memory and read as vectors.
  void stageStores(int i, const std::vector<LArg>& vals) {
    const StagedOperand& so = tile->plan.operands[static_cast<std::size_t>(i)];
    std::vector<Idx> dst;
    for (int64_t q = 0; q < stageRuns(i); ++q)
      for (int64_t j = 0; j < stageWidth(i); ++j) {
        const auto [row, col] = stageElement(i, q, j);
        dst.push_back(idx::add(idx::mul(so.rows ? col : row, so.rows ? tile->BM : tile->BN), so.rows ? row : col));
      }
    storeRuns({BufRef::Space::Local, tile->localOf[static_cast<std::size_t>(i)]}, k_.at(so.param).dtype, dst,
              std::vector<Mask>(dst.size()), vals, stageWidth(i));
  }

  // Combines every item's `value` over the group's first L items through local array `local`: a
  // tree of halving steps, a barrier after each, so local[0] holds the total for every item.
  void localTree(DType at, BinaryOp comb, const Idx& t, int64_t L, int32_t local, LArg value) {
    const BufRef lbuf{BufRef::Space::Local, local};
    LStmt st;
    st.kind = LStmtKind::Store, st.buf = lbuf, st.index = t, st.args = {value};
    emit(std::move(st));
    emit(barrier());
    for (int64_t half = L / 2; half >= 1; half /= 2) {
      LStmt cond;
      cond.kind = LStmtKind::If;
      cond.mask.require(t, 0, half);
      LStmt& placed = emit(std::move(cond));
      pushBlock(&placed.body);
      const int32_t a = newVar("v", at), b = newVar("v", at);
      LStmt la;
      la.kind = LStmtKind::Load, la.dst = a, la.buf = lbuf, la.index = t;
      emit(la);
      la.dst = b, la.index = idx::addc(t, half);
      emit(la);
      assign(a, comb, LArg::ofVar(a), LArg::ofVar(b));
      LStmt sa;
      sa.kind = LStmtKind::Store, sa.buf = lbuf, sa.index = t, sa.args = {LArg::ofVar(a)};
      emit(std::move(sa));
      popBlock();
      emit(barrier());
    }
  }

  int64_t unroll = 1;
  bool splitAcc = false;
  const TileContext* tile = nullptr;

 private:
  // One op being computed: the lanes asked for, those not computed yet (`sub`), and the values of
  // the operands walked so far.
  struct Frame {
    int32_t op = 0;
    std::vector<std::string> keys;  // per lane asked for
    std::vector<std::size_t> todo;  // first lane of each key not yet computed
    std::vector<Lane> sub;          // those lanes
    std::size_t next = 0;           // operands walked
    std::vector<std::vector<LArg>> operands;
    std::vector<Mask> padMasks;     // Move: per lane of `sub`
  };

  // Pushes a frame for the lanes of `op` not computed yet; when there are none, fills `done`
  // with the known values and returns false.
  bool open(int32_t op, const std::vector<Lane>& lanes, std::vector<Frame>& stack, std::vector<LArg>& done) {
    Frame f;
    f.op = op;
    f.keys.resize(lanes.size());
    std::unordered_map<std::string, std::size_t> firstOf;
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      f.keys[i] = laneKey(op, lanes[i]);
      if (lookup(f.keys[i])) continue;
      if (firstOf.emplace(f.keys[i], i).second) f.todo.push_back(i);
    }
    if (f.todo.empty()) {
      for (const std::string& key : f.keys) done.push_back(*lookup(key));
      return false;
    }
    const KOp& o = k_.at(op);
    if (o.kind == KOpKind::Unary) {
      if (!isFloat(o.dtype) && floatOnly(o.unaryOp()) && o.unaryOp() != UnaryOp::IsNan)
        unsupported(std::string(unaryOpName(o.unaryOp())) + " on " + std::string(dtypeName(o.dtype)));
      if (o.unaryOp() == UnaryOp::Not && isFloat(o.dtype)) unsupported("not on a float");
    }
    for (std::size_t i : f.todo) f.sub.push_back(lanes[i]);
    stack.push_back(std::move(f));
    return true;
  }

  // Operands the walk visits before the op itself; a reduce computes its operand in its own loop.
  std::size_t walkedOperands(int32_t op) const {
    const KOpKind kind = k_.at(op).kind;
    return kind == KOpKind::Reduce || kind == KOpKind::Store ? 0 : k_.at(op).src.size();
  }

  // The lanes of operand `src` that the frame's lanes read.
  std::vector<Lane> operandLanesOf(Frame& f, int32_t src) {
    const KOp& o = k_.at(f.op);
    if (o.kind != KOpKind::Move) return o.kind == KOpKind::Binary || o.kind == KOpKind::Where ? operandLanes(src, f.sub) : f.sub;
    const Shape& in = k_.at(src).shape;
    std::vector<Lane> inner;
    for (const Lane& l : f.sub) {
      Lane n = l;
      Mask padMask;
      n.idx = moveSourceIndex(o, in, l.idx, padMask);
      n.mask.append(padMask);
      inner.push_back(std::move(n));
      f.padMasks.push_back(std::move(padMask));
    }
    return inner;
  }

  // The op's values at the frame's new lanes, its operands' values being known.
  std::vector<LArg> finish(const Frame& f, int depth) {
    const int32_t op = f.op;
    const KOp& o = k_.at(op);
    const std::vector<Lane>& lanes = f.sub;
    std::vector<LArg> out;
    switch (o.kind) {
      case KOpKind::Const:
        for (std::size_t i = 0; i < lanes.size(); ++i) out.push_back(LArg::ofConst(o.value));
        return out;
      case KOpKind::Param: return loadParam(op, lanes);
      case KOpKind::Move:
        out = f.operands[0];
        for (std::size_t i = 0; i < lanes.size(); ++i)
          if (!f.padMasks[i].empty())
            out[i] = compute1(op, o.dtype, LOpKind::MaskSelect, 0, {out[i], LArg::ofConst(o.value)}, f.padMasks[i]);
        return out;
      case KOpKind::Unary:
      case KOpKind::Cast:
      case KOpKind::Bitcast: {
        const LOpKind kind = o.kind == KOpKind::Unary ? LOpKind::Unary : o.kind == KOpKind::Cast ? LOpKind::Cast : LOpKind::Bitcast;
        for (std::size_t i = 0; i < lanes.size(); ++i) out.push_back(compute1(op, o.dtype, kind, o.op, {f.operands[0][i]}));
        return out;
      }
      case KOpKind::Binary:
      case KOpKind::Where: {
        const LOpKind kind = o.kind == KOpKind::Binary ? LOpKind::Binary : LOpKind::Where;
        for (std::size_t i = 0; i < lanes.size(); ++i) {
          std::vector<LArg> args;
          for (auto& x : f.operands) args.push_back(x[i]);
          out.push_back(compute1(op, o.dtype, kind, o.op, std::move(args)));
        }
        return out;
      }
      case KOpKind::Reduce: {
        if (tile && depth == 0 && op == tile->plan.reduce) {
          for (int32_t a : tiledReduceLoop(op, lanes)) out.push_back(finishReduce(op, a));
          return out;
        }
        const Idx zero = idx::cst(0);
        const int64_t K = k_.at(o.src[0]).shape.back();
        const int64_t u = depth == 0 ? std::min<int64_t>(unroll, std::max<int64_t>(K, 1)) : 1;
        auto accs = reduceLoop(op, lanes, zero, idx::cst(K), zero, 1, u, depth == 0 && splitAcc, depth);
        for (int32_t a : accs) out.push_back(finishReduce(op, a));
        return out;
      }
      case KOpKind::Store: unsupported("store used as a value");
    }
    return out;
  }

  std::vector<Lane> operandLanes(int32_t src, const std::vector<Lane>& lanes) {
    if (!k_.at(src).shape.empty()) return lanes;
    std::vector<Lane> r = lanes;
    for (Lane& l : r) l.idx.clear();
    return r;
  }

  std::vector<LArg> loadParam(int32_t op, const std::vector<Lane>& lanes) {
    const KOp& o = k_.at(op);
    BufRef buf{BufRef::Space::Param, paramPos_.at(op)};
    std::vector<Idx> flat;
    const int staged = tile && !lanes.empty() && lanes[0].tr ? tile->staged(op) : -1;
    if (staged >= 0) {  // read from the block in local memory
      buf = {BufRef::Space::Local, tile->localOf[static_cast<std::size_t>(staged)]};
      const bool rows = tile->plan.operands[static_cast<std::size_t>(staged)].rows;
      for (const Lane& l : lanes)
        flat.push_back(idx::add(idx::mul(l.tr, rows ? tile->BM : tile->BN), rows ? l.tm : l.tn));
    } else {
      for (const Lane& l : lanes)
        flat.push_back(o.paramKind() == ParamKind::Scalar ? idx::cst(0) : flatIndex(l.idx, o.shape));
    }
    std::vector<LArg> out(lanes.size());
    std::vector<bool> done(lanes.size(), false);
    if (lk_.schedule.vec > 1 && o.dtype != DType::F16 && o.dtype != DType::Bool) {
      // Bucket unmasked lanes by base expression; runs of w consecutive offsets become vloads.
      std::map<std::string, std::vector<std::pair<int64_t, std::size_t>>> buckets;
      std::map<std::string, Idx> bases;
      for (std::size_t i = 0; i < lanes.size(); ++i) {
        if (!lanes[i].mask.empty()) continue;
        auto [base, c] = idx::splitConst(flat[i]);
        const std::string key = base ? base->key : "";
        buckets[key].push_back({c, i});
        bases[key] = base;
      }
      // Widest runs first; leftovers try narrower vectors (an unroll of 4 under vec=8 still
      // gets vload4 along the reduced axis).
      for (int64_t w = lk_.schedule.vec; w >= 2; w /= 2)
      for (auto& [key, items] : buckets) {
        std::sort(items.begin(), items.end());
        std::map<int64_t, std::size_t> byOff;
        for (auto& [c, i] : items) byOff.emplace(c, i);
        for (auto& [c, i] : items) {
          if (done[i]) continue;
          bool run = true;
          for (int64_t j = 0; j < w && run; ++j) run = byOff.count(c + j) && !done[byOff[c + j]];
          if (!run) continue;
          LStmt s;
          s.kind = LStmtKind::VLoad;
          s.buf = buf;
          s.index = bases[key] ? idx::addc(bases[key], c) : idx::cst(c);
          for (int64_t j = 0; j < w; ++j) {
            const int32_t v = newVar("v", o.dtype);
            s.dsts.push_back(v);
            out[byOff[c + j]] = LArg::ofVar(v);
            done[byOff[c + j]] = true;
          }
          emit(std::move(s));
        }
      }
    }
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      if (done[i]) continue;
      const int32_t v = newVar("v", o.dtype);
      LStmt s;
      s.kind = LStmtKind::Load;
      s.dst = v;
      s.buf = buf;
      s.index = flat[i];
      s.mask = lanes[i].mask;
      emit(std::move(s));
      out[i] = LArg::ofVar(v);
    }
    return out;
  }

  const Kernel& k_;
  LoweredKernel& lk_;
  LoweredLaunch& l_;
  std::vector<std::vector<LStmt>*> blocks_;
  std::vector<std::unordered_map<std::string, LArg>> memo_;
  std::map<int32_t, int32_t> paramPos_;
};

void emitStores(LaunchBuilder& lb, const Kernel& k, LoweredKernel& lk, const std::vector<int32_t>& stores,
                const std::vector<Lane>& lanes, const std::vector<Mask>& guards, const std::map<int32_t, int32_t>& pos) {
  for (int32_t st : stores) {
    const KOp& o = k.at(st);
    std::vector<LArg> vals = lb.compute(o.src[1], lanes, 0);
    std::vector<Idx> flat;
    for (const Lane& l : lanes) flat.push_back(flatIndex(l.idx, o.shape));
    lb.storeRuns({BufRef::Space::Param, pos.at(o.src[0])}, o.dtype, flat, guards, vals, lk.schedule.vec);
  }
}

std::map<int32_t, int32_t> paramPositions(const Kernel& k) {
  std::map<int32_t, int32_t> m;
  const auto ps = k.params();
  for (std::size_t i = 0; i < ps.size(); ++i) m[ps[i]] = static_cast<int32_t>(i);
  return m;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Under local tiling: the row (or column) of a work-group's block that element e of item l's tile
// (tile elements per item, wg items along the axis) computes. With runs of v elements, the items'
// runs interleave (run q of every item, then run q + 1): neighbouring items read neighbouring
// 16-byte vectors of the block in local memory, so a warp's vector reads fall in distinct banks.
Idx tilePosition(const Idx& l, int64_t e, int64_t tile, int64_t wg, int64_t vec) {
  const int64_t v = std::min({vec, tile, int64_t{4}});  // 4: one 16-byte access
  if (v <= 1 || tile % v != 0) return idx::addc(idx::mul(l, tile), e);
  return idx::addc(idx::mul(l, v), (e / v) * wg * v + e % v);
}

// One launch over an output grid [B, M, N] with tiles and work-group shape from the schedule.
void gridLaunch(const Kernel& k, LoweredKernel& lk, const Schedule& s, const std::vector<int32_t>& stores) {
  const Shape S = k.at(stores[0]).shape;
  if (numel(S) == 0) return;
  lk.launches.emplace_back();
  LoweredLaunch& L = lk.launches.back();
  L.name = "k" + std::to_string(lk.launches.size() - 1);
  const Shape G = gridShape(S);
  const std::size_t r = G.size();
  const int64_t N = r >= 1 ? G[r - 1] : 1, M = r >= 2 ? G[r - 2] : 1;
  const int64_t B = numel(S) / (N * M);
  const int64_t gx = ceilDiv(N, s.tileN), gy = ceilDiv(M, s.tileM);
  L.global[0] = s.wgN > 0 ? ceilDiv(gx, s.wgN) * s.wgN : gx;
  L.global[1] = s.wgN > 0 ? ceilDiv(gy, s.wgM) * s.wgM : gy;
  L.global[2] = B;
  if (s.wgN > 0) L.local[0] = s.wgN, L.local[1] = s.wgM, L.local[2] = 1;
  const bool clampN = L.global[0] * s.tileN != N, clampM = L.global[1] * s.tileM != M;
  LaunchBuilder lb(k, lk, L);
  lb.unroll = s.unroll;
  lb.splitAcc = s.splitAcc;
  Idx x, y, z, lx, ly;
  TileContext tile;
  if (s.localTileK > 0) {  // checkSchedule made the grid exact: every item reaches every barrier
    lx = lb.special(SpecialKind::LocalId, 0, s.wgN - 1, "lx");
    ly = lb.special(SpecialKind::LocalId, 1, s.wgM - 1, "ly");
    const Idx bx = lb.special(SpecialKind::GroupId, 0, L.global[0] / s.wgN - 1, "bx");
    const Idx by = lb.special(SpecialKind::GroupId, 1, L.global[1] / s.wgM - 1, "by");
    z = lb.special(SpecialKind::GlobalId, 2, L.global[2] - 1, "gz");
    x = idx::add(idx::mul(bx, s.wgN), lx);
    y = idx::add(idx::mul(by, s.wgM), ly);
    tile.plan = planLocalTiles(k);
    tile.S = k.at(tile.plan.reduce).shape;  // staging lanes index the reduce's operand
    tile.BM = s.wgM * s.tileM, tile.BN = s.wgN * s.tileN, tile.Kt = s.localTileK, tile.items = s.wgN * s.wgM;
    tile.z = z, tile.m0 = idx::mul(by, tile.BM), tile.n0 = idx::mul(bx, tile.BN);
    tile.lid = idx::add(idx::mul(ly, s.wgN), lx);
    for (const StagedOperand& op : tile.plan.operands) {
      tile.localOf.push_back(static_cast<int32_t>(L.locals.size()));
      L.locals.push_back({k.at(op.param).dtype, (op.rows ? tile.BM : tile.BN) * tile.Kt});
    }
    lb.tile = &tile;
  } else {
    x = lb.special(SpecialKind::GlobalId, 0, L.global[0] - 1, "gx");
    y = lb.special(SpecialKind::GlobalId, 1, L.global[1] - 1, "gy");
    z = lb.special(SpecialKind::GlobalId, 2, L.global[2] - 1, "gz");
  }
  std::vector<Lane> lanes;
  std::vector<Mask> guards;
  for (int64_t i = 0; i < s.tileM; ++i)
    for (int64_t j = 0; j < s.tileN; ++j) {
      Idx n = idx::addc(idx::mul(x, s.tileN), j), m = idx::addc(idx::mul(y, s.tileM), i);
      Idx tm, tn;
      if (lb.tile) {
        tm = tilePosition(ly, i, s.tileM, s.wgM, s.vec), tn = tilePosition(lx, j, s.tileN, s.wgN, s.vec);
        m = idx::add(tile.m0, tm), n = idx::add(tile.n0, tn);
      }
      Mask g;
      if (clampN) g.require(n, 0, N), n = idx::min(n, idx::cst(N - 1));
      if (clampM) g.require(m, 0, M), m = idx::min(m, idx::cst(M - 1));
      Lane lane{outputIndex(S, z, m, n), {}, tm, tn, nullptr};
      lanes.push_back(std::move(lane));
      guards.push_back(g);
    }
  emitStores(lb, k, lk, stores, lanes, guards, paramPositions(k));
}

// The element of reduce R that output element `out` reads: its index carried down through the
// movement ops between the reduce and the stores (checkSchedule made sure there is one).
Lane reduceLane(const Kernel& k, const std::vector<int32_t>& stores, const Lane& out, int32_t R) {
  std::vector<int32_t> values;
  for (int32_t st : stores) values.push_back(k.at(st).src[1]);
  const RowPlan p = rowReduces(k, values, out.idx, {});
  for (const RowReduce& r : p.reduces)
    if (r.reduce == R) return {r.idx, r.mask, nullptr, nullptr, nullptr};
  unsupported("cooperative reduction: " + (p.why.empty() ? "the stores do not read the reduce" : p.why));
}

// Cooperative reduction of the kernel's only output-level reduce: a tree in local memory over
// `localReduce` items and/or partials over `groupSplit` work-groups reduced by a second launch.
void cooperativeLaunches(const Kernel& k, LoweredKernel& lk, const Schedule& s, const std::vector<int32_t>& stores,
                         int32_t R) {
  const Shape S = k.at(stores[0]).shape;
  const int64_t O = numel(S);
  if (O == 0) return;
  const KOp& red = k.at(R);
  const DType at = accDType(red.dtype);
  const int64_t K = k.at(red.src[0]).shape.back();
  const int64_t Lr = s.localReduce, G = s.groupSplit;
  const BinaryOp comb = combinerOf(red.reduceOp());
  const auto pos = paramPositions(k);
  const int32_t temp = G > 1 ? static_cast<int32_t>(lk.temps.size()) : -1;
  if (G > 1) lk.temps.push_back({at, O * G});

  lk.launches.emplace_back();
  LoweredLaunch& L1 = lk.launches.back();
  L1.name = "k" + std::to_string(lk.launches.size() - 1);
  L1.global[0] = Lr, L1.global[1] = G, L1.global[2] = O;
  L1.local[0] = Lr, L1.local[1] = 1, L1.local[2] = 1;
  {
    LaunchBuilder lb(k, lk, L1);
    lb.unroll = s.unroll;
    lb.splitAcc = s.splitAcc;
    const Idx t = lb.special(SpecialKind::LocalId, 0, Lr - 1, "tid");
    const Idx g = lb.special(SpecialKind::GroupId, 1, G - 1, "grp");
    const Idx o = lb.special(SpecialKind::GroupId, 2, O - 1, "o");
    Lane out{unflatten(o, S), {}, nullptr, nullptr, nullptr};
    const Lane red = reduceLane(k, stores, out, R);
    const int64_t chunk = ceilDiv(K, G);
    const Idx lo = idx::mul(g, chunk);
    const Idx hi = G > 1 ? idx::min(idx::addc(lo, chunk), idx::cst(K)) : idx::cst(K);
    const int64_t u = std::min<int64_t>(s.unroll, std::max<int64_t>(1, chunk / Lr));
    const int32_t acc = lb.reduceLoop(R, {red}, lo, hi, t, Lr, u, s.splitAcc && u > 1, 0)[0];
    LArg total = LArg::ofVar(acc);
    Mask first;
    first.require(t, 0, 1);
    if (Lr > 1) {
      L1.locals.push_back({at, Lr});
      lb.localTree(at, comb, t, Lr, 0, total);
    }
    LStmt cond;
    cond.kind = LStmtKind::If;
    cond.mask = first;
    LStmt& placed = lb.emit(std::move(cond));
    lb.pushBlock(&placed.body);
    if (Lr > 1) {
      const int32_t v = lb.newVar("v", at);
      LStmt la;
      la.kind = LStmtKind::Load, la.dst = v, la.buf = {BufRef::Space::Local, 0}, la.index = idx::cst(0);
      lb.emit(std::move(la));
      total = LArg::ofVar(v);
    }
    if (G > 1) {
      LStmt st;
      st.kind = LStmtKind::Store, st.buf = {BufRef::Space::Temp, temp};
      st.index = idx::add(idx::mul(o, G), g), st.args = {total};
      lb.emit(std::move(st));
    } else {
      lb.preset(R, red, lb.finishReduce(R, total.var));
      emitStores(lb, k, lk, stores, {out}, {Mask{}}, pos);
    }
    lb.popBlock();
  }
  if (G == 1) return;

  lk.launches.emplace_back();
  LoweredLaunch& L2 = lk.launches.back();
  L2.name = "k" + std::to_string(lk.launches.size() - 1);
  L2.global[0] = O;
  LaunchBuilder lb(k, lk, L2);
  const Idx o = lb.special(SpecialKind::GlobalId, 0, O - 1, "o");
  Lane out{unflatten(o, S), {}, nullptr, nullptr, nullptr};
  const int32_t acc = lb.newVar("acc", at);
  LStmt init;
  init.kind = LStmtKind::Compute, init.dst = acc, init.opKind = LOpKind::Copy;
  init.args = {LArg::ofConst(identityOf(red.reduceOp(), at))};
  lb.emit(std::move(init));
  const int32_t gv = lb.newVar("r", DType::I64, true);
  LStmt f;
  f.kind = LStmtKind::For, f.dst = gv, f.begin = idx::cst(0), f.end = idx::cst(G);
  LStmt& placed = lb.emit(std::move(f));
  lb.pushBlock(&placed.body);
  const int32_t pv = lb.newVar("v", at);
  LStmt ld;
  ld.kind = LStmtKind::Load, ld.dst = pv, ld.buf = {BufRef::Space::Temp, temp};
  ld.index = idx::add(idx::mul(o, G), idx::var(gv, L2.vars[gv].name, 0, G - 1));
  lb.emit(std::move(ld));
  lb.assign(acc, comb, LArg::ofVar(acc), LArg::ofVar(pv));
  lb.popBlock();
  lb.preset(R, reduceLane(k, stores, out, R), lb.finishReduce(R, acc));
  emitStores(lb, k, lk, stores, {out}, {Mask{}}, pos);
}

// Combines each item's partial of row reduce `rr` over the row group (L items, through local
// memory) and presets the reduce to the total every item reads back.
void presetRowReduce(LaunchBuilder& lb, LoweredLaunch& RL, const Kernel& k, const RowReduce& rr, const Idx& t,
                     int64_t L, int32_t acc) {
  const KOp& R = k.at(rr.reduce);
  const DType at = accDType(R.dtype);
  LArg total = LArg::ofVar(acc);
  if (L > 1) {
    const auto local = static_cast<int32_t>(RL.locals.size());
    RL.locals.push_back({at, L});
    lb.localTree(at, combinerOf(R.reduceOp()), t, L, local, total);
    const int32_t back = lb.newVar("v", at);
    LStmt la;
    la.kind = LStmtKind::Load, la.dst = back, la.buf = {BufRef::Space::Local, local}, la.index = idx::cst(0);
    lb.emit(std::move(la));
    total = LArg::ofVar(back);
  }
  lb.preset(rr.reduce, {rr.idx, rr.mask, nullptr, nullptr, nullptr}, lb.finishReduce(rr.reduce, total.var));
}

// The launch of a row schedule: one work-group of L items per output row (axis 1 the row).
struct RowGrid {
  Shape S;
  int64_t N = 1, M = 1, rows = 1;
};
RowGrid rowGrid(const Kernel& k, const std::vector<int32_t>& stores) {
  RowGrid r;
  r.S = k.at(stores[0]).shape;
  const Shape G = gridShape(r.S);
  r.N = G.size() >= 1 ? G[G.size() - 1] : 1;
  r.M = G.size() >= 2 ? G[G.size() - 2] : 1;
  r.rows = numel(r.S) / r.N;
  return r;
}
LoweredLaunch& rowGroupLaunch(LoweredKernel& lk, int64_t L, int64_t rows) {
  lk.launches.emplace_back();
  LoweredLaunch& RL = lk.launches.back();
  RL.name = "k" + std::to_string(lk.launches.size() - 1);
  RL.global[0] = L, RL.global[1] = rows;
  RL.local[0] = L, RL.local[1] = 1, RL.local[2] = 1;
  return RL;
}

// A row kernel: one work-group of L items per output row. Item t outputs, and reduces, the runs
// of `vec` elements starting at (t + L*j)*vec; each row reduce is combined over the group in local
// memory and every item reads the total back, so the elementwise work after it finds the row's
// values (and the loads) already in registers.
void rowLaunch(const Kernel& k, LoweredKernel& lk, const Schedule& s, const std::vector<int32_t>& stores) {
  if (numel(k.at(stores[0]).shape) == 0) return;
  const RowGrid rg = rowGrid(k, stores);
  const int64_t L = s.rowItems, v = s.vec;
  LoweredLaunch& RL = rowGroupLaunch(lk, L, rg.rows);
  LaunchBuilder lb(k, lk, RL);
  const Idx t = lb.special(SpecialKind::LocalId, 0, L - 1, "tid");
  const Idx row = lb.special(SpecialKind::GroupId, 1, rg.rows - 1, "row");
  const Idx b = idx::div(row, rg.M), m = idx::mod(row, rg.M);
  auto runs = [&](int64_t len) {  // this item's elements of a row of `len`
    std::vector<Idx> e;
    for (int64_t j = 0; j < len / (L * v); ++j)
      for (int64_t c = 0; c < v; ++c) e.push_back(idx::addc(idx::mul(idx::addc(t, L * j), v), c));
    return e;
  };
  std::vector<Lane> lanes;
  for (const Idx& n : runs(rg.N)) lanes.push_back({outputIndex(rg.S, b, m, n), {}, nullptr, nullptr, nullptr});
  std::vector<int32_t> values;
  for (int32_t st : stores) values.push_back(k.at(st).src[1]);
  const RowPlan plan = rowReduces(k, values, lanes[0].idx, {t->var});
  if (!plan.why.empty()) unsupported("row schedule: " + plan.why);
  for (const RowReduce& rr : plan.reduces) {
    const KOp& R = k.at(rr.reduce);
    const BinaryOp comb = combinerOf(R.reduceOp());
    std::vector<Lane> inner;
    for (const Idx& e : runs(k.at(R.src[0]).shape.back())) {
      Lane in{rr.idx, rr.mask, nullptr, nullptr, nullptr};
      in.idx.push_back(e);
      inner.push_back(std::move(in));
    }
    const std::vector<LArg> vals = lb.compute(R.src[0], inner, 1);
    const int32_t acc = lb.newAccumulator(identityOf(R.reduceOp(), accDType(R.dtype)));
    for (const LArg& x : vals) lb.assign(acc, comb, LArg::ofVar(acc), x);
    presetRowReduce(lb, RL, k, rr, t, L, acc);
  }
  emitStores(lb, k, lk, stores, lanes, std::vector<Mask>(lanes.size()), paramPositions(k));
}

// A row loop: one work-group of L items per output row, item t walking the row in iterations of
// U runs of `vec` elements (runs t, t + L, ... t + L*(U-1) of each iteration's L*U). Each row
// reduce is a loop with an accumulator per lane (vector accumulators in the emitted code), the
// lanes combined pairwise and then over the group; a last loop computes the outputs with the
// totals at hand, reading the row again (from cache). Nothing is held per element, so any row
// length fits, and a CPU gets loops of vector statements instead of a work-group of items.
void rowLoopLaunch(const Kernel& k, LoweredKernel& lk, const Schedule& s, const std::vector<int32_t>& stores) {
  if (numel(k.at(stores[0]).shape) == 0) return;
  const RowGrid rg = rowGrid(k, stores);
  const int64_t L = s.rowItems, v = s.vec, U = s.unroll, block = L * v * U;
  LoweredLaunch& RL = rowGroupLaunch(lk, L, rg.rows);
  LaunchBuilder lb(k, lk, RL);
  const Idx t = lb.special(SpecialKind::LocalId, 0, L - 1, "tid");
  const Idx row = lb.special(SpecialKind::GroupId, 1, rg.rows - 1, "row");
  const Idx b = idx::div(row, rg.M), m = idx::mod(row, rg.M);
  auto lanesAt = [&](const Idx& j0) {  // this item's elements of the iteration starting at j0
    std::vector<Idx> e;
    for (int64_t u = 0; u < U; ++u)
      for (int64_t c = 0; c < v; ++c) e.push_back(idx::add(j0, idx::addc(idx::mul(t, v), L * u * v + c)));
    return e;
  };
  const int32_t nv = lb.newVar("n", DType::I64, true);  // the output loop's variable
  std::vector<Lane> lanes;
  for (const Idx& n : lanesAt(idx::var(nv, RL.vars[nv].name, 0, rg.N - block)))
    lanes.push_back({outputIndex(rg.S, b, m, n), {}, nullptr, nullptr, nullptr});
  std::vector<int32_t> values;
  for (int32_t st : stores) values.push_back(k.at(st).src[1]);
  const RowPlan plan = rowReduces(k, values, lanes[0].idx, {t->var, nv});
  if (!plan.why.empty()) unsupported("row schedule: " + plan.why);
  for (const RowReduce& rr : plan.reduces) {
    const KOp& R = k.at(rr.reduce);
    const BinaryOp comb = combinerOf(R.reduceOp());
    std::vector<int32_t> acc;
    for (int64_t i = 0; i < U * v; ++i) acc.push_back(lb.newAccumulator(identityOf(R.reduceOp(), accDType(R.dtype))));
    const Idx j0 = lb.openFor(lb.newVar("r", DType::I64, true), k.at(R.src[0]).shape.back(), block);
    std::vector<Lane> inner;
    for (const Idx& e : lanesAt(j0)) {
      Lane in{rr.idx, rr.mask, nullptr, nullptr, nullptr};
      in.idx.push_back(e);
      inner.push_back(std::move(in));
    }
    const std::vector<LArg> vals = lb.compute(R.src[0], inner, 1);
    for (std::size_t i = 0; i < acc.size(); ++i) lb.assign(acc[i], comb, LArg::ofVar(acc[i]), vals[i]);
    lb.popBlock();
    for (std::size_t w = 1; w < acc.size(); w *= 2)
      for (std::size_t i = 0; i + w < acc.size(); i += 2 * w) lb.assign(acc[i], comb, LArg::ofVar(acc[i]), LArg::ofVar(acc[i + w]));
    presetRowReduce(lb, RL, k, rr, t, L, acc[0]);
  }
  lb.openFor(nv, rg.N, block);
  emitStores(lb, k, lk, stores, lanes, std::vector<Mask>(lanes.size()), paramPositions(k));
  lb.popBlock();
}

}  // namespace

LoweredKernel lowerKernel(const Kernel& k, const Schedule& s, const DeviceLimits& limits) {
  if (std::string e = verifyKernel(k); !e.empty()) throw Error(ErrorCode::Invariant, "lowering: invalid kernel: " + e);
  if (std::string why = checkSchedule(k, s, limits); !why.empty())
    unsupported("schedule " + s.str() + " does not apply: " + why);
  LoweredKernel lk;
  lk.name = k.name();
  lk.schedule = s;
  for (int32_t p : k.params()) {
    const KOp& o = k.at(p);
    lk.params.push_back({o.paramKind(), o.dtype, o.paramKind() == ParamKind::Scalar ? 1 : numel(o.shape)});
    if (numel(o.shape) > std::numeric_limits<int32_t>::max()) lk.wideIndex = true;
  }
  for (const KOp& o : k.ops)
    if (o.dtype == DType::F64) lk.needsFp64 = true;
  const KernelGridInfo g = kernelGridInfo(k);
  const Shape primary = k.at(g.primaryStore).shape;
  // Stores grouped by shape: the primary group takes the schedule, the others a default grid.
  std::vector<std::pair<Shape, std::vector<int32_t>>> groups;
  for (int32_t st : k.storeOps()) {
    const Shape& sh = k.at(st).shape;
    auto it = std::find_if(groups.begin(), groups.end(), [&](auto& gr) { return gr.first == sh; });
    if (it == groups.end()) groups.push_back({sh, {st}});
    else it->second.push_back(st);
  }
  for (auto& [shape, stores] : groups) {
    if (shape != primary) {
      gridLaunch(k, lk, Schedule{}, stores);
      continue;
    }
    if (s.rowItems > 0 && s.rowLoop) rowLoopLaunch(k, lk, s, stores);
    else if (s.rowItems > 0) rowLaunch(k, lk, s, stores);
    else if (s.localReduce > 1 || s.groupSplit > 1) cooperativeLaunches(k, lk, s, stores, g.topReduce);
    else gridLaunch(k, lk, s, stores);
  }
  if (std::string e = verifyLowered(lk); !e.empty())
    throw Error(ErrorCode::Invariant, "lowering produced invalid IR (" + s.str() + "): " + e);
  return lk;
}

}  // namespace ks
