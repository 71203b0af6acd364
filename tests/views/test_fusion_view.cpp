// FusionView on a real compiled Session of a column softmax (tests/data/softmax_columns.ks): stepping, drawn state, why-not-fused.
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QtTest>
#include <map>

#include "engine/io/program_source.h"
#include "engine/session/session.h"
#include "engine/session/kernelizer_run.h"
#include "views/fusion_view.h"
#include "views/graph_items.h"
#include "views/graph_view.h"
#include "views/layout_worker.h"

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

// Node id -> where its item is drawn: in the scene, and in the view's viewport.
struct Places {
  std::map<QString, QRectF> scene;
  std::map<QString, QPoint> screen;
  QString selected;
};
Places placesOf(GraphView& g) {
  Places p;
  for (QGraphicsItem* it : g.scene()->items()) {
    if (it->type() != GraphNodeItem::Type) continue;
    auto* n = static_cast<GraphNodeItem*>(it);
    p.scene[n->id()] = n->rect();
    p.screen[n->id()] = g.mapFromScene(n->rect().center());
    if (n->isSelected()) p.selected = n->id();
  }
  return p;
}

// Pictures are built on the query worker: waits until the graph shows the state after `step`.
bool drawn(FusionView& v, int step) {
  const std::string title = "after step " + std::to_string(step) + ":";
  return QTest::qWaitFor([&] { return v.graphView()->model().title.rfind(title, 0) == 0 && !v.graphView()->isBusy(); }, 30000);
}

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
    const FusionTrace& t = session_->trace().shownRun()->trace;
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
    const FusionTrace& t = session_->trace().shownRun()->trace;
    for (int n = 0; n < v.stepCount(); ++n) {
      v.setStep(n);
      QVERIFY(drawn(v, n));
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
    const Separation expect = session_->trace().shownRun()->trace.explainSeparation(ClassId(1), ClassId(5), &session_->graph());
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

  // Every kernelizer run is listed (candidate term, before or after AOT matching, kernel count);
  // the view opens on the run the plan's kernels come from, and a run chosen from the list shows
  // its own trace, drawn with its term's forms.
  void listsRunsOpeningOnThePlans() {
    SessionOptions o;
    o.devices = "opencl:0:0,openblas";
    o.tune = TuneLevel::None;
    o.cache = "none";
    o.rewrite.mode = RewriteMode::Default;
    auto s = std::make_shared<Session>(parseKs("input a: f32[32, 32]\ninput b: f32[32, 32]\ninput v: f32[32, 4]\n"
                                               "y = exp(a @ b @ (v * 1))\noutput y\n", "chain.ks"), o);
    s->runTo(Stage::Planned);
    const CompileTrace& t = s->trace();
    QVERIFY(t.fusionRuns.size() >= 3);
    QVERIFY(t.planRun >= 0);
    Ctx ctx;
    FusionView v(&ctx);
    v.showTrace(s);
    QCOMPARE(v.runBox()->count(), static_cast<int>(t.fusionRuns.size()));
    QVERIFY(v.runBox()->isEnabled());
    QCOMPARE(v.currentRun(), t.planRun);
    QCOMPARE(v.runBox()->currentIndex(), t.planRun);
    for (int i = 0; i < v.runBox()->count(); ++i) {
      const KernelizerRun& r = t.fusionRuns[static_cast<std::size_t>(i)];
      const QString text = v.runBox()->itemText(i);
      QVERIFY2(text.contains(QString::fromStdString(runTitle(r))) && text.contains(QString::number(r.kernels.size()) + " kernels"),
               qPrintable(text));
      QCOMPARE(text.contains("the plan's"), i == t.planRun);
    }
    QCOMPARE(v.stepCount(), static_cast<int>(t.shownRun()->trace.steps.size()));
    // Another run from the list: its steps, opened on its final state.
    const int other = t.planRun == 0 ? 1 : 0;
    v.runBox()->setCurrentIndex(other);
    const FusionTrace& ot = t.fusionRuns[static_cast<std::size_t>(other)].trace;
    QCOMPARE(v.currentRun(), other);
    QCOMPARE(v.stepCount(), static_cast<int>(ot.steps.size()));
    QCOMPARE(v.currentStep(), v.stepCount() - 1);
    if (!ot.steps.empty()) {
      QVERIFY(drawn(v, v.currentStep()));
      QCOMPARE(v.drawnKernelCount(), static_cast<int>(ot.finalState().size()));
    }
    // A run of another term draws each class with its own term's e-node.
    for (std::size_t i = 0; i < t.fusionRuns.size(); ++i) {
      const KernelizerRun& r = t.fusionRuns[i];
      if (r.forms.empty() || r.trace.steps.empty()) continue;
      v.showRun(static_cast<int>(i));
      QCOMPARE(v.runBox()->currentIndex(), static_cast<int>(i));
      QVERIFY(drawn(v, v.currentStep()));
      int checked = 0;
      for (auto [cls, node] : r.forms)
        for (const viz::Node& n : v.graphView()->model().nodes)
          if (n.id == "c" + std::to_string(cls)) {
            QVERIFY2(n.label.find(s->graph().node(NodeId(node)).label()) != std::string::npos, n.label.c_str());
            ++checked;
          }
      QVERIFY(checked > 0);
      return;
    }
    QFAIL("no run of a term with forms of its own");
  }

  void errorRowAndBanner() {
    // A trace that stopped on a violation: the row is red and the banner names it.
    auto s = std::make_shared<Session>(Session::fromJson(session_->toJson()));  // a reopened session
    auto& tr = const_cast<FusionTrace&>(s->trace().shownRun()->trace);
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

  // Every step is drawn in one layout of all the steps' nodes: a node shown at two steps is at
  // the same place in the scene and on screen, the selected node too, and stepping runs no layout.
  void positionsStayAcrossSteps() {
    Ctx ctx;
    FusionView v(&ctx);
    v.resize(1200, 800);
    v.show();
    v.showTrace(session_);
    GraphView* g = v.graphView();
    QTRY_VERIFY_WITH_TIMEOUT(v.frame() && g->isFramed() && drawn(v, v.stepCount() - 1), 60000);
    QVERIFY(v.frame()->nodes.size() >= g->model().nodes.size());
    const int before = LayoutWorker::instance().pending();
    // Select a class computed at the last step; it stays selected and in place while stepping.
    QString chosen;
    for (const viz::Node& n : g->model().nodes)
      if (n.id.rfind("c", 0) == 0 && n.id.find('@') == std::string::npos) chosen = QString::fromStdString(n.id);
    QVERIFY(!chosen.isEmpty());
    Selection sel;
    sel.eclass = chosen.mid(1).toUInt();
    v.selectionChanged(sel);
    Places prev = placesOf(*g);
    QCOMPARE(prev.selected, chosen);
    int common = 0, selectedSeen = 0;
    for (int step = v.stepCount() - 2; step >= 0; --step) {
      v.setStep(step);
      QVERIFY(drawn(v, step));
      QVERIFY(g->isFramed());
      const Places now = placesOf(*g);
      for (const auto& [id, rect] : now.scene) {
        auto it = prev.scene.find(id);
        if (it == prev.scene.end()) continue;
        ++common;
        QCOMPARE(rect, it->second);
        QCOMPARE(now.screen.at(id), prev.screen.at(id));
      }
      if (now.scene.count(chosen)) {
        ++selectedSeen;
        QCOMPARE(now.selected, chosen);
      }
      prev = now;
    }
    QVERIFY(common > 0);
    QVERIFY(selectedSeen > 0);
    QCOMPARE(LayoutWorker::instance().pending(), before);
  }
};

QTEST_MAIN(TestFusionView)
#include "test_fusion_view.moc"
