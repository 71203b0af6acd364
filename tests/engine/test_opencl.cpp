// The lowering cases compiled to OpenCL C and run on every OpenCL device found (PoCL here),
// compared with the unlowered interpreter within DESIGN.md §2.1.
#include <QtTest>

#include <array>
#include <chrono>
#include <cmath>

#include "engine/codegen/opencl_emitter.h"
#include "engine/core/error.h"
#include "engine/devices/opencl_device.h"
#include "engine/kernel/interpreter.h"
#include "engine/kernel/lowering.h"
#include "lowering_cases.h"
#include "tests/require_opencl.h"

using namespace ks;
using namespace ks::testing;

class TestOpenCL : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (OpenCLDevice::enumerate().empty()) KS_SKIP_WITHOUT_OPENCL();
  }

  void deviceInfo() {
    for (const OpenCLDeviceInfo& i : OpenCLDevice::enumerate()) {
      QVERIFY(i.id.rfind("opencl:", 0) == 0);
      QVERIFY(!i.name.empty());
      QVERIFY(i.computeUnits > 0);
      QVERIFY(i.maxWorkGroupSize > 0);
      QVERIFY(i.globalMemBytes > 0);
      QVERIFY(i.fingerprint.find(i.name) != std::string::npos);
      QVERIFY(i.fingerprint.find(i.driverVersion) != std::string::npos);
      qInfo("%s: %s | %s | driver %s | %lld CU | wg %lld | local %lld | fp64 %d", i.id.c_str(), i.platform.c_str(),
            i.name.c_str(), i.driverVersion.c_str(), (long long)i.computeUnits, (long long)i.maxWorkGroupSize,
            (long long)i.localMemBytes, int(i.fp64));
      auto dev = OpenCLDevice::open(i.id);
      QCOMPARE(QString::fromStdString(dev->info().fingerprint), QString::fromStdString(i.fingerprint));
    }
    QVERIFY_THROWS_EXCEPTION(Error, OpenCLDevice::open(99, 0));
    QVERIFY_THROWS_EXCEPTION(Error, OpenCLDevice::open("cuda:0"));
  }

  // Every case under the default schedule and a rotating pair of other valid schedules (enumerated
  // or option schedules), all built as one program. PoCL compiles a work-group function at the
  // first launch of every kernel (~0.5 s each), so the full sweep lives in test_long_opencl.
  void everyCaseRotatingSchedules() { sweep(false); }

 public:
  static void sweep(bool everySchedule) {
    for (const OpenCLDeviceInfo& info : OpenCLDevice::enumerate()) {
      auto dev = OpenCLDevice::open(info.id);
      std::vector<LoweredKernel> lowered;
      std::vector<std::size_t> caseOf;
      const auto cases = loweringCases();
      for (std::size_t c = 0; c < cases.size(); ++c) {
        if (!info.fp64 && cases[c].name.find("f64") != std::string::npos) continue;
        auto scheds = enumerateSchedules(cases[c].kernel, info.limits(), TuneLevel::Full);
        for (const Schedule& s : optionSchedules())
          if (checkSchedule(cases[c].kernel, s, info.limits()).empty() &&
              std::find(scheds.begin(), scheds.end(), s) == scheds.end())
            scheds.push_back(s);
        if (!everySchedule) {
          std::vector<Schedule> pickN{Schedule{}};
          for (std::size_t j = 1; j <= 1 && scheds.size() > 1; ++j) pickN.push_back(scheds[1 + (c * 2 + j) % (scheds.size() - 1)]);
          scheds = pickN;
        }
        for (const Schedule& s : scheds) {
          lowered.push_back(lowerKernel(cases[c].kernel, s, info.limits()));
          caseOf.push_back(c);
        }
      }
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<OpenCLKernel> built;
      try {
        built = dev->build(lowered);
      } catch (const Error& e) {
        QFAIL(e.what());
      }
      const double buildS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      qInfo("%s: %zu kernels built as one program in %.2f s", info.id.c_str(), built.size(), buildS);
      for (std::size_t i = 0; i < built.size(); ++i) {
        const KernelCase& c = cases[caseOf[i]];
        std::vector<HostTensor> want = randomBuffers(c.kernel, 5 + caseOf[i]), got = want;
        runKernel(c.kernel, want);
        dev->runOnHost(built[i], got);
        const std::string diff = compareBuffers(got, want, c.reduceLen);
        QVERIFY2(diff.empty(), (info.id + " " + c.name + " under " + lowered[i].schedule.str() + ": " + diff + "\n" +
                                emitOpenCL(lowered[i]))
                                   .c_str());
      }
    }
  }


 private slots:
  void brokenSourceGivesBuildLog() {
    for (const OpenCLDeviceInfo& info : OpenCLDevice::enumerate()) {
      auto dev = OpenCLDevice::open(info.id);
      try {
        dev->buildProgram("__kernel void broken(__global float* p) { p[0] = undefined_symbol_xyz; }",
                          openclBuildOptions());
        QFAIL("a broken kernel built");
      } catch (const Error& e) {
        QCOMPARE(e.code(), ErrorCode::Build);
        QVERIFY2(e.message().find("undefined_symbol_xyz") != std::string::npos, e.what());
        QVERIFY(e.message().find("Build log") != std::string::npos);
      }
    }
  }

  // Row loops write their lanes as vector statements (max and min spelled out for NaN, unary math
  // on vectors, vector accumulators, whole-vector stores): three row loops of each row case (one
  // item in 16-wide runs, one item in two 8-wide runs, two items in two 4-wide runs each) run on
  // every device on random rows and on rows holding NaN and infinities, and match the interpreter.
  void rowLoopsMatchTheInterpreter() {
    for (const OpenCLDeviceInfo& info : OpenCLDevice::enumerate()) {
      auto dev = OpenCLDevice::open(info.id);
      std::vector<LoweredKernel> lowered;
      std::vector<KernelCase> cases;
      for (const KernelCase& c : loweringCases()) {
        if (c.name.find("_row") == std::string::npos) continue;
        std::vector<Schedule> scheds;
        for (auto [L, v, u] : {std::array<int64_t, 3>{1, 16, 1}, {1, 8, 2}, {2, 4, 2}}) {
          Schedule s;
          s.rowItems = L, s.vec = v, s.unroll = u, s.rowLoop = true;
          scheds.push_back(s);
        }
        for (const Schedule& s : scheds)
          if (checkSchedule(c.kernel, s, info.limits()).empty())
            lowered.push_back(lowerKernel(c.kernel, s, info.limits())), cases.push_back(c);
      }
      QCOMPARE(lowered.size(), std::size_t{9});
      const std::vector<OpenCLKernel> built = dev->build(lowered);
      for (std::size_t i = 0; i < built.size(); ++i)
        for (bool special : {false, true}) {
          std::vector<HostTensor> want = randomBuffers(cases[i].kernel, 40 + i);
          if (special) {  // row 0 holds a NaN, row 1 +inf, row 2 -inf
            const double values[] = {std::nan(""), INFINITY, -INFINITY};
            const int64_t row = cases[i].reduceLen;
            for (int r = 0; r < 3; ++r) want[0].setDouble(r * row + 3 + r, values[r]);
          }
          std::vector<HostTensor> got = want;
          runKernel(cases[i].kernel, want);
          dev->runOnHost(built[i], got);
          const std::string diff = compareBuffers(got, want, cases[i].reduceLen);
          QVERIFY2(diff.empty(), (info.id + " " + cases[i].name + " under " + lowered[i].schedule.str() +
                                  (special ? " (NaN, inf rows): " : ": ") + diff + "\n" + emitOpenCL(lowered[i]))
                                     .c_str());
        }
    }
  }

  void timingAndBuffers() {
    const OpenCLDeviceInfo info = OpenCLDevice::enumerate().front();
    auto dev = OpenCLDevice::open(info.id);
    const KernelCase c = matmulCase("mm", 64, 64, 64, false);
    Schedule s;
    s.tileM = 4, s.tileN = 4, s.vec = 4;
    auto built = dev->build({lowerKernel(c.kernel, s, info.limits())});
    std::vector<HostTensor> b = randomBuffers(c.kernel, 3);
    const uint64_t ns = dev->runOnHost(built[0], b);
    QVERIFY(ns > 0);
    // write/read round trip
    std::vector<float> in(1000), out(1000, 0);
    for (int i = 0; i < 1000; ++i) in[i] = float(i) * 0.5f;
    OpenCLBuffer buf = dev->alloc(in.size() * 4);
    dev->write(buf, in.data(), 4000);
    dev->read(buf, out.data(), 4000);
    QVERIFY(in == out);
    QVERIFY_THROWS_EXCEPTION(Error, dev->alloc(std::size_t(1) << 62));
  }
};

#ifndef KS_OPENCL_TEST_NO_MAIN
QTEST_GUILESS_MAIN(TestOpenCL)
#include "test_opencl.moc"
#endif
