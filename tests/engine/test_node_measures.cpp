// nodeMeasures on a real compiled and run session (samples/mlp.ks, --tune none): every plan step
// and every e-node a plan step ran carries exactly the run's step timing.
#include <QtTest>

#include "engine/io/program_source.h"
#include "engine/session/session.h"
#include "engine/session/session_pictures.h"
#include "engine/viz/node_measures.h"

using namespace ks;

class TestNodeMeasures : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> s_;

  viz::MeasureSources sources() const {
    return {s_->graph(), s_->trace().plan, s_->trace().entries, &s_->runs().back(), s_->devices(), nullptr};
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

  void planStepsMatchTheRun() {
    const viz::Picture p = planPictureOf(*s_);
    const auto m = viz::nodeMeasures(p, sources());
    const RunRecord& run = s_->runs().back();
    int checked = 0;
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
      if (p.nodes[i].subject.kind != viz::SubjectKind::PlanStep) continue;
      const StepTiming& t = run.steps[p.nodes[i].subject.id];
      QVERIFY(m[i].has_value());
      QCOMPARE(*viz::metricValue(*m[i], viz::Metric::Time), t.ns);
      QCOMPARE(*viz::metricValue(*m[i], viz::Metric::GBs), t.gbps);
      QCOMPARE(*viz::metricValue(*m[i], viz::Metric::GFlops), t.gflops);
      ++checked;
    }
    QVERIFY(checked > 0);
  }

  void planNodesOfTheEGraphMatchTheRun() {
    const viz::Picture p = egraphPictureOf(*s_);
    const auto m = viz::nodeMeasures(p, sources());
    const ExecPlan& plan = s_->trace().plan;
    const RunRecord& run = s_->runs().back();
    int checked = 0;
    for (std::size_t st = 0; st < plan.steps.size(); ++st) {
      if (!plan.steps[st].node.valid()) continue;
      const int i = p.findSubject({viz::SubjectKind::ENode, plan.steps[st].node.v});
      if (i < 0) continue;
      QVERIFY(m[i] && m[i]->fromRun);
      QCOMPARE(m[i]->ns, run.steps[st].ns);
      ++checked;
    }
    QVERIFY(checked > 0);
    // Nodes no one measured (leaves, plain ops) have no value.
    for (std::size_t i = 0; i < p.nodes.size(); ++i)
      if (p.nodes[i].style == viz::Style::Leaf) QVERIFY(!m[i]);
  }
};

QTEST_GUILESS_MAIN(TestNodeMeasures)
#include "test_node_measures.moc"
