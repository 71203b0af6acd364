// The predicted-vs-measured comparison of a plan's steps: a hand-made plan whose chosen nodes carry
// known costs and a run record with known step times.
#include <QtTest>

#include "engine/plan/timing_gap.h"

using namespace ks;

namespace {
struct Fixture {
  Graph g;
  ExecPlan plan;
  RunRecord run;
  // A step whose chosen node costs `predicted` ns and whose run took `measured` ns.
  void step(const char* kind, double predicted, double measured, bool resident = false) {
    const ClassId x = g.addLeaf({"x" + std::to_string(plan.steps.size()), LeafKind::Input, DType::F32, {4}, nullptr});
    Node n;
    n.kind = NodeKind::Kernel;
    n.in = {x};
    n.timeNs = predicted;
    Node u;
    u.kind = NodeKind::Unary;
    u.op = static_cast<uint8_t>(UnaryOp::Exp);
    u.in = {x};
    const ClassId c = g.add(u);
    PlanStep ps;
    ps.node = g.addAlternative(c, n);
    ps.label = std::string(kind) + " " + std::to_string(plan.steps.size());
    plan.steps.push_back(ps);
    StepTiming t;
    t.label = ps.label;
    t.kind = kind;
    t.ns = measured;
    t.resident = resident;
    run.steps.push_back(t);
  }
};
}  // namespace

class TestTimingGap : public QObject {
  Q_OBJECT
 private slots:
  void flagsStepsOffByMoreThanTwice() {
    Fixture f;
    f.step("launch", 10'000, 50'000);          // 0: 5x slower
    f.step("copy", 3'000, 3'500);              // 1: agrees
    f.step("copy", 5'000, 0, true);            // 2: resident upload, nothing moved
    f.step("launch", 1'500, 4'500);            // 3: 3x but below the floor
    f.step("gemm", 100'000, 30'000);           // 4: 3.3x faster
    f.run.totalNs = 120'000;
    const TimingGap gap = timingGap(f.g, f.plan, f.run, false);
    QCOMPARE(gap.steps.size(), std::size_t(5));
    QVERIFY(gap.steps[0].flagged);
    QVERIFY2(gap.steps[0].reason.find("tuning off") != std::string::npos, gap.steps[0].reason.c_str());
    QVERIFY(!gap.steps[1].flagged);
    QVERIFY(gap.steps[1].reason.empty());
    QVERIFY(!gap.steps[2].flagged);
    QVERIFY(gap.steps[2].reason.find("resident") != std::string::npos);
    QVERIFY(!gap.steps[3].flagged);
    QVERIFY(gap.steps[4].flagged);
    QVERIFY(gap.steps[4].reason.find("OpenBLAS") != std::string::npos);
    QCOMPARE(gap.steps[0].ratio(), 5.0);
    QCOMPARE(gap.predictedNs, 119'500.0);
    QCOMPARE(gap.measuredNs, 88'000.0);
    QCOMPARE(gap.wallNs, 120'000.0);
    // Largest |measured - predicted| first: the GEMM (70 us), the launch (40 us), the resident
    // upload (5 us); the agreeing copy and the tiny launch stay under the floor.
    QCOMPARE(gap.largest, (std::vector<std::size_t>{4, 0, 2}));
    QVERIFY2(gap.summary.find("#4 (-70.0 us)") != std::string::npos, gap.summary.c_str());
    QVERIFY2(gap.summary.find("warm run") == 0, gap.summary.c_str());
  }

  void coldRunsAndTunedKernelsSayWhy() {
    Fixture f;
    f.step("launch", 10'000, 40'000);
    f.run.cold = true;
    QVERIFY(timingGap(f.g, f.plan, f.run, true).steps[0].reason.find("cold run") != std::string::npos);
    f.run.cold = false;
    QVERIFY(timingGap(f.g, f.plan, f.run, true).steps[0].reason.find("autotuner") != std::string::npos);
  }

  // A plan that was never run (or a run of another plan) has predictions only.
  void withoutARunOnlyPredicts() {
    Fixture f;
    f.step("launch", 10'000, 40'000);
    f.run.steps.clear();
    const TimingGap gap = timingGap(f.g, f.plan, f.run, true);
    QCOMPARE(gap.steps[0].measuredNs, -1.0);
    QVERIFY(!gap.steps[0].flagged);
    QVERIFY(gap.largest.empty());
    QVERIFY(gap.summary.find("not run") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestTimingGap)
#include "test_timing_gap.moc"
