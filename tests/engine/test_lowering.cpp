// Lowering under every schedule option, run in the lowered-IR interpreter and compared with the
// unlowered interpreter (two independent implementations of the kernel semantics).
#include <QtTest>

#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/codegen/opencl_emitter.h"
#include "engine/core/error.h"
#include "engine/kernel/index_map.h"
#include "engine/kernel/interpreter.h"
#include "engine/kernel/local_tiling.h"
#include "engine/kernel/lowering.h"
#include "lowering_cases.h"

using namespace ks;
using namespace ks::testing;

namespace {
Schedule randomSchedule(std::mt19937_64& rng) {
  auto pick = [&rng](std::initializer_list<int64_t> l) { return *(l.begin() + rng() % l.size()); };
  Schedule s;
  if (rng() % 2) s.wgN = pick({1, 2, 4, 8, 16}), s.wgM = pick({1, 2, 4});
  s.tileM = pick({1, 1, 2, 3, 4});
  s.tileN = pick({1, 1, 2, 4, 8});
  s.unroll = pick({1, 1, 2, 3, 4, 8});
  s.vec = pick({1, 1, s.tileN, s.unroll});
  s.splitAcc = rng() % 2;
  if (rng() % 4 == 0) s.localTileK = pick({2, 4, 8, 16}), s.splitAcc = false;
  if (rng() % 3 == 0) s.localReduce = pick({2, 4, 8, 16}), s.tileM = s.tileN = 1, s.wgN = 0, s.wgM = 1;
  if (rng() % 3 == 0) s.groupSplit = pick({2, 3, 5, 8}), s.tileM = s.tileN = 1, s.wgN = 0, s.wgM = 1;
  return s;
}

// Lowers and runs one schedule; "" when the values agree, "rejected: why" when it does not apply.
std::string runOne(const KernelCase& c, const Schedule& s, uint64_t seed, bool* rejected) {
  *rejected = false;
  const std::string why = checkSchedule(c.kernel, s, DeviceLimits{});
  LoweredKernel lk;
  try {
    lk = lowerKernel(c.kernel, s);
  } catch (const Error& e) {
    if (!why.empty() && e.code() == ErrorCode::Unsupported && e.message().find(why) != std::string::npos) {
      *rejected = true;
      return {};
    }
    return "lowering failed under " + s.str() + ": " + e.what();
  }
  if (!why.empty()) return "schedule " + s.str() + " should have been rejected: " + why;
  std::vector<HostTensor> want = randomBuffers(c.kernel, seed), got = want;
  runKernel(c.kernel, want);
  try {
    runLowered(lk, got);
  } catch (const Error& e) {
    return std::string(e.what()) + "\n" + lk.print();
  }
  const std::string diff = compareBuffers(got, want, c.reduceLen);
  return diff.empty() ? diff : c.name + " under " + s.str() + ": " + diff + "\n" + lk.print();
}
}  // namespace

class TestLowering : public QObject {
  Q_OBJECT
 private slots:
  void indexSimplification() {
    const Idx x = idx::var(0, "x", 0, 99), j = idx::var(1, "j", 0, 3);
    const Idx e = idx::add(idx::mul(x, 4), j);
    QCOMPARE(QString::fromStdString(idx::div(e, 4)->key), QString("x"));
    QCOMPARE(QString::fromStdString(idx::mod(e, 4)->key), QString("j"));
    QCOMPARE(QString::fromStdString(idx::div(idx::addc(idx::mul(x, 8), 3), 4)->key), QString("(2*x)"));
    QCOMPARE(idx::mod(idx::addc(x, 100), 7)->lo, int64_t{0});
    const auto [base, c] = idx::splitConst(idx::addc(e, 5));
    QCOMPARE(c, int64_t{5});
    QCOMPARE(QString::fromStdString(base->key), QString::fromStdString(e->key));
    QCOMPARE(QString::fromStdString(idx::min(x, idx::cst(200))->key), QString("x"));
    Mask m;
    m.require(x, 0, 100);
    QVERIFY(m.empty());
    m.require(idx::addc(x, -1), 0, 100);
    QCOMPARE(int(m.terms.size()), 1);
  }

