// PlanView on a real softmax session: one row per plan step, memory text from the plan, one bar
// per timed step of the last run in one lane per device, a launch row selects its kernel, CSV.
#include <QFile>
#include <QLabel>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <set>

#include "tests/views/session_fixture.h"
#include "engine/session/session_pictures.h"
#include "views/graph_view.h"
#include "views/plan_view.h"
#include "views/table_export.h"

using namespace ks;
using namespace ks::testing;

class TestPlanView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> session_;

 private slots:
  void initTestCase() {
    session_ = sampleSession();
    QVERIFY(!session_->trace().plan.steps.empty());
    QVERIFY(!session_->runs().empty());
  }

  void rowsMemoryTimeline() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    PlanView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const ExecPlan& plan = session_->trace().plan;
    QCOMPARE(v.model()->rowCount(), int(plan.steps.size()));
    for (int r = 0; r < v.model()->rowCount(); ++r)
      QCOMPARE(v.model()->item(r, 2)->text(), QString::fromStdString(plan.steps[r].label));
    QVERIFY(v.memoryLabel()->text().contains(QString("%1 steps").arg(plan.steps.size())));
    const RunRecord& run = session_->runs().back();
    QCOMPARE(v.timelineBars(), int(run.steps.size()));
    std::set<std::string> devs;
    for (const StepTiming& s : run.steps) devs.insert(s.device);
    QCOMPARE(v.timelineLanes(), int(devs.size()));
    // The plan graph: launches and copies of computed values (not uploads of bound inputs), and
    // the outputs; an edge per computed buffer a drawn step reads, one into each output node.
    std::set<uint32_t> produced;
    std::size_t drawn = 0, reads = 0;
    for (const PlanStep& st : plan.steps) {
      if (st.kind == PlanStep::Kind::Copy && !produced.count(st.inputs[0])) continue;
      ++drawn;
      for (uint32_t in : st.inputs) reads += produced.count(in);
      for (uint32_t o : st.outputs) produced.insert(o);
    }
    std::size_t outs = 0;
    for (const auto& o : plan.outputs) outs += produced.count(o.second);
    const viz::Picture gm = planPictureOf(*session_);
    QCOMPARE(gm.nodes.size(), drawn + outs);
    QCOMPARE(gm.edges.size(), reads + outs);
    QVERIFY(gm.clusters.empty());
    QCOMPARE(v.graphView()->model().nodes.size(), gm.nodes.size());
    if (!qEnvironmentVariableIsEmpty("KS_SCREENSHOT_DIR")) {
      v.resize(1100, 600);
      v.show();
      QTest::qWait(200);
      v.grab().save(qEnvironmentVariable("KS_SCREENSHOT_DIR") + "/plan_view.png");
    }
  }

  // The last run's step times sit beside the predictions; steps off by more than 2x are marked
  // with a reason, and the memory line carries the run's totals.
  void measuredBesidePredicted() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    PlanView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const RunRecord& run = session_->runs().back();
    QCOMPARE(v.model()->columnCount(), 8);
    QCOMPARE(v.gap().steps.size(), run.steps.size());
    for (int r = 0; r < v.model()->rowCount(); ++r) {
      QCOMPARE(v.model()->item(r, 6)->text(), QString::number(run.steps[r].ns / 1e3, 'f', 2));
      const StepGap& g = v.gap().steps[r];
      QCOMPARE(v.model()->item(r, 7)->toolTip().isEmpty(), g.reason.empty());
      QCOMPARE(v.model()->item(r, 6)->background().style() != Qt::NoBrush, g.flagged);
    }
    QVERIFY2(v.memoryLabel()->text().contains("run: steps measured"), qPrintable(v.memoryLabel()->text()));
  }

  void launchSelectsKernel() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    PlanView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const CompileTrace& t = session_->trace();
    int row = -1;
    for (std::size_t i = 0; i < t.plan.steps.size() && row < 0; ++i)
      if (t.plan.steps[i].kind == PlanStep::Kind::Launch && t.entries[t.plan.steps[i].kernel].kind == KernelEntry::Kind::Fused)
        row = int(i);
    QVERIFY(row >= 0);
    v.table()->selectRow(row);
    const KernelEntry& e = t.entries[t.plan.steps[row].kernel];
    QCOMPARE(ctx.selection().kernel, std::optional<uint32_t>(e.fused));
    QCOMPARE(ctx.selection().device, std::optional<uint32_t>(t.plan.steps[row].device));
    // Following: selecting that kernel elsewhere highlights its launch without selecting back.
    v.table()->clearSelection();
    const int before = ctx.selects;
    Selection s;
    s.kernel = e.fused;
    v.selectionChanged(s);
    QCOMPARE(v.table()->currentIndex().row(), row);
    QCOMPARE(ctx.selects, before);
  }

  void csv() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    PlanView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    QTemporaryDir dir;
    const QString path = dir.filePath("plan.csv");
    QCOMPARE(writeTableCsv(*v.model(), path), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QStringList> rows = parseCsv(QString::fromUtf8(f.readAll()));
    QCOMPARE(rows.size(), int(session_->trace().plan.steps.size()) + 1);
    QCOMPARE(rows[1][2], QString::fromStdString(session_->trace().plan.steps[0].label));
  }
};

QTEST_MAIN(TestPlanView)
#include "test_plan_view.moc"
