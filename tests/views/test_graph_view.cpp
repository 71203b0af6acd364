// GraphView and EGraphView: item counts, find, exports parsed back, collapsed open of a
// 5,000-class e-graph under 2 s, expanding one group, the extracted choice in the side panel.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "engine/program/builder.h"
#include "tests/views/transformer_stack.h"
#include "engine/viz/egraph_picture.h"
#include "views/egraph_view.h"
#include "views/graph_view.h"

using namespace ks;

namespace {
// 6 nodes, 2 clusters, 5 edges; labels are unique words so exports can be searched for them.
viz::Picture smallModel() {
  viz::Picture m;
  m.clusters.push_back({"alpha", "alpha", "cluster alpha", -1, {}, false});
  m.clusters.push_back({"beta", "beta", "cluster beta", -1, {}, false});
  const char* labels[] = {"apple", "banana", "cherry", "damson", "elder", "fig"};
  for (int i = 0; i < 6; ++i) {
    viz::Node n;
    n.id = labels[i];
    n.label = std::string(labels[i]) + "\nline two";
    n.tooltip = std::string("tip ") + labels[i];
    n.subject = {viz::SubjectKind::ENode, static_cast<uint32_t>(100 + i)};
    n.cluster = i < 2 ? 0 : i < 4 ? 1 : -1;
    m.nodes.push_back(n);
  }
  for (auto [a, b] : {std::pair{0, 1}, {1, 2}, {0, 3}, {2, 4}, {3, 5}}) {
    viz::Edge e;
    e.from = a;
    e.to = b;
    m.edges.push_back(e);
  }
  return m;
}

bool waitLayout(GraphView& v, int ms = 20000) {
  QSignalSpy done(&v, &GraphView::layoutFinished);
  QSignalSpy failed(&v, &GraphView::layoutFailed);
  return done.wait(ms) || (!failed.isEmpty() ? false : !done.isEmpty());
}

QString readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}
}  // namespace

class TestGraphView : public QObject {
  Q_OBJECT
 private slots:
  void smallGraphItems() {
    GraphView v;
    v.resize(800, 600);
    v.show();
    v.setModel(smallModel());
    QVERIFY(waitLayout(v));
    QCOMPARE(v.nodeItemCount(), 6);
    QCOMPARE(v.edgeItemCount(), 5);
    QCOMPARE(v.clusterItemCount(), 2);
    QVERIFY(!v.isCollapsed());
    QCOMPARE(v.hiddenNodeCount(), 0);
    for (QGraphicsItem* it : v.scene()->items()) if (it->type() == QGraphicsItem::UserType + 1) QVERIFY(!it->toolTip().isEmpty());
  }

  void exportsParseBack() {
    GraphView v;
    v.resize(800, 600);
    v.setModel(smallModel());
    QVERIFY(waitLayout(v));
    QTemporaryDir dir;
    const QString svg = dir.filePath("g.svg"), dot = dir.filePath("g.dot"), png = dir.filePath("g.png");
    QVERIFY(v.exportAny(svg));
    QVERIFY(v.exportAny(dot));
    QVERIFY(v.exportAny(png));
    // DOT: one statement per node and per edge.
    const QString d = readAll(dot);
    QCOMPARE(d.count(QRegularExpression("^\\s*n\\d+ \\[label=", QRegularExpression::MultilineOption)), 6);
    QCOMPARE(d.count(QRegularExpression("^\\s*n\\d+ -> n\\d+", QRegularExpression::MultilineOption)), 5);
    QCOMPARE(d.count("subgraph cluster_"), 2);
    // SVG: every node label is drawn as text once; edges are the only paths in the edge colour
    // (QSvgGenerator writes one <g> with that stroke per edge draw, plus one per arrowhead).
    const QString s = readAll(svg);
    QVERIFY(s.startsWith("<?xml"));
    for (const char* w : {"apple", "banana", "cherry", "damson", "elder", "fig"}) {
      QCOMPARE(s.count(QRegularExpression(QString(">%1</text>").arg(w))), 1);
    }
    const int edgeStrokes = s.count(QRegularExpression("<g [^>]*stroke=\"#5c6770\"[^>]*>\\s*<path", QRegularExpression::MultilineOption));
    QVERIFY2(edgeStrokes == 5 || edgeStrokes == 10, qPrintable(QString::number(edgeStrokes)));
    QImage img(png);
    QVERIFY(!img.isNull());
    QVERIFY(img.width() > 100);
  }

  void findHighlightsAndCentres() {
    GraphView v;
    v.resize(400, 300);
    v.setModel(smallModel());
    QVERIFY(waitLayout(v));
    QCOMPARE(v.find("an"), 1);      // banana
    QCOMPARE(v.find("tip"), 6);     // every tooltip
    QCOMPARE(v.find("zzz"), 0);
    QVERIFY(v.statusText().contains("no match"));
    QVERIFY(v.selectSubject({viz::SubjectKind::ENode, 103}));
    QVERIFY(v.selectId("fig"));
  }