  // An index whose text doubles each step (its key writes shared subexpressions out) is refused
  // at the bound with an error lowering reports, not grown until memory runs out.
  void indexTextIsBounded() {
    Idx e = idx::var(0, "x", 0, 1 << 20);
    int steps = 0;
    bool refused = false;
    try {
      for (; steps < 40; ++steps) e = idx::add(idx::div(e, 3), idx::mul(idx::mod(e, 5), 7));
    } catch (const Error& err) {
      refused = err.code() == ErrorCode::Unsupported && std::string(err.what()).find("characters long") != std::string::npos;
    }
    QVERIFY(refused);
    QVERIFY2(steps > 10 && steps < 40, qPrintable(QString::number(steps)));
    QVERIFY(e->key.size() <= (std::size_t{1} << 20));
  }

  void unloweredInterpreterHandValues() {
    // [[1,2,3],[4,5,6]] flipped on axis 1, padded with 9 on the left, summed per row.
    Kernel k;
    const int32_t x = k.param(ParamKind::Read, DType::I32, {2, 3}), o = k.param(ParamKind::ReadWrite, DType::I32, {2});
    const int32_t p = k.move(k.move(x, MoveKind::Flip, {1}), MoveKind::Pad, {1, 1, 0}, Scalar::ofInt(DType::I32, 9));
    k.store(o, k.reduce(k.binary(p, k.move(p, MoveKind::Flip, {1}), BinaryOp::Mul), ReduceOp::Sum));
    std::vector<HostTensor> b{HostTensor(DType::I32, {2, 3}), HostTensor(DType::I32, {2})};
    for (int i = 0; i < 6; ++i) b[0].setInt(i, i + 1);
    runKernel(k, b);
    // row 0: [9,3,2,1] * [1,2,3,9] = 9+6+6+9 = 30; row 1: [9,6,5,4]*[4,5,6,9] = 36+30+30+36 = 132
    QCOMPARE(b[1].getInt(0), int64_t{30});
    QCOMPARE(b[1].getInt(1), int64_t{132});
    for (Schedule s : optionSchedules()) {
      std::vector<HostTensor> c{b[0], HostTensor(DType::I32, {2})};
      if (!checkSchedule(k, s, {}).empty()) continue;
      runLowered(lowerKernel(k, s), c);
      QCOMPARE(c[1].getInt(0), int64_t{30});
      QCOMPARE(c[1].getInt(1), int64_t{132});
    }
  }

  void scalarSemantics() {
    auto i32 = [](int64_t v) { return KVal{0, v}; };
    QCOMPARE(evalBinary(BinaryOp::Div, DType::I32, i32(-7), i32(2)).i, int64_t{-3});
    QCOMPARE(evalBinary(BinaryOp::Mod, DType::I32, i32(-7), i32(2)).i, int64_t{1});
    QCOMPARE(evalBinary(BinaryOp::Mod, DType::I32, i32(7), i32(-2)).i, int64_t{-1});
    QCOMPARE(evalBinary(BinaryOp::Div, DType::I32, i32(7), i32(0)).i, int64_t{0});
    QCOMPARE(evalBinary(BinaryOp::Add, DType::I8, i32(127), i32(1)).i, int64_t{-128});
    QCOMPARE(evalBinary(BinaryOp::Pow, DType::I32, i32(3), i32(4)).i, int64_t{81});
    QVERIFY(std::isnan(evalBinary(BinaryOp::Max, DType::F32, KVal{NAN, 0}, KVal{1, 0}).f));
    QCOMPARE(evalUnary(UnaryOp::Round, DType::F32, KVal{2.5, 0}).f, 2.0);
    QCOMPARE(evalUnary(UnaryOp::Sign, DType::F32, KVal{NAN, 0}).f, 0.0);
    QCOMPARE(evalCast(DType::F32, DType::I32, KVal{-3.9, 0}).i, int64_t{-3});
    QCOMPARE(evalCast(DType::F32, DType::U8, KVal{300, 0}).i, int64_t{255});
    QCOMPARE(evalCast(DType::F32, DType::I32, KVal{NAN, 0}).i, int64_t{0});
    QCOMPARE(evalCast(DType::F32, DType::F16, KVal{1.0 + 1.0 / 4096, 0}).f, 1.0);
  }

