// "Colour by" on the e-graph and plan views of samples/mlp.ks compiled at --tune none and run:
// colouring by time gives the slowest measured node the darkest fill and unmeasured nodes grey,
// the value badges and the legend show exactly viz::nodeMeasures, switching back to "none"
// restores every original brush, and no mode change moves a node or starts a layout.
#include <QComboBox>
#include <QSignalSpy>
#include <QTest>
#include <map>

#include "engine/io/program_source.h"
#include "engine/viz/node_measures.h"
#include "tests/views/session_fixture.h"
#include "views/egraph_view.h"
#include "views/graph_items.h"
#include "views/graph_view.h"
#include "views/heat_scale.h"
#include "views/overlay_controls.h"
#include "views/overlay_legend.h"
#include "views/plan_view.h"

using namespace ks;
using namespace ks::testing;

namespace {
bool waitLayout(GraphView& v, int ms = 30000) {
  if (!v.isBusy()) return v.nodeItemCount() > 0;
  QSignalSpy done(&v, &GraphView::layoutFinished);
  return done.wait(ms) || !done.isEmpty();
}
std::vector<GraphNodeItem*> nodeItems(GraphView& v) {
  std::vector<GraphNodeItem*> out;
  for (QGraphicsItem* it : v.scene()->items())
    if (it->type() == GraphNodeItem::Type) out.push_back(static_cast<GraphNodeItem*>(it));
  return out;
}
double luma(const QColor& c) { return 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF(); }

// What every node item looked like and where it was.
struct Before {
  std::map<GraphNodeItem*, QColor> fill;
  std::map<GraphNodeItem*, QPointF> pos;
  std::map<GraphNodeItem*, QRectF> rect;
};
Before remember(GraphView& v) {
  Before b;
  for (GraphNodeItem* n : nodeItems(v)) {
    b.fill[n] = n->fillColor();
    b.pos[n] = n->pos();
    b.rect[n] = n->rect();
  }
  return b;
}
}  // namespace

