// Programs as deep as they are long: fused elementwise chains of 16,000 and 100,000 terms go
// through every stage on the devices (parse, print, kernelize, lower, tune none, plan, run on PoCL,
// verify against the host executor, save, reload, export) on a thread with a 1 MiB stack. The
// time per term is printed: the kernelizer bounds a kernel's size, so it stays flat.
#include <QThread>
#include <QtTest>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/core/error.h"
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

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

class TestLongDeepPrograms : public QObject {
  Q_OBJECT
 private slots:
  void longChainsOnDevices_data() {
    QTest::addColumn<int>("terms");
    QTest::addColumn<QString>("op");
    QTest::newRow("16000 adds") << 16000 << " + x";
    QTest::newRow("16000 subs and muls by a constant") << 16000 << " - x * 0.5";
    QTest::newRow("100000 adds") << 100000 << " + x";
  }
  void longChainsOnDevices() {
    QFETCH(int, terms);
    QFETCH(QString, op);
    double s = 0;
    const std::string error = onSmallStack([&] { s = seconds([&] { pipeline(chain(terms, op.toLatin1().constData()), "all"); }); });
    QVERIFY2(error.empty(), error.c_str());
    qInfo("%d terms: whole pipeline %.2f s, %.1f us per term", terms, s, 1e6 * s / terms);
  }
};

QTEST_APPLESS_MAIN(TestLongDeepPrograms)
#include "test_long_deep_programs.moc"