  void everyOption() {
    std::map<std::string, std::pair<int, int>> share;
    for (const KernelCase& c : loweringCases())
      for (const Schedule& s : optionSchedules()) {
        bool rejected = false;
        const std::string err = runOne(c, s, 7, &rejected);
        QVERIFY2(err.empty(), err.c_str());
        auto& [valid, total] = share[c.name];
        valid += rejected ? 0 : 1;
        ++total;
      }
    for (auto& [name, vt] : share) qInfo("%-22s %2d of %2d option schedules valid", name.c_str(), vt.first, vt.second);
  }

  void enumeratedSchedules() {
    for (const KernelCase& c : loweringCases()) {
      const auto cands = enumerateSchedules(c.kernel, DeviceLimits{}, TuneLevel::Full);
      QVERIFY(!cands.empty());
      // The reference first: the default, or a row kernel's row schedule (its default would
      // recompute each row reduce per element).
      const std::optional<Schedule> row = rowSchedule(c.kernel, DeviceLimits{});
      QVERIFY(cands.front() == row.value_or(Schedule{}));
      QCOMPARE(row.has_value(), c.name.find("_row") != std::string::npos);
      for (const Schedule& s : cands) {
        bool rejected = false;
        const std::string err = runOne(c, s, 11, &rejected);
        QVERIFY2(err.empty(), err.c_str());
        QVERIFY2(!rejected, (c.name + ": enumerated schedule rejected: " + s.str()).c_str());
      }
      const auto quick = enumerateSchedules(c.kernel, DeviceLimits{}, TuneLevel::Quick);
      QVERIFY(quick.size() <= cands.size());
      qInfo("%-22s quick %zu, full %zu schedules", c.name.c_str(), quick.size(), cands.size());
    }
    const KernelCase mm = matmulCase("mm", 64, 64, 64, false);
    QVERIFY(enumerateSchedules(mm.kernel, DeviceLimits{}, TuneLevel::Full).size() >= 16);
    // A convolution's reduce, reshaped to its output axes, gets cooperative schedules (each
    // was run above against the reference).
    for (const KernelCase& c : loweringCases()) {
      if (c.name != "conv_reduce_reshape" && c.name != "im2col_reduce_reshape") continue;
      int cooperative = 0;
      for (TuneLevel level : {TuneLevel::Quick, TuneLevel::Full})
        for (const Schedule& s : enumerateSchedules(c.kernel, DeviceLimits{}, level))
          cooperative += s.localReduce > 1 || s.groupSplit > 1;
      QVERIFY(cooperative >= 2);
    }
  }

  void randomSchedules() {
    std::mt19937_64 rng(1234);
    int valid = 0, total = 0;
    for (const KernelCase& c : loweringCases())
      for (int i = 0; i < 25; ++i) {
        const Schedule s = randomSchedule(rng);
        bool rejected = false;
        const std::string err = runOne(c, s, 100 + i, &rejected);
        QVERIFY2(err.empty(), err.c_str());
        valid += rejected ? 0 : 1;
        ++total;
      }
    qInfo("random schedules: %d of %d valid", valid, total);
    QVERIFY(valid >= 60);  // enough valid random schedules to mean something
  }

  void scheduleJsonRoundTrip() {
    Schedule s;
    s.wgN = 8, s.wgM = 2, s.tileM = 4, s.tileN = 8, s.vec = 8, s.unroll = 4, s.splitAcc = true;
    QVERIFY(Schedule::fromJson(s.toJson()) == s);
    QCOMPARE(QString::fromStdString(s.str()), QString("wg=8x2 tile=4x8 vec=8 unroll=4s"));
    QCOMPARE(QString::fromStdString(Schedule{}.str()), QString("default"));
    QVERIFY(Schedule::fromJsonText(s.toJson().dump()) == s);
    // Text that is not a schedule is an error naming what was expected, never a raw parser error.
    for (const char* text : {"{\"wg_n\": 0,", "[1, 2]", "{\"vec\": \"wide\"}", "{\"split_acc\": 3}"}) {
      try {
        (void)Schedule::fromJsonText(text);
        QFAIL(text);
      } catch (const Error& e) {
        QVERIFY2(e.message().find("json.exception") == std::string::npos, e.what());
      }
    }
  }