  void largeEGraphOpensCollapsedFast() {
    QElapsedTimer t;
    t.start();
    auto stack = testgen::makeTransformerStack(40);
    const Program& p = stack.program;
    QVERIFY2(p.graph.classCount() >= 5000, qPrintable(QString::number(p.graph.classCount())));
    QVERIFY(stack.alternatives > 0);
    const qint64 buildMs = t.elapsed();
    t.restart();
    GraphView v;
    v.resize(1200, 800);
    v.show();
    viz::EGraphPictureOptions opt;
    opt.outputs = p.outputClasses();
    v.setModel(viz::egraphPicture(p.graph, opt));
    QVERIFY(waitLayout(v));
    const qint64 openMs = t.elapsed();
    qInfo("%zu classes, %zu e-nodes: program built in %lld ms, opened collapsed in %lld ms", p.graph.classCount(),
          p.graph.nodeCount(), static_cast<long long>(buildMs), static_cast<long long>(openMs));
    qInfo("overview: %zu group boxes, %zu edges", v.visibleModel().nodes.size(), v.visibleModel().edges.size());
    QVERIFY2(openMs < 2000, qPrintable(QString("took %1 ms").arg(openMs)));
    QVERIFY(v.isCollapsed());
    QVERIFY(v.nodeItemCount() <= 200);
    QCOMPARE(v.nodeItemCount(), static_cast<int>(v.model().groups.size()));
    QCOMPARE(v.hiddenNodeCount(), static_cast<int>(p.graph.nodeCount()));
    QVERIFY(v.statusText().contains(QString("%1 nodes hidden").arg(p.graph.nodeCount())));
    QVERIFY(QString::fromStdString(v.model().groups.front().label).startsWith("classes %"));
    QCOMPARE(QString::fromStdString(v.model().clusters[1].label).left(4), QString("%1  "));

    // Pictures for the docs when asked (KS_SHOT_DIR).
    const QString shots = qEnvironmentVariable("KS_SHOT_DIR");
    if (!shots.isEmpty()) v.grab().save(shots + "/egraph_collapsed.png");
    // Expanding one group lays out only its members; the rest stays collapsed.
    int members = 0;
    for (int i = 0; i < static_cast<int>(v.model().nodes.size()); ++i) members += v.model().groupOfNode(i) == 3;
    t.restart();
    v.expandGroup(3);
    QVERIFY(waitLayout(v));
    qInfo("expanded a group of %d nodes in %lld ms", members, static_cast<long long>(t.elapsed()));
    QVERIFY(v.isExpanded(3));
    QCOMPARE(v.nodeItemCount(), static_cast<int>(v.model().groups.size()) - 1 + members);
    QCOMPARE(v.hiddenNodeCount(), static_cast<int>(p.graph.nodeCount()) - members);
    if (!shots.isEmpty()) {
      v.selectNode([&] {
        for (int i = 0; i < static_cast<int>(v.model().nodes.size()); ++i)
          if (v.model().groupOfNode(i) == 3) return i;
        return 0;
      }());
      v.grab().save(shots + "/egraph_expanded_group.png");
    }
    // Find reaches into collapsed groups: every group holds a node matching "f32".
    QCOMPARE(v.find("f32"), static_cast<int>(v.model().groups.size()) - 1 + members);
    v.collapseGroup(3);
    QVERIFY(waitLayout(v));
    QCOMPARE(v.nodeItemCount(), static_cast<int>(v.model().groups.size()));
  }

  void egraphViewShowsClassesAndChoice() {
    ProgramBuilder b("tiny");
    Value x = b.input("x", DType::F32, {2, 3});
    Value w = b.param("w", DType::F32, {3}, ParamInit{});
    Value y = op::relu(op::add(x, w));
    Value s = op::sum(y, {1});
    b.output("s", s);
    auto program = std::make_shared<Program>(b.finish());
    Graph& g = program->graph;
    // One kernel alternative for the reduction, chosen by a pretend extraction.
    const ClassId sc = program->outputs[0].cls;
    Node kn;
    kn.kind = NodeKind::Kernel;
    kn.in = g.structural(sc).in;
    kn.out = {sc};
    kn.device = 1;
    const NodeId alt = g.addAlternative(sc, kn);
    auto ex = std::make_shared<Extraction>();
    ClassDecision d;
    d.cls = sc;
    d.chosen = alt;
    d.alternatives = {{g.eclass(sc).nodes.front(), 0, 9000, true}, {alt, 1500, 1500, true}};
    d.why = "fastest measured";
    ex->decisions.push_back(d);
    ex->chosen[sc] = alt;

    EGraphView view(nullptr);
    view.resize(1000, 700);
    view.show();
    view.showGraph(program, ex);
    QVERIFY(waitLayout(*view.graphView()));
    QCOMPARE(view.graphView()->clusterItemCount(), static_cast<int>(g.classCount()));
    QCOMPARE(view.graphView()->nodeItemCount(), static_cast<int>(g.nodeCount()));
    int operandEdges = 0;
    for (std::size_t i = 0; i < g.nodeCount(); ++i) operandEdges += static_cast<int>(g.node(NodeId(i)).in.size());
    QCOMPARE(view.graphView()->edgeItemCount(), operandEdges);
    // The chosen node carries its cost in its label; the side panel lists both with the reason.
    QVERIFY(view.graphView()->find("cost 1.5 us") == 1);
    QCOMPARE(view.showClass(sc.v), 2);
    QTreeWidget* t = view.detailsPanel();
    QCOMPARE(t->topLevelItemCount(), 2);
    QCOMPARE(t->topLevelItem(1)->text(2), QString("fastest measured"));
    QCOMPARE(t->topLevelItem(0)->text(2), QString("alternative"));
    QCOMPARE(t->topLevelItem(0)->text(1), QString("9.00 us"));
  }
};

QTEST_MAIN(TestGraphView)
#include "test_graph_view.moc"
