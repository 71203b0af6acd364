// Schedules: validity rules and the candidate lists the autotuner measures.
#include "engine/kernel/schedule.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/core/json_read.h"

#include "engine/kernel/index_map.h"
#include "engine/kernel/kernel.h"
#include "engine/kernel/local_tiling.h"
#include "engine/kernel/row_plan.h"

namespace ks {

std::string Schedule::str() const {
  std::string s;
  auto add = [&s](const std::string& part) { s += (s.empty() ? "" : " ") + part; };
  if (wgN != 0) add("wg=" + std::to_string(wgN) + "x" + std::to_string(wgM));
  if (tileM != 1 || tileN != 1) add("tile=" + std::to_string(tileM) + "x" + std::to_string(tileN));
  if (vec != 1) add("vec=" + std::to_string(vec));
  if (unroll != 1) add("unroll=" + std::to_string(unroll) + (splitAcc ? "s" : ""));
  if (localReduce != 1) add("lred=" + std::to_string(localReduce));
  if (groupSplit != 1) add("split=" + std::to_string(groupSplit));
  if (localTileK != 0) add("ltile=" + std::to_string(localTileK));
  if (rowItems != 0) add((rowLoop ? "rowloop=" : "row=") + std::to_string(rowItems));
  return s.empty() ? "default" : s;
}

nlohmann::json Schedule::toJson() const {
  nlohmann::json j = {{"wg_n", wgN},       {"wg_m", wgM},          {"tile_m", tileM},
                      {"tile_n", tileN},   {"vec", vec},           {"unroll", unroll},
                      {"split_acc", splitAcc}, {"local_reduce", localReduce}, {"group_split", groupSplit},
                      {"local_tile_k", localTileK}, {"row_items", rowItems}};
  if (rowLoop) j["row_loop"] = true;  // only when set: every other schedule keeps the text it had
  return j;
}

// Every key is optional (files of earlier versions lack the later ones); a present key must hold
// a value of its type, named by its place when it does not.
Schedule Schedule::fromJson(const nlohmann::json& j) {
  if (!j.is_object()) throw Error(ErrorCode::Parse, "expected a schedule (an object of its settings), found " + std::string(j.type_name()));
  Schedule s;
  s.wgN = jsonGet<int64_t>(j, "wg_n", 0);
  s.wgM = jsonGet<int64_t>(j, "wg_m", 1);
  s.tileM = jsonGet<int64_t>(j, "tile_m", 1);
  s.tileN = jsonGet<int64_t>(j, "tile_n", 1);
  s.vec = jsonGet<int64_t>(j, "vec", 1);
  s.unroll = jsonGet<int64_t>(j, "unroll", 1);
  s.splitAcc = jsonGet<bool>(j, "split_acc", false);
  s.localReduce = jsonGet<int64_t>(j, "local_reduce", 1);
  s.groupSplit = jsonGet<int64_t>(j, "group_split", 1);
  s.localTileK = jsonGet<int64_t>(j, "local_tile_k", 0);
  s.rowItems = jsonGet<int64_t>(j, "row_items", 0);
  s.rowLoop = jsonGet<bool>(j, "row_loop", false);
  return s;
}

namespace {
// The start of a text for an error message, in printable ASCII (a cut could split a UTF-8
// sequence, and messages end up in JSON).
std::string quoted(const std::string& text) {
  std::string r = "'";
  for (std::size_t i = 0; i < text.size() && i < 60; ++i) r += text[i] >= 0x20 && text[i] < 0x7f ? text[i] : '?';
  return r + (text.size() > 60 ? "...'" : "'");
}
}  // namespace

Schedule Schedule::fromJsonText(const std::string& text) {
  nlohmann::json j;
  try {
    j = parseJson(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::Parse, "expected a schedule as JSON text ({\"wg_n\": 0, ...}), found " + quoted(text) + " (" + jsonErrorText(e.what()) + ")");
  }
  try {
    return fromJson(j);
  } catch (const nlohmann::json::exception& e) {  // a bool read from a non-bool
    throw Error(ErrorCode::Parse, jsonErrorText(e.what()));
  }
}

namespace {
// Depth first from `op`, operands in order (an explicit stack: a chain is as deep as it is long).
void collectTopReduces(const Kernel& k, int32_t op, std::vector<int32_t>& out, std::vector<bool>& seen) {
  std::vector<int32_t> stack{op};
  while (!stack.empty()) {
    const int32_t i = stack.back();
    stack.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    const KOp& o = k.at(i);
    if (o.kind == KOpKind::Reduce) {
      if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
      continue;  // reduces nested inside are computed by this one's loop
    }
    for (auto s = o.src.rbegin(); s != o.src.rend(); ++s) stack.push_back(*s);
  }
}
bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Row lanes are exact: the items of a row group partition the row (and every row reduce's
// reduced axis) into runs of `vec`, at most 64 elements per item, so every item reaches every
// barrier and no lane needs a guard.
std::string rowFit(const Kernel& k, const RowPlan& plan, const KernelGridInfo& g, int64_t L, int64_t vec,
                   const DeviceLimits& limits) {
  if (!isPow2(L)) return "row items must be a power of two";
  if (L > limits.maxWorkGroupSize) return "row group larger than the device allows";
  if (!isPow2(vec) || vec > 16) return "vector width must be 1, 2, 4, 8 or 16";
  if (!plan.why.empty()) return "row schedule: " + plan.why;
  if (g.N % (L * vec) != 0) return "row schedule: the row does not split evenly into the items' runs";
  if (g.N / L > 64) return "row schedule: more than 64 elements per item";
  for (const RowReduce& r : plan.reduces) {
    const int64_t K = k.at(k.at(r.reduce).src[0]).shape.back();
    if (K % (L * vec) != 0 || K / L > 64) return "row schedule: a row reduce's length does not split over the items";
  }
  if (static_cast<int64_t>(plan.reduces.size()) * L * 8 > limits.localMemBytes) return "row schedule: not enough local memory";
  return {};
}

// A row loop: each item walks the row in iterations of `U` runs of `vec` (the runs of the items
// interleaved), so every item reaches every barrier without guards when the iterations divide the
// row and every row reduce's length. The row is read again from memory (a cache) after the reduces.
std::string rowLoopFit(const Kernel& k, const RowPlan& plan, const KernelGridInfo& g, int64_t L, int64_t vec,
                       int64_t U, const DeviceLimits& limits) {
  if (!isPow2(L)) return "row items must be a power of two";
  if (L > limits.maxWorkGroupSize) return "row group larger than the device allows";
  if (!isPow2(vec) || vec > 16) return "vector width must be 1, 2, 4, 8 or 16";
  if (U < 1 || U > 8) return "a row loop takes 1 to 8 runs per iteration";
  if (!plan.why.empty()) return "row schedule: " + plan.why;
  const int64_t block = L * vec * U;
  if (g.N % block != 0) return "row loop: the row does not split evenly into the items' iterations";
  for (const RowReduce& r : plan.reduces)
    if (k.at(k.at(r.reduce).src[0]).shape.back() % block != 0)
      return "row loop: a row reduce's length does not split into the items' iterations";
  if (L > 1 && static_cast<int64_t>(plan.reduces.size()) * L * 8 > limits.localMemBytes)
    return "row schedule: not enough local memory";
  return {};
}

std::string checkRowSchedule(const Kernel& k, const Schedule& s, const DeviceLimits& limits, const KernelGridInfo& g) {
  Schedule plain;
  plain.rowItems = s.rowItems, plain.vec = s.vec, plain.rowLoop = s.rowLoop;
  if (s.rowLoop) plain.unroll = s.unroll;
  if (!(s == plain)) return s.rowLoop ? "a row loop sets its own grid (only row, vec and unroll)" : "a row schedule sets its own grid (only row and vec)";
  const RowPlan plan = planRows(k);
  return s.rowLoop ? rowLoopFit(k, plan, g, s.rowItems, s.vec, s.unroll, limits) : rowFit(k, plan, g, s.rowItems, s.vec, limits);
}

// Row schedules that fit (the kernel walked once): groups from 1 item up to `maxItems`, runs of
// `vecs`; with `unrolls`, row loops taking that many runs per iteration instead of register rows.
std::vector<Schedule> rowCandidates(const Kernel& k, const DeviceLimits& limits, const std::vector<int64_t>& vecs,
                                    int64_t maxItems, const std::vector<int64_t>& unrolls = {}) {
  std::vector<Schedule> out;
  const KernelGridInfo g = kernelGridInfo(k);
  if (g.primaryStore < 0) return out;
  if (!limits.fp64)
    for (const KOp& o : k.ops)
      if (o.dtype == DType::F64) return out;
  const RowPlan plan = planRows(k);
  if (!plan.why.empty()) return out;
  for (int64_t L = 1; L <= std::min(maxItems, limits.maxWorkGroupSize); L *= 2)
    for (int64_t v : vecs) {
      Schedule s;
      s.rowItems = L, s.vec = v;
      if (unrolls.empty() && rowFit(k, plan, g, L, v, limits).empty()) out.push_back(s);
      for (int64_t u : unrolls)
        if (rowLoopFit(k, plan, g, L, v, u, limits).empty()) {
          s.rowLoop = true, s.unroll = u;
          out.push_back(s);
        }
    }
  return out;
}

}  // namespace

std::optional<Schedule> rowSchedule(const Kernel& k, const DeviceLimits& limits) {
  // A GPU wants a wide group of 4-wide runs; a CPU driver a narrow one (PoCL compiles wide barrier
  // trees for minutes) of long runs. The first that fits, the widest vector first.
  const std::vector<int64_t> vecs = limits.gpu ? std::vector<int64_t>{4, 2, 1} : std::vector<int64_t>{8, 4, 2, 1};
  const std::vector<Schedule> c = rowCandidates(k, limits, vecs, limits.gpu ? 1024 : 64);
  if (c.empty()) return std::nullopt;
  if (!limits.gpu) {
    // A CPU runs one item per row best, walking the row in its widest vectors: PoCL vectorizes
    // neither across the items of a group nor the unrolled lanes' math, and its barriers cost.
    const std::vector<Schedule> loops = rowCandidates(k, limits, {16, 8, 4, 2, 1}, 1, {1});
    return loops.empty() ? c.front() : loops.front();
  }
  for (const Schedule& s : c)
    if (s.rowItems >= 128) return s;
  return c.back();
}

KernelGridInfo kernelGridInfo(const Kernel& k) {
  KernelGridInfo g;
  int64_t best = -1;
  for (int32_t s : k.storeOps()) {
    const int64_t n = numel(k.at(s).shape);
    if (n > best) best = n, g.primaryStore = s;
  }
  if (g.primaryStore < 0) return g;
  const Shape& S = k.at(g.primaryStore).shape;
  const Shape G = gridShape(S);
  const std::size_t r = G.size();
  g.N = r >= 1 ? G[r - 1] : 1;
  g.M = r >= 2 ? G[r - 2] : 1;
  g.B = 1;
  for (std::size_t i = 0; i + 2 < r; ++i) g.B *= G[i];
  for (int32_t s : k.storeOps())
    if (k.at(s).shape != S) g.sameShapeStores = false;
  std::vector<int32_t> tops;
  std::vector<bool> seen(k.size(), false);
  for (int32_t s : k.storeOps())
    if (k.at(s).shape == S) collectTopReduces(k, k.at(s).src[1], tops, seen);
  g.topReduceCount = static_cast<int>(tops.size());
  if (tops.size() == 1) {
    g.topReduce = tops[0];
    g.reduceLen = k.at(k.at(tops[0]).src[0]).shape.back();
  }
  return g;
}

namespace {

// Whether a movement op other than a reshape reads a reduce's result (directly or through other ops).
bool hasNonReshapeMoveAfterReduce(const Kernel& k) {
  std::vector<bool> afterReduce(k.size(), false);
  for (std::size_t i = 0; i < k.size(); ++i) {
    const KOp& o = k.ops[i];
    for (int32_t src : o.src) afterReduce[i] = afterReduce[i] || afterReduce[src] || k.at(src).kind == KOpKind::Reduce;
    if (afterReduce[i] && o.kind == KOpKind::Move && o.moveKind() != MoveKind::Reshape) return true;
  }
  return false;
}

}  // namespace

std::string checkSchedule(const Kernel& k, const Schedule& s, const DeviceLimits& limits) {
  const KernelGridInfo g = kernelGridInfo(k);
  if (g.primaryStore < 0) return "kernel has no store";
  if (!limits.fp64)
    for (const KOp& o : k.ops)
      if (o.dtype == DType::F64) return "the device has no fp64";
  for (int64_t v : {s.wgM, s.tileM, s.tileN, s.vec, s.unroll, s.localReduce, s.groupSplit})
    if (v < 1) return "schedule values must be positive";
  if (s.wgN < 0 || s.rowItems < 0) return "schedule values must be positive";
  if (s.rowItems > 0) return checkRowSchedule(k, s, limits, g);
  if (s.rowLoop) return "a row loop needs row items";
  if (s.wgN == 0 && s.wgM != 1) return "wgM needs an explicit wgN";
  // Each factor first: a schedule read from a file can hold any value, and their products must not overflow.
  if (s.wgN > limits.maxWorkGroupSize || s.wgM > limits.maxWorkGroupSize) return "work-group larger than the device allows";
  const int64_t wgSize = std::max<int64_t>(s.wgN, 1) * s.wgM;
  if (wgSize > limits.maxWorkGroupSize) return "work-group larger than the device allows";
  if (s.tileN > 16 || s.tileM > 16 || s.tileN * s.tileM > 64) return "tile larger than 64 registers";
  if (s.tileN > g.N) return "tileN larger than the N axis";
  if (s.tileM > g.M) return "tileM larger than the M axis";
  if (s.wgM > 1 && g.M == 1) return "wgM > 1 on an output without an M axis";
  if (!isPow2(s.vec) || s.vec > 16) return "vector width must be 1, 2, 4, 8 or 16";
  const bool hasReduce = g.topReduceCount > 0;
  if (s.unroll > 1 && !hasReduce) return "unroll needs a reduce";
  if (s.splitAcc && s.unroll == 1) return "split accumulators need unroll > 1";
  if (s.unroll > 32) return "unroll larger than 32";
  if (s.vec > 1) {
    const bool onTile = s.tileN % s.vec == 0 && g.N % s.tileN == 0;
    const bool onReduce = hasReduce && s.unroll % s.vec == 0;
    if (!onTile && !onReduce) return "vector width divides neither an exact N tile nor the unroll";
  }
  const bool cooperative = s.localReduce > 1 || s.groupSplit > 1;
  if (cooperative) {
    if (g.topReduce < 0) return "cooperative reduction needs exactly one reduce at output level";
    // Movement ops between the reduce and its stores: the lowering carries each output element's
    // index down to the reduce's element (reduceLane), and the interpreter and PoCL agree, but the
    // H200's driver crashed on a reduce -> permute -> pad kernel under one of these schedules:
    // refused until that is understood. A reshape moves no element, only renumbers them (a
    // convolution's reduced [n, 1, out, h * w] read as [n, out, h, w]), and is allowed.
    if (hasNonReshapeMoveAfterReduce(k)) return "cooperative reduction with a movement op after the reduce is not supported";
    if (s.tileM != 1 || s.tileN != 1 || s.wgN != 0) return "cooperative reduction sets its own grid (no tile/wg)";
    if (!isPow2(s.localReduce)) return "localReduce must be a power of two";
    if (s.localReduce > limits.maxWorkGroupSize) return "localReduce larger than the work-group limit";
    if (s.localReduce * 16 > limits.localMemBytes) return "not enough local memory";
    if (s.groupSplit > g.reduceLen / s.localReduce) return "more cooperating items than reduced elements";
    int64_t partials = 0;
    if (__builtin_mul_overflow(g.B * g.M * g.N, s.groupSplit, &partials) || partials > (int64_t{1} << 24))
      return "split partials would exceed 16M elements";
  }
  if (s.localTileK != 0) {
    if (cooperative) return "local tiling and a cooperative reduction exclude each other";
    if (!isPow2(s.localTileK)) return "the local tile's K block must be a power of two";
    if (s.localTileK > g.reduceLen) return "local tiling: the K block is longer than the reduced length";
    if (s.wgN == 0) return "local tiling needs an explicit work-group";
    if (s.splitAcc) return "local tiling keeps one accumulator per output";
    const LocalTilePlan plan = planLocalTiles(k);
    if (plan.operands.empty()) return "local tiling: " + plan.why;
    if (g.reduceLen % s.localTileK != 0) return "local tiling: the K block does not divide the reduced length";
    if (s.localTileK % s.unroll != 0) return "local tiling: the unroll does not divide the K block";
    const int64_t BM = s.wgM * s.tileM, BN = s.wgN * s.tileN, items = s.wgN * s.wgM;
    if (g.M % BM != 0 || g.N % BN != 0) return "local tiling: the work-group's tile does not divide the output";
    int64_t bytes = 0;
    for (const StagedOperand& op : plan.operands) {
      const int64_t elems = (op.rows ? BM : BN) * s.localTileK;
      if (elems % items != 0) return "local tiling: a block does not split evenly over the work-group";
      bytes += elems * static_cast<int64_t>(dtypeSize(k.at(op.param).dtype));
    }
    if (bytes > limits.localMemBytes) return "local tiling: not enough local memory";
  }
  return {};
}

std::vector<Schedule> enumerateSchedules(const Kernel& k, const DeviceLimits& limits, TuneLevel level) {
  std::vector<Schedule> cands{Schedule{}};
  if (const std::optional<Schedule> row = rowSchedule(k, limits)) {
    // A row kernel's default recomputes every row reduce per element: the row schedules only.
    cands = {*row};
    if (level == TuneLevel::None) return cands;
    const bool full = level == TuneLevel::Full;
    auto add = [&cands](const std::vector<Schedule>& more) {
      for (const Schedule& s : more)
        if (std::find(cands.begin(), cands.end(), s) == cands.end()) cands.push_back(s);
    };
    if (!limits.gpu)  // CPU: row loops first (quick: one item per row, wide vectors)
      add(rowCandidates(k, limits, full ? std::vector<int64_t>{4, 8, 16} : std::vector<int64_t>{16, 8}, full ? 4 : 1,
                        full ? std::vector<int64_t>{1, 2, 4} : std::vector<int64_t>{1, 2}));
    add(rowCandidates(k, limits, full ? std::vector<int64_t>{1, 2, 4, 8} : std::vector<int64_t>{4}, limits.gpu ? 1024 : 64));
    return cands;
  }
  if (level == TuneLevel::None) return cands;
  const KernelGridInfo g = kernelGridInfo(k);
  const bool hasReduce = g.topReduceCount > 0;
  const bool matmulLike = hasReduce && g.M > 1 && g.N > 1;
  const int64_t outputs = g.B * g.M * g.N;
  auto push = [&](Schedule s) {
    if (std::find(cands.begin(), cands.end(), s) == cands.end() && checkSchedule(k, s, limits).empty())
      cands.push_back(s);
  };
  auto mk = [](int64_t wgN, int64_t wgM, int64_t tm, int64_t tn, int64_t vec, int64_t unroll, bool split = false) {
    Schedule s;
    s.wgN = wgN, s.wgM = wgM, s.tileM = tm, s.tileN = tn, s.vec = vec, s.unroll = unroll, s.splitAcc = split;
    return s;
  };
  const bool full = level == TuneLevel::Full;
  if (!hasReduce) {
    for (int64_t tn : {1, 4, 8, 16})
      for (int64_t wg : {0, 16, 64})
        for (int64_t vec : {1, 4, 8, 16}) {
          if (!full && !(wg == 0 && (tn == vec) && tn != 16)) continue;
          push(mk(wg, 1, 1, tn, vec, 1));
        }
    if (full)
      for (int64_t tm : {2, 4}) push(mk(0, 1, tm, 4, 4, 1));
    return cands;
  }
  // Reductions with few outputs: cooperative schedules (a split over work-groups, local memory).
  if (g.topReduce >= 0 && g.reduceLen >= 64 && outputs <= 65536) {  // many outputs: already parallel
    // Large splits and groups are for GPUs (an H200 needs ~10^5 items in flight); a CPU
    // device does best with a few long contiguous chunks per core.
    std::vector<int64_t> splits{4, 16, 64, 256}, locals{1, 8, 64};
    if (limits.gpu) splits.push_back(1024), splits.push_back(4096), locals.push_back(256);
    for (int64_t gs : splits)
      for (int64_t lr : locals)
        for (int64_t un : {1, 8, 16}) {
          if (!full && !(lr == 1 && un == 8) && !(gs == 4 && lr == 64 && un == 1)) continue;
          if (outputs * gs > 4096 && gs > 1 && !full) continue;
          Schedule s;
          s.groupSplit = gs, s.localReduce = lr, s.unroll = un, s.vec = un == 1 ? 1 : 8, s.splitAcc = un > 1;
          push(s);
        }
    for (int64_t lr : {16, 64}) {
      Schedule s;
      s.localReduce = lr;
      push(s);
    }
  }
  for (int64_t un : {4, 8, 16}) push(mk(0, 1, 1, 1, un == 4 ? 4 : 8, un, true));
  if (matmulLike) {
    const int64_t tms[] = {1, 2, 4, 8}, tns[] = {4, 8, 16};
    for (int64_t tm : tms)
      for (int64_t tn : tns)
        for (int64_t un : {1, 4})
          for (int64_t wg : {0, 8}) {
            if (!full && !((tm == 4 && tn == 8 && wg == 0) || (tm == 8 && tn == 8 && wg == 0) ||
                           (tm == 4 && tn == 4 && wg == 0 && un == 1)))
              continue;
            push(mk(wg, wg == 0 ? 1 : 2, tm, tn, std::min<int64_t>(tn, 8), un));
          }
    // Items along N with row tiles: neighbouring items read neighbouring elements of the (k, n)
    // operand and share the (m, k) one, the form a CPU driver vectorizes across work-items.
    for (int64_t wg : {16, 32})
      for (int64_t tm : {4, 8, 16})
        for (int64_t un : {1, 4}) {
          if (!full && !(wg == 16 && tm == 8 && un == 4)) continue;
          push(mk(wg, 1, tm, 1, 1, un));
        }
    // Local tiling: a work-group shares [BM x Kt] and [Kt x BN] blocks of the operands. The first
    // ones are GPU-sized: 8x8 register blocks over 128x128 (many outputs) or 64x64 blocks (enough
    // work-groups for every unit of a GPU on a 1024^2 output).
    struct Tiled { int64_t wgN, wgM, tm, tn, kt, un; };
    const Tiled tiled[] = {{16, 16, 8, 8, 16, 4}, {8, 8, 8, 8, 16, 4},  {16, 16, 4, 4, 16, 4}, {16, 8, 8, 8, 16, 4},
                           {8, 8, 4, 8, 16, 4},   {16, 16, 8, 8, 32, 4}, {16, 8, 4, 8, 16, 4},  {8, 8, 8, 8, 16, 1},
                           {16, 16, 2, 4, 32, 4}, {8, 16, 4, 4, 8, 1},   {8, 8, 4, 8, 32, 4},   {16, 16, 4, 4, 8, 1}};
    for (std::size_t i = 0; i < std::size(tiled); ++i) {
      const bool quickPick = limits.gpu ? i < 3 : i == 2 || i == 4;  // a CPU: the 64- and 32-row blocks
      if (!full && !quickPick) continue;
      const Tiled& t = tiled[i];
      Schedule s = mk(t.wgN, t.wgM, t.tm, t.tn, std::min<int64_t>(t.tn, 8), t.un);
      s.localTileK = t.kt;
      push(s);
    }
  } else if (full) {
    for (int64_t tn : {4, 8}) push(mk(0, 1, 1, tn, tn, 1));
  }
  return cands;
}

}  // namespace ks
