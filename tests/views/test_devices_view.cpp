// DevicesView on a real comparison of softmax.ks: host, the first OpenCL device (PoCL here), and
// the compiled session's own selection, each compiled and run by the engine. Checks the selection
// rows and the compare request, the comparison rows and columns, the speed-ups and % of peak
// (recomputed here from the entries' run records), the baseline choice, the chart, CSV.
#include <QComboBox>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <set>

#include "engine/devices/device_peaks.h"
#include "tests/require_opencl.h"
#include "tests/views/session_fixture.h"
#include "views/devices_view.h"
#include "views/table_export.h"

using namespace ks;
using namespace ks::testing;

namespace {
// The step label without " on <device>", as a user reads a kernel's row.
std::string kernelOf(const StepTiming& st) {
  const std::string on = " on " + st.device;
  const std::size_t p = st.label.rfind(on);
  return p != std::string::npos && p + on.size() == st.label.size() ? st.label.substr(0, p) : st.label;
}
}  // namespace

class TestDevicesView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> session_;
  std::shared_ptr<DeviceComparison> comparison_;
  std::vector<DeviceInfo> found_;
  std::string opencl_;  // the first OpenCL device

  SessionSnapshot snapshot() const {
    SessionSnapshot s = snapshotOf(session_);
    s.comparison = comparison_;
    s.devicesFound = found_;
    return s;
  }
  // Sum of the entry's step times with this kernel label (copies together as "copies").
  static double nsOf(const ComparisonEntry& e, const std::string& label) {
    double ns = 0;
    for (const StepTiming& st : e.run.steps)
      if ((st.kind == "copy" || st.kind == "zero-copy" ? std::string("copies") : kernelOf(st)) == label) ns += st.ns;
    return ns;
  }

 private slots:
  void initTestCase() {
    found_ = discoverDevices();
    fillPeaks(found_);
    for (const DeviceInfo& d : found_)
      if (d.compiles() && opencl_.empty()) opencl_ = d.name;
    if (opencl_.empty()) KS_SKIP_WITHOUT_OPENCL();
    session_ = sampleSession();
    SessionOptions o = session_->options();
    comparison_ = std::make_shared<DeviceComparison>();
    comparison_->programKey = session_->program().cacheKey();
    comparison_->programName = "softmax";
    const Program program = loadProgramFile(KS_SOURCE_DIR "/samples/softmax.ks");
    for (const std::string& sel : {std::string("host"), opencl_}) {
      const ComparisonEntry e = measureSelection(program, o, sel, 2);
      QVERIFY2(e.error.empty(), e.error.c_str());
      QCOMPARE(e.repeats, 2);
      QVERIFY(e.run.verified && e.run.verifyPassed);
      comparison_->add(e);
    }
    std::string own;
    for (const DeviceInfo& d : session_->devices()) own += (own.empty() ? "" : ",") + d.name;
    comparison_->add(comparisonEntryOf(*session_, own));
    QCOMPARE(comparison_->entries.size(), own == opencl_ ? std::size_t(2) : std::size_t(3));
  }

  void selectionsAndCompareRequest() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshot());
    DevicesView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    // host, then each OpenCL device alone and with openblas (when openblas is there).
    QStringList expected;
    bool blas = false;
    for (const DeviceInfo& d : found_) blas = blas || d.kind == DeviceKind::OpenBlas;
    expected << "host";
    for (const DeviceInfo& d : found_)
      if (d.kind == DeviceKind::OpenCL) {
        expected << QString::fromStdString(d.name);
        if (blas) expected << QString::fromStdString(d.name) + ",openblas";
      }
    QCOMPARE(v.devicesModel()->rowCount(), expected.size());
    QCOMPARE(v.checkedSelections(), expected);  // every selection ticked at first
    // Peaks shown for the OpenCL device: the measured figure.
    const int oclRow = int(expected.indexOf(QString::fromStdString(opencl_)));
    QVERIFY(v.devicesModel()->item(oclRow, 5)->data(Qt::UserRole + 1).toDouble() > 0);

    QSignalSpy spy(&v, &DevicesView::compareRequested);
    v.devicesModel()->item(0, 0)->setCheckState(Qt::Unchecked);
    expected.removeFirst();
    QCOMPARE(v.checkedSelections(), expected);
    QVERIFY(v.compareButton()->isEnabled());
    v.compareButton()->click();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toStringList(), expected);
    // A refresh (new comparison) keeps the user's ticks.
    v.comparisonChanged(*ctx.snapshot());
    QCOMPARE(v.checkedSelections(), expected);
    // Selecting the OpenCL row selects that device of the session.
    v.devicesTable()->selectRow(oclRow);
    const auto& devs = session_->devices();
    for (std::size_t i = 0; i < devs.size(); ++i)
      if (devs[i].name == opencl_) QCOMPARE(ctx.selection().device, std::optional<uint32_t>(uint32_t(i)));
  }

  void comparisonRowsAndRatios() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshot());
    DevicesView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const auto& entries = comparison_->entries;
    // Rows: the kernels of every entry (copies and zero-copy steps together), then "copies" if any,
    // then "total".
    std::vector<std::string> labels;
    bool copies = false;
    for (const ComparisonEntry& e : entries)
      for (const StepTiming& st : e.run.steps) {
        if (st.kind == "copy" || st.kind == "zero-copy") copies = true;
        else if (std::find(labels.begin(), labels.end(), kernelOf(st)) == labels.end()) labels.push_back(kernelOf(st));
      }
    if (copies) labels.push_back("copies");
    labels.push_back("total");
    QStandardItemModel* m = v.comparisonModel();
    QCOMPARE(m->rowCount(), int(labels.size()));
    QCOMPARE(m->columnCount(), 2 + DevicesView::kColumnsPerSelection * int(entries.size()));
    // The host ran the reference executor only: its row, and nothing on the kernel rows.
    const int hostCol = 2;
    int refRow = -1;
    for (int r = 0; r < m->rowCount(); ++r)
      if (m->item(r, 0)->text().startsWith("reference executor")) refRow = r;
    QVERIFY(refRow >= 0);
    QVERIFY(!m->item(refRow, hostCol)->text().isEmpty());
    QVERIFY(m->item(0, hostCol)->text().isEmpty() || refRow == 0);

    // Total speed-ups against the slowest total, from the run records.
    double slowest = 0;
    for (const ComparisonEntry& e : entries) slowest = std::max(slowest, e.run.totalNs);
    const int total = m->rowCount() - 1;
    QCOMPARE(m->item(total, 0)->text(), QString("total"));
    for (std::size_t ei = 0; ei < entries.size(); ++ei) {
      const int col = 2 + int(ei) * DevicesView::kColumnsPerSelection;
      QVERIFY(qAbs(m->item(total, col)->data(Qt::UserRole + 1).toDouble() - entries[ei].run.totalNs / 1e3) < 1e-9);
      QVERIFY(qAbs(m->item(total, col)->data(Qt::UserRole + 2).toDouble() - slowest / entries[ei].run.totalNs) < 1e-9);
    }
    // Per kernel, against the slowest selection that ran it; and % of peak on the OpenCL device.
    std::size_t oclIdx = 0;
    for (std::size_t ei = 0; ei < entries.size(); ++ei)
      if (entries[ei].selection == opencl_) oclIdx = ei;
    DeviceInfo oclInfo;
    for (const DeviceInfo& d : entries[oclIdx].devices)
      if (d.name == opencl_) oclInfo = d;
    QVERIFY(oclInfo.peakGflops > 0 && oclInfo.peakGBs > 0);
    int checkedPct = 0;
    for (int r = 0; r + 1 < m->rowCount(); ++r) {
      const std::string label = labels[std::size_t(r)];
      const int col = 2 + int(oclIdx) * DevicesView::kColumnsPerSelection;
      // "vs slowest": the slowest selection that ran this row.
      double base = 0;
      for (const ComparisonEntry& e : entries) base = std::max(base, nsOf(e, label));
      const double ns = nsOf(entries[oclIdx], label);
      if (ns <= 0) continue;
      QVERIFY(qAbs(m->item(r, col)->data(Qt::UserRole + 1).toDouble() - ns / 1e3) < 1e-9);
      QVERIFY(qAbs(m->item(r, col)->data(Qt::UserRole + 2).toDouble() - (base > 0 ? base / ns : 0.0)) < 1e-9);
      if (label == "copies") continue;
      double flops = 0, bytes = 0;
      for (const StepTiming& st : entries[oclIdx].run.steps)
        if (kernelOf(st) == label) flops += st.gflops * st.ns, bytes += st.gbps * st.ns;
      if (flops > 0) {
        QVERIFY(qAbs(m->item(r, col + 1)->data(Qt::UserRole + 2).toDouble() - 100 * flops / ns / oclInfo.peakGflops) < 1e-9);
        ++checkedPct;
      }
      if (bytes > 0) QVERIFY(qAbs(m->item(r, col + 2)->data(Qt::UserRole + 2).toDouble() - 100 * bytes / ns / oclInfo.peakGBs) < 1e-9);
    }
    QVERIFY(checkedPct > 0);

    // Baseline: the OpenCL selection; the host total's speed-up is then ocl / host.
    const int bi = v.baselineBox()->findData(QString::fromStdString(opencl_));
    QVERIFY(bi > 0);
    v.baselineBox()->setCurrentIndex(bi);
    std::size_t hostIdx = 0;
    for (std::size_t ei = 0; ei < entries.size(); ++ei)
      if (entries[ei].selection == "host") hostIdx = ei;
    QVERIFY(qAbs(m->item(total, 2 + int(hostIdx) * DevicesView::kColumnsPerSelection)->data(Qt::UserRole + 2).toDouble() -
                 entries[oclIdx].run.totalNs / entries[hostIdx].run.totalNs) < 1e-9);

    // Chart: one bar per row and selection.
    QCOMPARE(v.chartBarCount(), int(labels.size() * entries.size()));
    if (!qEnvironmentVariableIsEmpty("KS_SCREENSHOT_DIR")) {
      v.resize(1100, 750);
      v.show();
      QTest::qWait(200);
      v.grab().save(qEnvironmentVariable("KS_SCREENSHOT_DIR") + "/devices_view.png");
    }
    // CSV: the table's rows plus the header, as the engine's own CSV has.
    QTemporaryDir dir;
    const QString path = dir.filePath("device_comparison.csv");
    QCOMPARE(writeTableCsv(*m, path), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QStringList> csv = parseCsv(QString::fromUtf8(f.readAll()));
    QCOMPARE(csv.size(), int(labels.size()) + 1);
    QCOMPARE(csv.last().first(), QString("total"));
    QCOMPARE(csv.first().size(), m->columnCount());
    QCOMPARE(parseCsv(QString::fromStdString(comparison_->csv())).size(), int(labels.size()) + 1);
  }

  void closedAndEmpty() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshot());
    DevicesView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    v.sessionClosed();
    QCOMPARE(v.comparisonModel()->rowCount(), 0);
    QCOMPARE(v.devicesModel()->rowCount(), 0);
    QCOMPARE(v.chartBarCount(), 0);
    // A snapshot with no comparison yet: selections offered, no table.
    SessionSnapshot s = snapshot();
    s.comparison.reset();
    v.sessionLoaded(s);
    QVERIFY(v.devicesModel()->rowCount() > 0);
    QCOMPARE(v.comparisonModel()->rowCount(), 0);
  }
};

QTEST_MAIN(TestDevicesView)
#include "test_devices_view.moc"
