// AutotuneView on a real softmax session: one row per measurement, winners marked as the searches
// say, sorting and filtering, a row selects its kernel and device, the chart has the kernel's bars,
// CSV export read back.
#include <QCheckBox>
#include <QAbstractAxis>
#include <QChart>
#include <QLineEdit>
#include <QListWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QFile>

#include "tests/views/session_fixture.h"
#include "views/autotune_view.h"
#include "views/table_export.h"

using namespace ks;
using namespace ks::testing;

class TestAutotuneView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> session_;

 private slots:
  void initTestCase() {
    session_ = sampleSession();
    QVERIFY(!session_->trace().measurements.empty());
    QVERIFY(!session_->trace().searches.empty());
  }

  void rowsAndWinners() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    AutotuneView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const CompileTrace& t = session_->trace();
    QCOMPARE(v.model()->rowCount(), int(t.measurements.size()));
    QCOMPARE(v.proxy()->rowCount(), int(t.measurements.size()));
    // Exactly one starred row per search whose winner was measured ok.
    int expectedWinners = 0;
    for (const TuneSearch& s : t.searches)
      for (const TuneMeasurement& m : t.measurements)
        if (m.kernel == s.kernel && m.device == s.device && m.schedule == s.winner && m.status == TuneStatus::Ok) {
          ++expectedWinners;
          break;
        }
    int stars = 0;
    for (int r = 0; r < v.model()->rowCount(); ++r) {
      const bool star = v.model()->index(r, AutotuneModel::Winner).data().toString() == QString::fromUtf8("★");
      stars += star;
      if (star) QVERIFY(v.model()->index(r, 0).data(Qt::FontRole).value<QFont>().bold());
    }
    QCOMPARE(stars, expectedWinners);
    QVERIFY(stars > 0);
  }

  void sortingByTime() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    AutotuneView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    v.table()->sortByColumn(AutotuneModel::TimeUs, Qt::AscendingOrder);
    double prev = -1;
    for (int r = 0; r < v.proxy()->rowCount(); ++r) {
      const double ns = v.proxy()->index(r, AutotuneModel::TimeUs).data(AutotuneModel::SortRole).toDouble();
      QVERIFY2(ns >= prev, qPrintable(QString("row %1").arg(r)));
      prev = ns;
    }
  }

  void filterAndFollow() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    AutotuneView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const CompileTrace& t = session_->trace();
    const uint32_t k = t.measurements.back().kernel;
    int ofKernel = 0;
    for (const TuneMeasurement& m : t.measurements) ofKernel += m.kernel == k;
    v.followBox()->setChecked(true);
    Selection s;
    s.kernel = k;
    ctx.setSelection(s);
    v.selectionChanged(s);
    QCOMPARE(v.proxy()->rowCount(), ofKernel);
    QCOMPARE(ctx.selects, 0);  // following the selection does not select back
    v.followBox()->setChecked(false);
    QCOMPARE(v.proxy()->rowCount(), int(t.measurements.size()));
    // The text filter: a status no row has leaves nothing; "ok" leaves at least the ok rows.
    v.filterBox()->setText("no-such-status-xyz");
    QCOMPARE(v.proxy()->rowCount(), 0);
    v.filterBox()->clear();
    QCOMPARE(v.proxy()->rowCount(), int(t.measurements.size()));
  }

  void rowSelectsKernelAndChart() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    AutotuneView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const CompileTrace& t = session_->trace();
    const int last = v.proxy()->rowCount() - 1;
    v.table()->selectRow(last);
    const QModelIndex src = v.proxy()->mapToSource(v.proxy()->index(last, 0));
    const TuneMeasurement& m = t.measurements[src.row()];
    QVERIFY(ctx.selects >= 1);
    QCOMPARE(ctx.selection().kernel, std::optional<uint32_t>(m.kernel));
    QCOMPARE(ctx.selection().device, std::optional<uint32_t>(m.device));
    // The chart: one bar per (device with an ok measurement, schedule with an ok time) of that
    // kernel; the others are listed beside it, not drawn as zero.
    std::set<std::string> schedules;
    std::set<uint32_t> devices;
    int failed = 0;
    for (const TuneMeasurement& x : t.measurements)
      if (x.kernel == m.kernel) {
        if (x.status == TuneStatus::Ok) {
          schedules.insert(x.schedule);
          devices.insert(x.device);
        } else {
          ++failed;
        }
      }
    QCOMPARE(v.chartBarCount(), int(schedules.size() * devices.size()));
    QCOMPARE(v.failedList()->count(), failed);
    // A log axis by default; unticking it gives a linear one with the same bars.
    QVERIFY(v.logBox()->isChecked());
    auto yKind = [&v] {
      for (QAbstractAxis* a : v.chart()->axes(Qt::Vertical)) return a->type();
      return QAbstractAxis::AxisTypeNoAxis;
    };
    QCOMPARE(yKind(), QAbstractAxis::AxisTypeLogValue);
    v.logBox()->setChecked(false);
    QCOMPARE(yKind(), QAbstractAxis::AxisTypeValue);
    QCOMPARE(v.chartBarCount(), int(schedules.size() * devices.size()));
    if (!qEnvironmentVariableIsEmpty("KS_SCREENSHOT_DIR")) {
      v.resize(1100, 700);
      v.show();
      QTest::qWait(200);
      v.grab().save(qEnvironmentVariable("KS_SCREENSHOT_DIR") + "/autotune_view.png");
    }
  }

  void csvRoundTrip() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    AutotuneView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    QTemporaryDir dir;
    const QString path = dir.filePath("autotune.csv");
    QCOMPARE(writeTableCsv(*v.table()->model(), path), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QStringList> rows = parseCsv(QString::fromUtf8(f.readAll()));
    QCOMPARE(rows.size(), int(session_->trace().measurements.size()) + 1);
    QCOMPARE(rows[0].size(), int(AutotuneModel::ColumnCount));
    QCOMPARE(rows[0][AutotuneModel::Schedule], QString("schedule"));
    for (const QStringList& r : rows) QCOMPARE(r.size(), int(AutotuneModel::ColumnCount));
    // Quoting round-trips fields with commas (schedules usually have them).
    const QString sched0 = v.table()->model()->index(0, AutotuneModel::Schedule).data().toString();
    QCOMPARE(rows[1][AutotuneModel::Schedule], sched0);
  }
};

QTEST_MAIN(TestAutotuneView)
#include "test_autotune_view.moc"
