// FusionView on a real compiled Session of a column softmax (tests/data/softmax_columns.ks): stepping, drawn state, why-not-fused.
#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QtTest>

#include "engine/io/program_source.h"
#include "engine/session/session.h"
#include "views/fusion_view.h"
#include "views/graph_view.h"

using namespace ks;

namespace {
class Ctx : public SessionContext {
 public:
  const SessionSnapshot* snapshot() const override { return nullptr; }
  const Selection& selection() const override { return sel; }
  void select(const Selection& s, SessionView*) override { sel = s; }
  void compileSource(const QString&, const QString&) override {}
  QueryRunner& queries() override { return runner; }
  Selection sel;
  QueryRunner runner;
};

std::shared_ptr<Session> softmaxSession() {
  SessionOptions o;
  o.tune = TuneLevel::None;
  o.cache = "none";
  auto s = std::make_shared<Session>(loadProgramFile(KS_SOURCE_DIR "/tests/data/softmax_columns.ks"), o);
  s->run({}, true);
  return s;
}
}  // namespace

class TestFusionView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> session_;

 private slots:
  void initTestCase() { session_ = softmaxSession(); }

  void stepsAndKeys() {
    Ctx ctx;
    FusionView v(&ctx);
    v.showTrace(session_);
    const FusionTrace& t = session_->trace().fusion.trace;
    QVERIFY(t.steps.size() >= 3);
    QCOMPARE(v.stepCount(), static_cast<int>(t.steps.size()));
    QCOMPARE(v.stepModel()->rowCount(), static_cast<int>(t.steps.size()));
    QCOMPARE(v.currentStep(), v.stepCount() - 1);  // opens on the final state
    v.first();
    QCOMPARE(v.currentStep(), 0);
    QCOMPARE(ctx.sel.fusionStep, std::optional<uint32_t>(0));
    v.next();
    QCOMPARE(v.currentStep(), 1);
    v.prev();
    v.prev();  // clamps at 0
    QCOMPARE(v.currentStep(), 0);
    QTest::keyClick(&v, Qt::Key_Right);
    QCOMPARE(v.currentStep(), 1);
    QTest::keyClick(v.stepTable(), Qt::Key_Right);  // the table passes the arrow keys on
    QCOMPARE(v.currentStep(), 2);
    QTest::keyClick(&v, Qt::Key_Left);
    QCOMPARE(v.currentStep(), 1);
    QTest::keyClick(&v, Qt::Key_End);
    QCOMPARE(v.currentStep(), v.stepCount() - 1);
    QTest::keyClick(&v, Qt::Key_Home);
    QCOMPARE(v.currentStep(), 0);
    QCOMPARE(v.slider()->value(), 0);
    v.slider()->setValue(2);
    QCOMPARE(v.currentStep(), 2);
    QCOMPARE(v.stepTable()->currentIndex().row(), 2);
    // The shared selection moves the view too.
    Selection s;
    s.fusionStep = 1;
    v.selectionChanged(s);
    QCOMPARE(v.currentStep(), 1);
    QVERIFY(v.banner()->isHidden());  // softmax kernelizes without a violation
  }

  void drawnStateMatchesTrace() {
    Ctx ctx;
    FusionView v(&ctx);
    v.showTrace(session_);
    const FusionTrace& t = session_->trace().fusion.trace;
    for (int n = 0; n < v.stepCount(); ++n) {
      v.setStep(n);
      const TraceState st = t.stateAfter(n + 1);
      QCOMPARE(v.drawnKernelCount(), static_cast<int>(st.size()));
      // Every class computed or loaded in the state is drawn once per kernel holding it.
      std::size_t nodes = 0;
      for (const auto& [id, k] : st) nodes += k.classes.size() + k.loads.size();
      QCOMPARE(v.graphView()->model().nodes.size(), nodes);
      // What the step changed is highlighted.
      int highlighted = 0;
      for (const auto& c : v.graphView()->model().clusters) highlighted += c.highlighted;
      QCOMPARE(highlighted, static_cast<int>(t.steps[n].diff.set.size()));
    }
  }

  void whyNotFused() {
    Ctx ctx;
    FusionView v(&ctx);
    v.showTrace(session_);
    const Separation expect = session_->trace().fusion.trace.explainSeparation(ClassId(1), ClassId(5), &session_->graph());
    QSignalSpy answered(&v, &FusionView::explained);
    v.explain(1, 5);
    QVERIFY(v.answer()->text().startsWith("Explaining"));  // the worker answers, not this thread
    QVERIFY(answered.wait(10000));
    const Separation got = answered.front().front().value<Separation>();
    QCOMPARE(got.sameKernel, expect.sameKernel);
    QCOMPARE(got.step, expect.step);
    QVERIFY(!got.sameKernel);
    QVERIFY(got.step >= 0);
    QVERIFY2(v.answer()->text().startsWith("%1 and %5: different kernels"), qPrintable(v.answer()->text()));
    QVERIFY(v.answer()->text().contains(QString("Step %1").arg(got.step)));
    v.first();
    v.jumpToExplained();
    QCOMPARE(v.currentStep(), got.step);
  }

  void errorRowAndBanner() {
    // A trace that stopped on a violation: the row is red and the banner names it.
    auto s = std::make_shared<Session>(Session::fromJson(session_->toJson()));  // a reopened session
    auto& tr = const_cast<FusionTrace&>(s->trace().fusion.trace);
    tr.error = "kernel K1 stores class 4 twice";
    tr.errorStep = 2;
    Ctx ctx;
    FusionView v(&ctx);
    v.showTrace(s);
    QCOMPARE(v.stepModel()->errorRow(), 2);
    QCOMPARE(v.currentStep(), 2);  // opens at the violation
    QVERIFY(!v.banner()->isHidden());
    QVERIFY(v.banner()->text().contains("stores class 4 twice"));
    QCOMPARE(v.stepModel()->data(v.stepModel()->index(2, 1), Qt::BackgroundRole).value<QColor>(), QColor("#ffc9c9"));
    QVERIFY(!v.stepModel()->data(v.stepModel()->index(1, 1), Qt::BackgroundRole).isValid());
  }

  // Not a check: with KS_FUSION_SCREENSHOT=<file.png> (run under Xvfb) draws transformer.ks at a
  // middle step for docs/screenshots/fusion.png.
  void screenshot() {
    const QString out = qEnvironmentVariable("KS_FUSION_SCREENSHOT");
    if (out.isEmpty()) QSKIP("KS_FUSION_SCREENSHOT not set");
    SessionOptions o;
    o.tune = TuneLevel::None;
    o.cache = "none";
    auto s = std::make_shared<Session>(loadProgramFile(KS_SOURCE_DIR "/samples/transformer.ks"), o);
    s->runTo(Stage::Planned);
    Ctx ctx;
    FusionView v(&ctx);
    v.resize(1500, 820);
    v.show();
    v.showTrace(s);
    const int step = qEnvironmentVariableIntValue("KS_FUSION_STEP");
    v.setStep(step > 0 ? step : v.stepCount() / 2);
    v.explain(1, 5);
    QTRY_VERIFY_WITH_TIMEOUT(!v.graphView()->isBusy(), 60000);
    QTest::qWait(200);
    v.graphView()->fitReadable();
    QTest::qWait(100);
    QVERIFY(v.grab().save(out));
  }
};

QTEST_MAIN(TestFusionView)
#include "test_fusion_view.moc"
