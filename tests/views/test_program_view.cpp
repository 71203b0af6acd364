// ProgramView's links to the source: the cursor's line selects the class its statement made and
// the kernel the plan computes it with; a selection made elsewhere (a class, or a kernel alone)
// marks the lines it came from and moves the cursor there without selecting anything itself; an
// edited text links nothing (its lines are no longer the compiled ones).
#include <QPlainTextEdit>
#include <QTest>
#include <QTextBlock>

#include "engine/io/program_source.h"
#include "engine/session/source_links.h"
#include "tests/views/session_fixture.h"
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
};

QTEST_MAIN(TestProgramView)
#include "test_program_view.moc"