class TestOverlay : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> s_;

  std::vector<std::optional<viz::Measure>> expected(const viz::Picture& p) const {
    return viz::nodeMeasures(p, {s_->graph(), s_->trace().plan, s_->trace().entries, &s_->runs().back(), s_->devices(), nullptr});
  }

  // The whole check on one view's graph: time colours, values, legend, back to none, no layout.
  void checkOverlay(GraphView& g, OverlayControls& controls) {
    QVERIFY(waitLayout(g));
    QVERIFY(!g.isCollapsed());  // the MLP is small: every node has its own item
    const Before before = remember(g);
    QVERIFY(!before.fill.empty());
    QSignalSpy layouts(&g, &GraphView::layoutStarted);
    const auto want = expected(g.model());

    controls.setMetric(viz::Metric::Time);
    controls.setShowValues(true);
    GraphNodeItem* slowest = nullptr;
    double slowestNs = -1, lo = 1e300;
    int measured = 0;
    for (GraphNodeItem* n : nodeItems(g)) {
      const int i = n->ref().node;
      QVERIFY(i >= 0 && i < int(want.size()));
      if (!want[i]) {
        QCOMPARE(n->fillColor(), HeatScale::unmeasured());
        QVERIFY(!n->overlay().measured);
        QVERIFY(n->overlay().value.isEmpty());
        continue;
      }
      ++measured;
      QVERIFY(n->overlay().measured);
      QCOMPARE(n->overlay().value, formatMetric(viz::Metric::Time, want[i]->ns));
      lo = std::min(lo, want[i]->ns);
      if (want[i]->ns > slowestNs) slowestNs = want[i]->ns, slowest = n;
    }
    QVERIFY2(measured >= 2, "the MLP's run measures several nodes");
    for (GraphNodeItem* n : nodeItems(g))
      if (n != slowest && n->overlay().measured) QVERIFY(luma(slowest->fillColor()) <= luma(n->fillColor()));
    QCOMPARE(slowest->fillColor(), HeatScale::colorAt(1.0));
    QVERIFY(g.legend()->isVisibleTo(&g));
    QCOMPARE(g.legend()->minText(), formatMetric(viz::Metric::Time, lo));
    QCOMPARE(g.legend()->maxText(), formatMetric(viz::Metric::Time, slowestNs));

    // Another metric: badges follow it.
    controls.setMetric(viz::Metric::GBs);
    for (GraphNodeItem* n : nodeItems(g))
      if (const auto& m = want[n->ref().node]) QCOMPARE(n->overlay().value, formatMetric(viz::Metric::GBs, m->gbps));

    controls.setShowValues(false);
    for (GraphNodeItem* n : nodeItems(g)) QVERIFY(n->overlay().value.isEmpty());
    controls.setMetric(viz::Metric::None);
    const Before after = remember(g);
    QVERIFY(after.fill == before.fill);
    QVERIFY(after.pos == before.pos);
    QVERIFY(after.rect == before.rect);
    QVERIFY(!g.legend()->isVisibleTo(&g));
    QCOMPARE(layouts.count(), 0);
  }

 private slots:
  void initTestCase() {
    SessionOptions o;
    o.tune = TuneLevel::None;
    o.cache = "none";
    s_ = std::make_shared<Session>(loadProgramFile(KS_SOURCE_DIR "/samples/mlp.ks"), o);
    s_->run({}, true);
    QVERIFY(!s_->runs().empty());
  }

  void scaleIsLightToDark() {
    for (int i = 1; i <= 20; ++i) QVERIFY(luma(HeatScale::colorAt(i / 20.0)) < luma(HeatScale::colorAt((i - 1) / 20.0)));
    const HeatScale linear(1, 10), wide(1, 1000);
    QVERIFY(!linear.isLog() && wide.isLog());
    QCOMPARE(wide.position(1000), 1.0);
    QVERIFY(qAbs(wide.position(31.6227766) - 0.5) < 1e-6);
    QVERIFY(HeatScale().empty());
    // A 0 ns zero-copy beside microsecond kernels: still a log axis, from the smallest positive.
    const HeatScale zero = HeatScale::over({0, 1e3, 1e6});
    QVERIFY(zero.isLog() && zero.lo() == 0);
    QCOMPARE(zero.position(0), 0.0);
    QVERIFY(qAbs(zero.position(31622.7766) - 0.5) < 1e-6);
    QCOMPARE(formatMetric(viz::Metric::Time, 12345), QString("12.3 us"));
    QCOMPARE(formatMetric(viz::Metric::GBs, 4.5), QString("4.50 GB/s"));
  }

  void egraphView() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(s_));
    EGraphView v(&ctx);
    v.resize(1200, 800);
    v.sessionLoaded(*ctx.snapshot());
    checkOverlay(*v.graphView(), *v.graphView()->overlayControls());
  }

  void planView() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(s_));
    PlanView v(&ctx);
    v.resize(1200, 800);
    v.sessionLoaded(*ctx.snapshot());
    checkOverlay(*v.graphView(), *v.graphView()->overlayControls());
  }

  // The metric chosen survives a recompile (a new session), and the new picture is coloured.
  void metricSurvivesANewSession() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(s_));
    PlanView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    QVERIFY(waitLayout(*v.graphView()));
    v.graphView()->overlayControls()->setMetric(viz::Metric::Time);
    v.sessionLoaded(*ctx.snapshot());
    QVERIFY(waitLayout(*v.graphView()));
    int coloured = 0;
    for (GraphNodeItem* n : nodeItems(*v.graphView())) coloured += n->overlay().on && n->overlay().measured;
    QVERIFY(coloured > 0);
    QCOMPARE(v.graphView()->overlayControls()->combo()->currentText(), metricName(viz::Metric::Time));
  }
};

QTEST_MAIN(TestOverlay)
#include "test_overlay.moc"
