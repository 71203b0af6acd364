// DevicesView on a real softmax session run twice: one checkable row per device, the checked list
// as a --devices string and the run request, one runs-table row per step plus a total per run,
// speed-ups against run 1, the chart's bars, CSV read back.
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "tests/views/session_fixture.h"
#include "views/devices_view.h"
#include "views/table_export.h"

using namespace ks;
using namespace ks::testing;

class TestDevicesView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> session_;

 private slots:
  void initTestCase() {
    session_ = sampleSession();
    session_->run({}, false);  // a second run to compare
    QCOMPARE(session_->runs().size(), std::size_t(2));
  }

  void devicesAndRunRequest() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    DevicesView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const auto& devs = session_->devices();
    QCOMPARE(v.devicesModel()->rowCount(), int(devs.size()));
    QStringList all;
    for (const DeviceInfo& d : devs) all << QString::fromStdString(d.name);
    QCOMPARE(v.checkedDevices(), all.join(','));
    QSignalSpy spy(&v, &DevicesView::runRequested);
    v.devicesModel()->item(0, 0)->setCheckState(Qt::Unchecked);
    all.removeFirst();
    QCOMPARE(v.checkedDevices(), all.join(','));
    QCOMPARE(v.runButton()->isEnabled(), !all.isEmpty());
    if (!all.isEmpty()) {
      v.runButton()->click();
      QCOMPARE(spy.count(), 1);
      QCOMPARE(spy.at(0).at(0).toString(), all.join(','));
    }
    // Selecting a device row selects that device.
    v.devicesTable()->selectRow(int(devs.size()) - 1);
    QCOMPARE(ctx.selection().device, std::optional<uint32_t>(uint32_t(devs.size() - 1)));
  }

  void runsComparison() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    DevicesView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    int steps = 0;
    for (const RunRecord& r : session_->runs()) steps += int(r.steps.size()) + 1;
    QCOMPARE(v.runsModel()->rowCount(), steps);
    // Run 1's rows have speed-up 1; the total row of run 2 has run1.total / run2.total.
    QCOMPARE(v.runsModel()->item(0, 5)->data(Qt::UserRole + 1).toDouble(), 1.0);
    const int lastRow = v.runsModel()->rowCount() - 1;
    QCOMPARE(v.runsModel()->item(lastRow, 1)->text(), QString("total"));
    QVERIFY(qAbs(v.runsModel()->item(lastRow, 5)->data(Qt::UserRole + 1).toDouble() -
                 session_->runs()[0].totalNs / session_->runs()[1].totalNs) < 1e-9);
    QVERIFY(qAbs(v.runsModel()->item(lastRow, 4)->data(Qt::UserRole + 1).toDouble() - session_->runs()[1].totalNs / 1e3) < 1e-9);
    // Chart: (distinct launch labels + total) bars per run.
    std::set<std::string> labels;
    for (const RunRecord& r : session_->runs())
      for (const StepTiming& st : r.steps)
        if (st.kind != "copy") labels.insert(st.label);
    QCOMPARE(v.chartBarCount(), int((labels.size() + 1) * session_->runs().size()));
    if (!qEnvironmentVariableIsEmpty("KS_SCREENSHOT_DIR")) {
      v.resize(1100, 750);
      v.show();
      QTest::qWait(200);
      v.grab().save(qEnvironmentVariable("KS_SCREENSHOT_DIR") + "/devices_view.png");
    }
    QTemporaryDir dir;
    const QString path = dir.filePath("runs.csv");
    QCOMPARE(writeTableCsv(*v.runsModel(), path), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(parseCsv(QString::fromUtf8(f.readAll())).size(), steps + 1);
  }
};

QTEST_MAIN(TestDevicesView)
#include "test_devices_view.moc"
