// Programs as deep as they are long: fused elementwise chains of 16,000 and 100,000 terms go
// through every stage on the devices as the CLI runs them (parse, print, the default rewrites,
// kernelize, lower, tune none, plan, run on PoCL,
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

#include "deep_programs.h"

using namespace ks;
using namespace ks::testing::deep;
namespace {

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
    const std::string error = onSmallStack([&] { s = seconds([&] { pipeline(chain(terms, op.toLatin1().constData()), "all", RewriteMode::Default); }); });
    QVERIFY2(error.empty(), error.c_str());
    qInfo("%d terms: whole pipeline %.2f s, %.1f us per term", terms, s, 1e6 * s / terms);
  }
};

QTEST_APPLESS_MAIN(TestLongDeepPrograms)
#include "test_long_deep_programs.moc"
