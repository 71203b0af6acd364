// The cost model: roofline arithmetic by hand, and schedule estimates that rank the schedules
// every GPU and CPU benchmark shows to be faster ahead of those it shows to be slower.
#include <QtTest>

#include <cmath>

#include "engine/devices/device_info.h"
#include "engine/kernel/kernel.h"
#include "engine/tune/cost_model.h"
#include "engine/tune/tune_candidates.h"
#include "lowering_cases.h"

using namespace ks;
using namespace ks::testing;

namespace {
DeviceLimits gpuLimits() {
  DeviceLimits l;
  l.gpu = true;
  l.computeUnits = 132;
  l.maxWorkGroupSize = 1024;
  l.localMemBytes = 48 * 1024;
  return l;
}
DeviceLimits cpuLimits() {
  DeviceLimits l;
  l.computeUnits = 2;
  l.maxWorkGroupSize = 4096;
  l.localMemBytes = 256 * 1024;
  return l;
}
Kernel sumKernel(int64_t n) {
  Kernel k;
  const int32_t x = k.param(ParamKind::Read, DType::F32, {n}), o = k.param(ParamKind::ReadWrite, DType::F32, {});
  k.store(o, k.reduce(x, ReduceOp::Sum));
  return k;
}
Schedule split(int64_t g, int64_t l, int64_t u) {
  Schedule s;
  s.groupSplit = g, s.localReduce = l, s.unroll = u, s.vec = u == 1 ? 1 : std::min<int64_t>(u, 8), s.splitAcc = u > 1;
  return s;
}
}  // namespace

class TestCostModel : public QObject {
  Q_OBJECT
 private slots:
  void rooflineByHand() {
    const DeviceRates d = deviceRates(gpuLimits(), 2500.0, 50000.0);
    QVERIFY(d.measured && d.gpu);
    // 1 GFLOP at 50 TFLOP/s = 20 us; 100 MB at 2.5 TB/s = 40 us: memory bound.
    const Roofline r = roofline(1e9, 1e8, d, 1);
    QCOMPARE(r.computeNs, 20000.0);
    QCOMPARE(r.memoryNs, 40000.0);
    QVERIFY(r.memoryBound());
    QCOMPARE(r.ns(), 40000.0 + d.launchNs);
    QCOMPARE(r.percentOfPeak(80000.0), 50.0);
    // A kernel's own figures: the 16M sum reads 64 MiB and writes 4 bytes.
    const Roofline s = roofline(sumKernel(1 << 24), d);
    QCOMPARE(s.bytes, double((1 << 24) * 4 + 4));
    QCOMPARE(s.flops, double(1 << 24));
  }

  void nominalRatesWhenNotMeasured() {
    const DeviceRates g = deviceRates(gpuLimits(), 0, 0), c = deviceRates(cpuLimits(), 0, 0);
    QVERIFY(!g.measured && !c.measured);
    QVERIFY(g.gbs > c.gbs && g.gflops > c.gflops && g.itemsPerUnit > c.itemsPerUnit);
    DeviceInfo pocl;
    pocl.kind = DeviceKind::OpenCL;
    pocl.deviceName = "pthread-skylake-avx512";
    pocl.maxWorkGroupSize = 4096;
    pocl.computeUnits = 2;
    QVERIFY(!deviceRates(pocl).gpu);
    DeviceInfo h200 = pocl;
    h200.deviceName = "NVIDIA H200";
    h200.maxWorkGroupSize = 1024;
    h200.computeUnits = 132;
    QVERIFY(deviceRates(h200).gpu);
  }

  // A 16M sum on a GPU: one item reading everything is latency bound; a split over a thousand
  // work-groups of 256 items is what the H200 runs at bandwidth.
  void sumOnGpu() {
    const DeviceLimits l = gpuLimits();
    const DeviceRates d = deviceRates(l, 2650.0, 60000.0);
    const Kernel k = sumKernel(1 << 24);
    const ScheduleEstimate def = estimateSchedule(k, Schedule{}, l, d);
    const ScheduleEstimate wide = estimateSchedule(k, split(1024, 256, 8), l, d);
    const ScheduleEstimate narrow = estimateSchedule(k, split(4, 1, 8), l, d);
    QVERIFY2(wide.ns * 50 < def.ns, qPrintable(QString("%1 vs %2").arg(wide.ns).arg(def.ns)));
    QVERIFY(wide.ns < narrow.ns);
    QCOMPARE(def.bound, std::string("latency"));
    // Within 3x of the bandwidth floor: 64 MiB at 2.65 TB/s = 25 us.
    QVERIFY2(wide.ns < 3 * 25300.0 + d.launchNs * 2, qPrintable(QString::number(wide.ns)));
    QCOMPARE(wide.vecWidth, int64_t{8});
  }