  // Local tiling stages both matmul operands, loops over K blocks with barriers, and gives the
  // unlowered interpreter's values; kernels it cannot help are refused with a reason.
  void localTiling() {
    for (const char* name : {"matmul_even", "batched_matmul_even", "matmul_unit_axes"}) {
      const auto cases = loweringCases();
      const KernelCase c = *std::find_if(cases.begin(), cases.end(), [&](const KernelCase& k) { return k.name == name; });
      const LocalTilePlan plan = planLocalTiles(c.kernel);
      QCOMPARE(int(plan.operands.size()), 2);
      QVERIFY(plan.operands[0].rows != plan.operands[1].rows);
      Schedule s;
      s.wgN = 4, s.wgM = 2, s.tileM = 2, s.tileN = 4, s.vec = 4, s.unroll = 2, s.localTileK = 8;
      QCOMPARE(QString::fromStdString(checkSchedule(c.kernel, s, DeviceLimits{})), QString());
      const LoweredKernel lk = lowerKernel(c.kernel, s);
      QCOMPARE(int(lk.launches[0].locals.size()), 2);
      QCOMPARE(lk.launches[0].locals[0].size + lk.launches[0].locals[1].size, int64_t{(4 + 16) * 8});
      QVERIFY(lk.print().find("barrier") != std::string::npos);
      bool rejected = false;
      const std::string err = runOne(c, s, 5, &rejected);
      QVERIFY2(err.empty() && !rejected, err.c_str());
      s.localTileK = 32;  // K = 24 / 16: not a multiple
      QVERIFY(checkSchedule(c.kernel, s, DeviceLimits{}).find("K block") != std::string::npos);
    }
    const KernelCase odd = matmulCase("odd", 13, 17, 19, true);
    Schedule s;
    s.wgN = 1, s.wgM = 1, s.localTileK = 1;
    QVERIFY(checkSchedule(odd.kernel, s, DeviceLimits{}).empty());  // 1x1 blocks divide anything
    s.wgN = 2;
    QVERIFY(checkSchedule(odd.kernel, s, DeviceLimits{}).find("does not divide the output") != std::string::npos);
    QVERIFY(!planLocalTiles(loweringCases()[0].kernel).why.empty());  // elementwise: no reduce
  }

  void vectorAlignment() {
    const Idx a = idx::var(0, "a", 0, 100), b = idx::var(1, "b", 0, 100);
    const std::vector<int64_t> al{8, 1};  // a: a multiple of 8
    QCOMPARE(idx::alignment(idx::mul(a, 2), al), int64_t{16});
    QCOMPARE(idx::alignment(idx::addc(idx::mul(a, 2), 4), al), int64_t{4});
    QCOMPARE(idx::alignment(idx::add(a, b), al), int64_t{1});
    QCOMPARE(idx::alignment(idx::mul(b, 12), al), int64_t{4});
    QCOMPARE(idx::alignment(idx::mod(idx::mul(a, 4), 6), al), int64_t{2});  // 32k mod 6 is even
    QCOMPARE(idx::alignment(idx::div(idx::mul(a, 4), 2), al), int64_t{16});  // simplified to 2a
    QCOMPARE(idx::alignment(idx::div(idx::add(a, b), 2), al), int64_t{1});   // div: nothing proven
    QCOMPARE(idx::alignment(idx::cst(0), al), idx::kMaxAlignment);
    QCOMPARE(idx::alignment(idx::cst(24), {}), int64_t{8});
  }

