// Programs as deep as they are long, on a thread with a 1 MiB stack, where any walk that recursed
// once per term would overflow: a 16,000-op kernel lowered, emitted as OpenCL C and interpreted
// (against the hand value), and a 16,000-term chain through the host pipeline (parse, print,
// kernelize, plan, run, save, reload). test_long_deep_programs runs the device pipeline.
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

using namespace ks;
namespace fs = std::filesystem;

namespace {
// "y = x + x + ... (terms)": one class per term, all in one fused kernel.
std::string chain(int terms, const char* op = " + x") {
  std::string s = "input x: f32[4]\ny = x";
  for (int i = 1; i < terms; ++i) s += op;
  return s + "\noutput y\n";
}

// Runs `f` on a thread with a 1 MiB stack; returns what it threw ("" when nothing).
std::string onSmallStack(const std::function<void()>& f) {
  std::string error;
  QThread* t = QThread::create([&] {
    try {
      f();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  t->setStackSize(1u << 20);
  t->start();
  t->wait();
  delete t;
  return error;
}

// The whole pipeline on `text`; fails the test on a wrong value.
void pipeline(const std::string& text, const std::string& devices) {
  Program p = parseKs(text, "chain.ks");
  const std::string printed = printKs(p);
  const Program again = parseKs(printed, "printed.ks");
  if (again.cacheKey() != p.cacheKey()) throw Error(ErrorCode::Internal, "print and parse gave another program");
  SessionOptions o;
  o.tune = TuneLevel::None;
  o.cache = "none";
  o.devices = devices;
  Session s(std::move(p), o);
  const RunRecord& r = s.run({}, true);
  if (!r.verified || !r.verifyPassed) throw Error(ErrorCode::Internal, "the run differs from the host executor: " + r.outputs.at(0).mismatch);
  const std::string path = (fs::temp_directory_path() / ("ks_deep_" + std::to_string(::getpid()) + ".kss.json")).string();
  s.save(path);
  const Session back = Session::load(path);
  fs::remove(path);
  for (ExportView v : {ExportView::Fusion, ExportView::Plan}) (void)exportView(back, v, "json");
  if (!back.trace().kernels.empty() && back.kernelSource(0, "default").find("__kernel") == std::string::npos)
    throw Error(ErrorCode::Internal, "no kernel source");
}

}  // namespace

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
};

QTEST_APPLESS_MAIN(TestDeepPrograms)
#include "test_deep_programs.moc"
