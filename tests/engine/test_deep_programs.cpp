// Programs as deep as they are long, on a thread with a 1 MiB stack, where any walk that recursed
// once per term would overflow: a 16,000-op kernel lowered, emitted as OpenCL C and interpreted
// (against the hand value), and a 16,000-term chain through the host pipeline (parse, print,
// kernelize, plan, run, save, reload), with and without the rewrite stage. test_long_deep_programs
// runs the device pipeline.
#include <QThread>
#include <QtTest>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/codegen/opencl_emitter.h"
#include "engine/core/error.h"
#include "engine/kernel/interpreter.h"
#include "engine/kernel/lowering.h"
#include "engine/io/program_source.h"
#include "engine/session/exporters.h"
#include "engine/session/session.h"

#include "deep_programs.h"

using namespace ks;
using namespace ks::testing::deep;

class TestDeepPrograms : public QObject {
  Q_OBJECT
 private slots:
  // y = ((x + x) + x) + ... as one kernel of 16,000 ops (the kernelizer would split it; lowering
  // takes any kernel), under the default schedule and a 4-wide vector one.
  void lowersLongKernelOnSmallStack() {
    constexpr int terms = 16000;
    Kernel k;
    const int32_t x = k.param(ParamKind::Read, DType::F32, {8});
    const int32_t out = k.param(ParamKind::ReadWrite, DType::F32, {8});
    int32_t y = x;
    for (int i = 1; i < terms; ++i) y = k.binary(y, x, BinaryOp::Add);
    k.store(out, y);
    for (int vec : {1, 4}) {
      Schedule s;
      s.tileN = s.vec = vec;
      std::vector<HostTensor> lowered, plain;
      std::string source;
      const std::string error = onSmallStack([&] {
        const LoweredKernel lk = lowerKernel(k, s);
        source = emitOpenCL(lk);
        for (auto* b : {&lowered, &plain}) {
          HostTensor in(DType::F32, {8});
          for (int i = 0; i < 8; ++i) in.setDouble(i, 0.25 * i);
          *b = {in, HostTensor(DType::F32, {8})};
        }
        runLowered(lk, lowered);
        runKernel(k, plain);
      });
      QVERIFY2(error.empty(), error.c_str());
      QVERIFY(source.find("__kernel") != std::string::npos);
      for (int i = 0; i < 8; ++i) {
        QCOMPARE(lowered[1].getDouble(i), double(terms) * 0.25 * i);  // exact: multiples of 1/4 below 2^24
        QCOMPARE(plain[1].getDouble(i), double(terms) * 0.25 * i);
      }
    }
  }

  void hostPipelineOnSmallStack() {
    const std::string error = onSmallStack([] { pipeline(chain(16000), "host"); });
    QVERIFY2(error.empty(), error.c_str());
  }

  // The same with the rewrite stage the CLI and the GUI run by default (saturating the chain's
  // e-graph and extracting its cheapest term walk it too), and a chain of two ops per term.
  void hostPipelineWithRewritesOnSmallStack() {
    for (const char* op : {" + x", " - x * 0.5"}) {
      const std::string error = onSmallStack([op] { pipeline(chain(16000, op), "host", RewriteMode::Default); });
      QVERIFY2(error.empty(), (std::string(op) + ": " + error).c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestDeepPrograms)
#include "test_deep_programs.moc"
