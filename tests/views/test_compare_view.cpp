// The Compare view on two real sessions of samples/mlp.ks, compiled at --tune none and --tune
// quick on the OpenCL device: its kernel table lists exactly the kernels the engine's diff says changed (matched by
// structural hash), its plan table the changed steps, and the plan graphs mark those steps on
// both sides; a pending or failed comparison leaves nothing stale.
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QtTest>
#include <set>

#include "engine/session/diff_marks.h"
#include "engine/session/session_diff.h"
#include "tests/views/session_fixture.h"
#include "views/compare_view.h"
#include "views/diff_kernels_model.h"
#include "views/diff_steps_model.h"
#include "views/graph_view.h"
#include "views/plan_view.h"

using namespace ks;
using namespace ks::testing;

namespace {
// On the OpenCL device alone: the matmuls are fused kernels, whose untuned default schedule
// loses to any tuned one by far (with openblas, the two plans may well coincide).
std::shared_ptr<Session> mlp(TuneLevel level) {
  SessionOptions o;
  o.devices = "opencl:0:0";
  o.tune = level;
  o.budgetCount = 3;
  o.cache = "none";
  auto s = std::make_shared<Session>(loadProgramFile(KS_SOURCE_DIR "/samples/mlp.ks"), o);
  s->run({}, false);
  return s;
}
bool waitLaidOut(GraphView& g) { return QTest::qWaitFor([&g] { return !g.isBusy() && g.nodeItemCount() > 0; }, 60000); }
}  // namespace

class TestCompareView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> a_, b_;
  std::shared_ptr<const SessionDiff> diff_;

  SessionPair pair() const { return SessionPair{"tune quick", false, a_, b_, diff_, QString()}; }

 private slots:
  void initTestCase() {
    a_ = mlp(TuneLevel::None);
    b_ = mlp(TuneLevel::Quick);
    diff_ = std::make_shared<SessionDiff>(diffSessions(*a_, *b_, "none", "quick"));
  }

  void listsTheChangedKernels() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(a_));
    CompareView v(&ctx);
    v.resize(1000, 700);
    v.sessionLoaded(*ctx.snapshot());
    QCOMPARE(v.kernelsModel()->rowCount(), 0);
    v.sessionsDiffed(pair());

    std::set<std::string> changed;  // what the engine's diff says changed, by kernel name
    for (const DiffKernel& k : diff_->kernels)
      if (kernelChangeOf(k) != KernelChange::Same) changed.insert(k.name());
    // Tuning picks other schedules than the untuned default for some of the MLP's kernels.
    QVERIFY2(!changed.empty(), "tune none and tune quick chose the same schedule for every kernel");
    QCOMPARE(v.kernelsModel()->rowCount(), int(diff_->kernels.size()));
    // "Changed only" (the default) lists those and no others.
    QSortFilterProxyModel* shown = v.kernelsShown();
    QCOMPARE(shown->rowCount(), int(changed.size()));
    std::set<std::string> listed;
    for (int r = 0; r < shown->rowCount(); ++r) {
      listed.insert(shown->index(r, DiffKernelsModel::Kernel).data().toString().toStdString());
      QVERIFY(shown->index(r, DiffKernelsModel::Status).data().toString() != "same");
    }
    QVERIFY(listed == changed);
    // A changed kernel shows both times and where its schedule went.
    for (int r = 0; r < v.kernelsModel()->rowCount(); ++r) {
      const DiffKernel* k = v.kernelsModel()->row(r);
      if (kernelChangeOf(*k) != KernelChange::Changed) continue;
      const QModelIndex where = v.kernelsModel()->index(r, DiffKernelsModel::Where);
      QVERIFY(where.data().toString().contains(QString::fromStdString(k->scheduleB)));
      QCOMPARE(v.kernelsModel()->index(r, DiffKernelsModel::TimeB).data().toString(), QString::number(*k->nsB / 1e3, 'f', 2));
    }
    v.setChangedOnly(false);
    QCOMPARE(shown->rowCount(), int(diff_->kernels.size()));

    const std::size_t stepRows = diff_->plan.changed.size() + diff_->plan.onlyA.size() + diff_->plan.onlyB.size();
    QCOMPARE(v.stepsModel()->rowCount(), int(stepRows));
    QVERIFY(v.summary()->text().contains("tune quick"));
    QVERIFY(v.tabs()->tabText(0).contains(QString::number(changed.size())));
  }

  // The changed plan steps are marked in A's plan graph (the Plan view) and in B's (the dock).
  void marksChangedSteps() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(a_));
    PlanView plan(&ctx);
    plan.resize(1200, 800);
    plan.sessionLoaded(*ctx.snapshot());
    CompareView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    plan.sessionsDiffed(pair());
    v.sessionsDiffed(pair());
    QVERIFY(waitLaidOut(*plan.graphView()));
    QVERIFY(waitLaidOut(*v.planB()));
    auto count = [](const std::vector<std::string>& status, const char* s) {
      return int(std::count(status.begin(), status.end(), std::string(s)));
    };
    QCOMPARE(plan.graphView()->markedItemCount(DiffMark::Changed), count(diff_->stepStatusA, "changed"));
    QCOMPARE(plan.graphView()->markedItemCount(DiffMark::Removed), count(diff_->stepStatusA, "only_a"));
    QCOMPARE(v.planB()->markedItemCount(DiffMark::Changed), count(diff_->stepStatusB, "changed"));
    QCOMPARE(v.planB()->markedItemCount(DiffMark::Added), count(diff_->stepStatusB, "only_b"));
    QVERIFY(plan.graphView()->markedItemCount(DiffMark::Changed) > 0);

    // Another session shown: the marks were of the old one.
    plan.sessionLoaded(*ctx.snapshot());
    QVERIFY(waitLaidOut(*plan.graphView()));
    QCOMPARE(plan.graphView()->markedItemCount(DiffMark::Changed), 0);
  }

  void pendingAndFailedLeaveNothingStale() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(a_));
    CompareView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    v.sessionsDiffed(pair());
    QVERIFY(v.kernelsModel()->rowCount() > 0);
    SessionPair pending{"rewrite none", true, nullptr, nullptr, nullptr, QString()};
    v.sessionsDiffed(pending);
    QCOMPARE(v.kernelsModel()->rowCount(), 0);
    QVERIFY(v.summary()->text().contains("rewrite none"));
    v.sessionsDiffed(SessionPair{"rewrite none", false, nullptr, nullptr, nullptr, "cancelled"});
    QVERIFY(v.summary()->text().contains("cancelled"));
    QCOMPARE(v.stepsModel()->rowCount(), 0);
    QCOMPARE(v.planB()->nodeItemCount(), 0);
  }
};

QTEST_MAIN(TestCompareView)
#include "test_compare_view.moc"
