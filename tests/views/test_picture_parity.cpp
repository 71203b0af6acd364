// The GUI draws the pictures the CLI exports: for one saved session (a stack of transformer
// blocks, large enough that its e-graph opens collapsed), the scene of the e-graph view (closed
// and with a group open), of the fusion view at a step and of the plan view holds exactly the
// nodes and edges that `kernelscope-cli export --format json` lists as visible.
#include <QFile>
#include <QGraphicsScene>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <set>
#include <tuple>

#include "engine/io/program_source.h"
#include "engine/session/session.h"
#include "tests/views/session_fixture.h"
#include "views/egraph_view.h"
#include "views/fusion_view.h"
#include "views/graph_items.h"
#include "views/graph_view.h"
#include "views/plan_view.h"

using namespace ks;

namespace {
// What is drawn: nodes by (id, label) — group boxes included —, open groups' frames by id, edges
// by (from, to, count).
struct Drawn {
  std::multiset<std::pair<QString, QString>> nodes;
  std::multiset<QString> frames;
  std::multiset<std::tuple<QString, QString, int>> edges;
};

Drawn drawnIn(GraphView* v) {
  Drawn d;
  for (QGraphicsItem* it : v->scene()->items()) {
    if (it->type() == GraphNodeItem::Type) {
      auto* n = static_cast<GraphNodeItem*>(it);
      d.nodes.insert({n->id(), n->label()});
    } else if (it->type() == GraphClusterItem::Type && static_cast<GraphClusterItem*>(it)->isGroup()) {
      d.frames.insert(static_cast<GraphClusterItem*>(it)->id());
    } else if (it->type() == GraphEdgeItem::Type) {
      auto* e = static_cast<GraphEdgeItem*>(it);
      d.edges.insert({e->from(), e->to(), e->count()});
    }
  }
  return d;
}

// The visible part of an exported picture; a group frame is a node that has members.
Drawn drawnIn(const QJsonObject& picture) {
  Drawn d;
  const QJsonObject visible = picture["visible"].toObject();
  std::set<QString> openGroups;
  for (const QJsonValue& g : picture["groups"].toArray())
    if (g["open"].toBool()) openGroups.insert(g["id"].toString());
  for (const QJsonValue& n : visible["nodes"].toArray()) {
    const QString id = n["id"].toString();
    if (openGroups.count(id)) d.frames.insert(id);
    else d.nodes.insert({id, n["label"].toString()});
  }
  for (const QJsonValue& e : visible["edges"].toArray())
    d.edges.insert({e["from"].toString(), e["to"].toString(), e["count"].toInt()});
  return d;
}

bool waitLayout(GraphView* v) {
  if (!v->isBusy()) return true;
  QSignalSpy done(v, &GraphView::layoutFinished);
  QElapsedTimer t;
  t.start();
  const bool ok = done.wait(120000);
  qInfo("layout %lld ms", static_cast<long long>(t.elapsed()));
  return ok;
}

void compareDrawn(const Drawn& gui, const Drawn& cli) {
  QCOMPARE(gui.nodes.size(), cli.nodes.size());
  QCOMPARE(gui.frames, cli.frames);
  QCOMPARE(gui.edges.size(), cli.edges.size());
  QVERIFY(gui.nodes == cli.nodes);
  QVERIFY(gui.edges == cli.edges);
}
}  // namespace

class TestPictureParity : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString sessionPath_;
  std::shared_ptr<Session> session_;  // loaded back from the file, as File > Open does

  QJsonObject exported(const QStringList& args) {
    const QString out = dir_.filePath("picture.json");
    QProcess cli;
    cli.start(KS_CLI_PATH, QStringList{"export", sessionPath_, "--format", "json", "--out", out} + args);
    if (!cli.waitForFinished(120000) || cli.exitCode() != 0) {
      qWarning("%s", cli.readAllStandardError().constData());
      return {};
    }
    QFile f(out);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
  }

 private slots:
  void initTestCase() {
    SessionOptions o;
    o.tune = TuneLevel::None;
    o.cache = "none";
    Session compiled(loadProgramFile(KS_SOURCE_DIR "/samples/transformer_stack.ks"), o);
    compiled.runTo(Stage::Planned);
    sessionPath_ = dir_.filePath("stack.kss.json");
    compiled.save(sessionPath_.toStdString());
    session_ = std::make_shared<Session>(Session::load(sessionPath_.toStdString()));
  }

  void egraphCollapsedAndWithAGroupOpen() {
    testing::RecordingContext ctx;
    ctx.setSnapshot(testing::snapshotOf(session_));
    EGraphView view(&ctx);
    view.resize(1200, 800);
    view.sessionLoaded(*ctx.snapshot());
    GraphView* g = view.graphView();
    QVERIFY(waitLayout(g));
    QVERIFY(g->isCollapsed());  // the stack is large: groups
    const QJsonObject closed = exported({"--view", "egraph"});
    QVERIFY(closed["collapsed"].toBool());
    QCOMPARE(closed["nodes"].toArray().size(), static_cast<qsizetype>(g->model().nodes.size()));
    QCOMPARE(closed["edges"].toArray().size(), static_cast<qsizetype>(g->model().edges.size()));
    compareDrawn(drawnIn(g), drawnIn(closed));
    QVERIFY(drawnIn(g).frames.empty());

    g->expandGroup(3);
    QVERIFY2(waitLayout(g), qPrintable(g->statusText()));
    QVERIFY(g->isExpanded(3));
    const QJsonObject open = exported({"--view", "egraph", "--expand", "g3"});
    const Drawn gui = drawnIn(g);
    compareDrawn(gui, drawnIn(open));
    QCOMPARE(gui.frames.size(), std::size_t(1));
    QVERIFY(gui.nodes.size() > drawnIn(closed).nodes.size());
  }

  void fusionStateAtAStep() {
    testing::RecordingContext ctx;
    FusionView view(&ctx);
    view.resize(1200, 800);
    view.showTrace(session_);
    const int step = view.stepCount() / 2;
    QVERIFY(step > 0);
    view.setStep(step);
    // The step's picture comes from the query worker, then the graph lays it out.
    const std::string title = "after step " + std::to_string(step) + ":";
    QVERIFY(QTest::qWaitFor([&] { return view.graphView()->model().title.rfind(title, 0) == 0; }, 30000));
    QVERIFY(waitLayout(view.graphView()));
    const QJsonObject cli = exported({"--view", "fusion", "--step", QString::number(step)});
    QVERIFY(cli["title"].toString().startsWith(QString("after step %1:").arg(step)));
    const Drawn gui = drawnIn(view.graphView());
    QVERIFY(!gui.nodes.empty());
    compareDrawn(gui, drawnIn(cli));
  }

  void plan() {
    testing::RecordingContext ctx;
    ctx.setSnapshot(testing::snapshotOf(session_));
    PlanView view(&ctx);
    view.resize(1200, 800);
    view.sessionLoaded(*ctx.snapshot());
    QVERIFY(waitLayout(view.graphView()));
    const QJsonObject cli = exported({"--view", "plan"});
    const Drawn gui = drawnIn(view.graphView());
    QVERIFY(gui.nodes.size() > 10);
    compareDrawn(gui, drawnIn(cli));
  }
};

QTEST_MAIN(TestPictureParity)
#include "test_picture_parity.moc"