  // The GPU-sized local tiles (64 x 64 and 128 x 128 blocks of 8 x 8 register tiles) against the
  // unlowered interpreter; their block reads are aligned vector reads of local memory and the next
  // block's loads are issued inside the loop (double buffering, the index clamped to the last block).
  void gpuSizedLocalTiles() {
    const KernelCase c = matmulCase("gpu_tiles", 128, 128, 64, true);
    struct T { int64_t wgN, wgM, tm, tn, kt; };
    for (const T& t : {T{16, 16, 8, 8, 16}, T{8, 8, 8, 8, 32}, T{16, 8, 8, 8, 16}, T{16, 16, 4, 4, 16}}) {
      Schedule s;
      s.wgN = t.wgN, s.wgM = t.wgM, s.tileM = t.tm, s.tileN = t.tn, s.vec = std::min<int64_t>(t.tn, 8), s.unroll = 4;
      s.localTileK = t.kt;
      DeviceLimits gpu;
      gpu.maxWorkGroupSize = 1024, gpu.localMemBytes = 48 * 1024, gpu.gpu = true;
      QCOMPARE(QString::fromStdString(checkSchedule(c.kernel, s, gpu)), QString());
      bool rejected = false;
      const std::string err = runOne(c, s, 9, &rejected);
      QVERIFY2(err.empty() && !rejected, err.c_str());
      const std::string src = emitOpenCL(lowerKernel(c.kernel, s, gpu));
      QVERIFY2(src.find("*((const __local float4*)(l0 + ") != std::string::npos, src.c_str());
      QVERIFY2(src.find("*((const __local float4*)(l1 + ") != std::string::npos, src.c_str());
      if (64 / t.kt > 2) QVERIFY2(src.find("min((kb") != std::string::npos, src.c_str());  // else min() folds
    }
  }

  void verifierCatchesBrokenIr() {
    const KernelCase c = loweringCases()[0];
    LoweredKernel lk = lowerKernel(c.kernel);
    QVERIFY(verifyLowered(lk).empty());
    QVERIFY(!lk.print().empty());
    LoweredKernel bad = lk;
    std::swap(bad.launches[0].body[3], bad.launches[0].body.back());  // a use moves before its definition
    QVERIFY(!verifyLowered(bad).empty());
    LoweredKernel bad2 = lk;
    for (LStmt& s : bad2.launches[0].body)
      if (s.kind == LStmtKind::Store) s.buf.id = 0;  // store into the read-only first param
    QVERIFY(verifyLowered(bad2).find("read-only") != std::string::npos);
    LoweredKernel bad3 = lk;
    LStmt f;
    f.kind = LStmtKind::If;
    f.body.push_back(LStmt{});
    f.body.back().kind = LStmtKind::Barrier;
    bad3.launches[0].body.push_back(f);
    QVERIFY(verifyLowered(bad3).find("barrier") != std::string::npos);
  }

  // A store whose shape keeps its value's element count but not its rank (an edited session):
  // the verifier names it, and lowering refuses it with an error instead of indexing the value's
  // reshape with the store's shorter index (it crashed); an index of the wrong rank is an error.
  void mismatchedRanksAreErrors() {
    Kernel k;
    const int32_t x = k.param(ParamKind::Read, DType::F32, {8});
    const int32_t r = k.move(x, MoveKind::Reshape, {2, 4});
    const int32_t out = k.param(ParamKind::ReadWrite, DType::F32, {2, 4});
    const int32_t st = k.store(out, r);
    QVERIFY(verifyKernel(k).empty());
    k.ops[static_cast<std::size_t>(st)].shape = {8};
    QVERIFY2(verifyKernel(k).find("op 3: shape [8] differs from the [2, 4] its operands give") == 0, verifyKernel(k).c_str());
    QVERIFY_THROWS_EXCEPTION(Error, lowerKernel(k));
    QVERIFY_THROWS_EXCEPTION(Error, flatIndex({idx::cst(0)}, Shape{2, 4}));
    Mask pad;
    QVERIFY_THROWS_EXCEPTION(Error, moveSourceIndex(k.at(r), {8}, {idx::cst(0)}, pad));
    Schedule huge;
    huge.wgN = int64_t{1} << 62, huge.wgM = 4;  // their product overflowed past the work-group check
    k.ops[static_cast<std::size_t>(st)].shape = {2, 4};
    QCOMPARE(QString::fromStdString(checkSchedule(k, huge, DeviceLimits{})), QString("work-group larger than the device allows"));
  }

  void outOfBoundsIsAnError() {
    const KernelCase c = loweringCases()[0];
    LoweredKernel lk = lowerKernel(c.kernel);
    lk.launches[0].global[0] += 3;  // items past the end, no guards
    std::vector<HostTensor> b = randomBuffers(c.kernel, 1);
    QVERIFY_THROWS_EXCEPTION(Error, runLowered(lk, b));
  }
};

QTEST_GUILESS_MAIN(TestLowering)
#include "test_lowering.moc"
