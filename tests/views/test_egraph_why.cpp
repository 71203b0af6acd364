// EGraphView's "why this plan" panel: the numbers explain-plan gives for a class, off the GUI thread.
#include <QLabel>
#include <QTreeWidget>
#include <QtTest>
#include <cmath>

#include "engine/session/plan_explanation.h"
#include "tests/views/session_fixture.h"
#include "views/egraph_view.h"
#include "views/plan_why_panel.h"

using namespace ks;
using namespace ks::testing;

class TestEGraphWhy : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> s_;

  static QTreeWidgetItem* row(EGraphView& v, PlanWhyPanel::Row r) { return v.whyPanel()->table()->topLevelItem(r); }

 private slots:
  void initTestCase() { s_ = sampleSession("mlp.ks"); }

  // The output's chosen producer, runner-up and the cost without it, as explainPlan computes them.
  void showsExplainPlansNumbers() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(s_));
    EGraphView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const ClassId out = s_->graph().find(s_->program().outputClasses()[0]);
    const PlanExplanation e = explainPlan(*s_, out);
    v.showClass(out.v);
    QTRY_COMPARE(v.whyPanel()->table()->topLevelItemCount(), static_cast<int>(PlanWhyPanel::RowCount));
    QVERIFY(!v.whyPanel()->table()->isHidden());
    QCOMPARE(row(v, PlanWhyPanel::Chosen)->text(PlanWhyPanel::Producer), "#" + QString::number(e.chosen.v) + " " + QString::fromStdString(e.chosenLabel));
    QCOMPARE(row(v, PlanWhyPanel::Chosen)->text(PlanWhyPanel::OwnMs), planMs(e.chosenNs));
    QCOMPARE(row(v, PlanWhyPanel::Chosen)->text(PlanWhyPanel::TreeMs), planMs(e.chosenTreeNs));
    if (e.runnerUp.valid()) {
      QVERIFY(row(v, PlanWhyPanel::RunnerUp)->text(PlanWhyPanel::Producer).startsWith("#" + QString::number(e.runnerUp.v) + " "));
      QCOMPARE(row(v, PlanWhyPanel::RunnerUp)->text(PlanWhyPanel::OwnMs), planMs(e.runnerUpNs));
      QCOMPARE(row(v, PlanWhyPanel::RunnerUp)->text(PlanWhyPanel::TreeMs), planMs(e.runnerUpTreeNs));
    }
    const QString without = row(v, PlanWhyPanel::Without)->text(PlanWhyPanel::Producer);
    QVERIFY2(without.contains(planMs(e.dagNs)), qPrintable(without));
    if (std::isfinite(e.withoutNs)) QCOMPARE(row(v, PlanWhyPanel::Without)->text(PlanWhyPanel::OwnMs), planMs(e.withoutNs));
    QVERIFY(v.whyPanel()->header()->text().contains(QString::fromStdString(e.why)));
    // The shared selection asks too.
    const ClassId leaf = s_->program().inputs.empty() ? s_->program().params.at(0).cls : s_->program().inputs[0].cls;
    Selection sel;
    sel.eclass = leaf.v;
    v.selectionChanged(sel);
    QTRY_VERIFY(v.whyPanel()->header()->text().contains("leaf"));
    QVERIFY(v.whyPanel()->table()->isHidden());
  }

  // A session opened from a file cannot extract again: the panel says so instead of waiting.
  void aLoadedSessionSaysWhyNot() {
    auto loaded = std::make_shared<Session>(Session::fromJson(s_->toJson()));
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(loaded));
    EGraphView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    v.showClass(loaded->program().outputClasses()[0].v);
    QVERIFY(v.whyPanel()->header()->text().contains("from a file"));
    QCOMPARE(ctx.queries().inFlight(), 0);
  }
};

QTEST_MAIN(TestEGraphWhy)
#include "test_egraph_why.moc"
