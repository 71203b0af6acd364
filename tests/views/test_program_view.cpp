// ProgramView's links to the source: the cursor's line selects the class its statement made and
// the kernel the plan computes it with; a selection made elsewhere (a class, or a kernel alone)
// marks the lines it came from and moves the cursor there without selecting anything itself; an
// edited text links nothing (its lines are no longer the compiled ones). An ONNX model shows its
// node tree instead of the text, linked the same two ways.
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QTest>
#include <QTextBlock>
#include <QTreeView>

#include "engine/io/program_source.h"
#include "engine/session/source_links.h"
#include "tests/views/session_fixture.h"
#include "views/onnx_node_tree.h"
#include "views/program_view.h"

using namespace ks;
using namespace ks::testing;

namespace {
const char* kText =
    "# links.ks\n"
    "input x: f32[4, 8]\n"
    "param w: f32[8, 3] = normal(std=0.1, seed=1)\n"
    "h = relu(x @ w)\n"
    "y = softmax(h, axis=-1) * 2.0\n"
    "output y\n";

void moveToLine(QPlainTextEdit* e, int line) {
  e->setTextCursor(QTextCursor(e->document()->findBlockByNumber(line - 1)));
}
}  // namespace

class TestProgramView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> session_;
  SessionSnapshot snap_;

 private slots:
  void initTestCase() {
    SessionOptions o;
    o.tune = TuneLevel::None;
    o.cache = "none";
    session_ = std::make_shared<Session>(parseKs(kText, "links.ks"), o);
    session_->runTo(Stage::Planned);
    snap_ = snapshotOf(session_);
    snap_.source = QString::fromUtf8(kText);
  }

  void cursorLineSelectsWhatItMade() {
    RecordingContext ctx;
    ctx.setSnapshot(snap_);
    ProgramView v(&ctx);
    v.sessionLoaded(snap_);
    QCOMPARE(ctx.selects, 0);  // loading the text selects nothing
    moveToLine(v.editor(), 5);
    QCOMPARE(ctx.selects, 1);
    const ClassId y = session_->program().outputs[0].cls;
    QCOMPARE(ctx.selection().eclass, std::optional<uint32_t>(session_->graph().find(y).v));
    const auto k = kernelComputing(*session_, y);
    QVERIFY(k.has_value());  // the softmax is a fused kernel of the plan
    QCOMPARE(ctx.selection().kernel, std::optional<uint32_t>(uint32_t(*k)));
    QCOMPARE(v.linkedLines(), (std::vector<int>{5}));
    moveToLine(v.editor(), 1);  // a comment made nothing
    QCOMPARE(ctx.selects, 1);
  }

  void selectionElsewhereMarksItsLines() {
    RecordingContext ctx;
    ctx.setSnapshot(snap_);
    ProgramView v(&ctx);
    v.sessionLoaded(snap_);
    const ClassId h = session_->program().places.classesAtLine(session_->graph(), 4).back();
    Selection s;
    s.eclass = h.v;
    v.selectionChanged(s);
    QCOMPARE(v.linkedLines(), (std::vector<int>{4}));
    QCOMPARE(v.editor()->textCursor().blockNumber() + 1, 4);  // scrolled to it
    QCOMPARE(ctx.selects, 0);  // following a selection selects nothing
    // A kernel alone: the lines of every class it computes.
    for (std::size_t k = 0; k < session_->trace().kernels.size(); ++k) {
      Selection ks;
      ks.kernel = uint32_t(k);
      v.selectionChanged(ks);
      QCOMPARE(v.linkedLines(), sourceLines(*session_, classesOfKernel(*session_, k)));
    }
    QCOMPARE(ctx.selects, 0);
  }

  void editedTextLinksNothing() {
    RecordingContext ctx;
    ctx.setSnapshot(snap_);
    ProgramView v(&ctx);
    v.sessionLoaded(snap_);
    moveToLine(v.editor(), 2);
    v.editor()->insertPlainText("# a new line\n");
    const int before = ctx.selects;
    moveToLine(v.editor(), 5);
    QCOMPARE(ctx.selects, before);
    Selection s;
    s.eclass = session_->program().outputs[0].cls.v;
    v.selectionChanged(s);
    QVERIFY(v.linkedLines().empty());
  }

  // LeNet as PyTorch exported it: the nodes sit under their scopes (/c1/Conv under c1), a node
  // selects the class of its result and the kernel or GEMM computing it, a class chosen elsewhere
  // selects its node, and the filter keeps matching nodes with their scopes.
  void onnxModelShowsItsNodes() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    auto session = sampleSession("onnx/cnn.onnx");
    SessionSnapshot snap = snapshotOf(session);
    RecordingContext ctx;
    ctx.setSnapshot(snap);
    ProgramView v(&ctx);
    v.sessionLoaded(snap);
    QVERIFY(v.showsOnnxNodes());
    OnnxNodeTree* tree = v.onnxNodes();
    const Program& p = session->program();
    QCOMPARE(tree->nodeCount(), int(p.onnxNodes.size()));
    QCOMPARE(ctx.selects, 0);
    // Scope c1 holds the first convolution; /Relu sits at the top.
    QSortFilterProxyModel* m = tree->proxy();
    QStringList top;
    for (int r = 0; r < m->rowCount(); ++r) top << m->index(r, OnnxNodeTree::Name).data().toString();
    QVERIFY2(top.contains("c1") && top.contains("Relu") && top.contains("f3"), qPrintable(top.join(",")));
    const QModelIndex c1 = m->index(int(top.indexOf("c1")), 0);
    QCOMPARE(m->rowCount(c1), 1);
    QCOMPARE(m->index(0, OnnxNodeTree::Name, c1).data().toString(), QString("Conv"));
    QCOMPARE(m->index(0, OnnxNodeTree::Type, c1).data().toString(), QString("f32[16, 6, 28, 28]"));
    QCOMPARE(m->index(int(top.indexOf("c1")), OnnxNodeTree::Type).data().toString(), QString("1 node"));

    // Choosing the last node (LogSoftmax) selects the program's output class and its kernel.
    const int last = int(p.onnxNodes.size()) - 1;
    const QModelIndex logSoftmax = m->index(int(top.indexOf("LogSoftmax")), 0);
    QVERIFY(logSoftmax.isValid());
    tree->view()->setCurrentIndex(logSoftmax);
    QCOMPARE(ctx.selects, 1);
    const ClassId out = session->graph().find(p.outputs[0].cls);
    QCOMPARE(tree->resultClass(last), out);
    QCOMPARE(ctx.selection().eclass, std::optional<uint32_t>(out.v));
    const auto k = kernelComputing(*session, out);
    QVERIFY(k.has_value());
    QCOMPARE(ctx.selection().kernel, std::optional<uint32_t>(uint32_t(*k)));

    // A class selected elsewhere (the first conv's result) selects its node and emits nothing.
    Selection s;
    s.eclass = tree->resultClass(0).v;
    v.selectionChanged(s);
    QCOMPARE(tree->selectedNode(), std::optional<int>(0));
    QCOMPARE(ctx.selects, 1);
    s.eclass.reset();
    v.selectionChanged(s);
    QCOMPARE(tree->selectedNode(), std::nullopt);

    // The filter reads the whole name and the op type: "Gemm" keeps f1, f2, f3 and their nodes.
    tree->setFilter("gemm");
    QCOMPARE(m->rowCount(), 3);
    for (int r = 0; r < 3; ++r) QCOMPARE(m->rowCount(m->index(r, 0)), 1);
    tree->setFilter("");
    QCOMPARE(m->rowCount(), int(top.size()));
  }
};

QTEST_MAIN(TestProgramView)
#include "test_program_view.moc"