  // A matmul on a GPU: register tiles with vector loads issue fewer load slots per FMA than one
  // output per item.
  void matmulOnGpu() {
    const DeviceLimits l = gpuLimits();
    const DeviceRates d = deviceRates(l, 2650.0, 60000.0);
    const KernelCase mm = matmulCase("mm", 1024, 1024, 1024, false);
    Schedule tiled;
    tiled.tileM = 4, tiled.tileN = 8, tiled.vec = 8;
    const ScheduleEstimate def = estimateSchedule(mm.kernel, Schedule{}, l, d);
    const ScheduleEstimate t = estimateSchedule(mm.kernel, tiled, l, d);
    QVERIFY2(t.ns < def.ns, qPrintable(QString("%1 vs %2").arg(t.ns).arg(def.ns)));
    QVERIFY(std::isfinite(t.ns) && t.ns > roofline(mm.kernel, d).ns() * 0.5);
  }

  // Ordering keeps the default first and every candidate once; a schedule that does not lower is last.
  void orderKeepsDefaultFirst() {
    const DeviceLimits l = cpuLimits();
    const DeviceRates d = deviceRates(l, 30.0, 200.0);
    const Kernel k = sumKernel(1 << 20);
    const std::vector<Schedule> cands = enumerateSchedules(k, l, TuneLevel::Full);
    std::vector<ScheduleEstimate> est;
    const std::vector<Schedule> ordered = orderByModel(k, cands, l, d, &est);
    QCOMPARE(ordered.size(), cands.size());
    QVERIFY(ordered.front() == Schedule{});
    for (const Schedule& s : cands) QVERIFY(std::find(ordered.begin(), ordered.end(), s) != ordered.end());
    for (std::size_t i = 2; i < est.size(); ++i) QVERIFY(est[i - 1].ns <= est[i].ns);
    Schedule bad;
    bad.tileN = 1000;
    QVERIFY(std::isinf(estimateSchedule(k, bad, l, d).ns));
  }

  // Quick tuning measures the first candidates only: the model must bring the wide splits a GPU
  // needs for a 16M sum among them, while keeping the hand-picked quick list and the default first.
  void quickSearchReachesWideSplits() {
    const DeviceLimits l = gpuLimits();
    const DeviceRates d = deviceRates(l, 0, 0);
    const Kernel k = sumKernel(1 << 24);
    const std::vector<Schedule> quick = tuneCandidates(k, l, d, TuneLevel::Quick);
    QVERIFY(quick.front() == Schedule{});
    bool wide = false;
    for (std::size_t i = 0; i < std::min<std::size_t>(quick.size(), 8); ++i)
      wide = wide || (quick[i].groupSplit >= 256 && quick[i].localReduce >= 64);
    QVERIFY2(wide, qPrintable(QString::fromStdString(quick[1].str())));
    for (const Schedule& s : enumerateSchedules(k, l, TuneLevel::Quick))
      QVERIFY(std::find(quick.begin(), quick.end(), s) != quick.end());
    const std::vector<Schedule> full = tuneCandidates(k, l, d, TuneLevel::Full);
    QCOMPARE(full.size(), enumerateSchedules(k, l, TuneLevel::Full).size());
    QCOMPARE(tuneCandidates(k, l, d, TuneLevel::None).size(), std::size_t(1));
  }

  // Every lowering case under every enumerated schedule gets a finite, positive estimate.
  void everyCaseEstimates() {
    for (const DeviceLimits& l : {gpuLimits(), cpuLimits()}) {
      const DeviceRates d = deviceRates(l, 0, 0);
      for (const KernelCase& c : loweringCases())
        for (const Schedule& s : enumerateSchedules(c.kernel, l, TuneLevel::Full)) {
          const ScheduleEstimate e = estimateSchedule(c.kernel, s, l, d);
          QVERIFY2(std::isfinite(e.ns) && e.ns > 0, qPrintable(QString::fromStdString(c.name + " " + s.str())));
          QVERIFY(e.occupancy > 0 && e.occupancy <= 1);
        }
    }
  }
};

QTEST_GUILESS_MAIN(TestCostModel)
#include "test_cost_model.moc"
