// KernelView on a real softmax session: every kernel listed, the winner offered first, the texts
// equal to what the engine prints/generates for that kernel and schedule, selection both ways,
// the highlighter marks OpenCL keywords.
#include <QComboBox>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>

#include "tests/views/session_fixture.h"
#include "views/kernel_view.h"

using namespace ks;
using namespace ks::testing;

class TestKernelView : public QObject {
  Q_OBJECT
  std::shared_ptr<Session> session_;

 private slots:
  void initTestCase() {
    session_ = sampleSession();
    QVERIFY(session_->trace().kernels.size() >= 2);
  }

  void kernelsAndWinnerFirst() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    KernelView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const CompileTrace& t = session_->trace();
    QCOMPARE(v.kernelBox()->count(), int(t.kernels.size()));
    // From the last kernel down so every step changes the combo (it starts at kernel 0).
    for (uint32_t k = uint32_t(t.kernels.size()); k-- > 0;) {
      v.kernelBox()->setCurrentIndex(int(k));
      QCOMPARE(ctx.selection().kernel, std::optional<uint32_t>(k));
      const uint32_t dev = v.deviceBox()->currentData().toUInt();
      const TuneSearch* search = nullptr;
      for (const TuneSearch& s : t.searches)
        if (s.kernel == k && s.device == dev) search = &s;
      QVERIFY(search);
      QCOMPARE(v.scheduleBox()->currentData().toString(), QString::fromStdString(search->winner));
      // Every distinct measured schedule is offered (plus "default" when it was not measured).
      std::set<std::string> measured{"default"};
      for (const TuneMeasurement& m : t.measurements)
        if (m.kernel == k && m.device == dev) measured.insert(m.schedule);
      QCOMPARE(v.scheduleBox()->count(), int(measured.size()));
      // Texts are exactly the engine's.
      QCOMPARE(v.irText()->toPlainText(), QString::fromStdString(t.kernels[k].fused.kernel.print()));
      std::string lowered;
      const std::string src = session_->kernelSource(k, search->winner, &lowered);
      QTRY_COMPARE(v.sourceText()->toPlainText(), QString::fromStdString(src));  // from the query worker
      QCOMPARE(v.loweredText()->toPlainText(), QString::fromStdString(lowered));
      QVERIFY(src.find("__kernel") != std::string::npos);
    }
  }

  void otherScheduleChangesSource() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    KernelView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const int last = v.scheduleBox()->count() - 1;
    QVERIFY(last >= 1);
    v.scheduleBox()->setCurrentIndex(last);
    const std::string sched = v.scheduleBox()->currentData().toString().toStdString();
    QTRY_COMPARE(v.sourceText()->toPlainText(),
                 QString::fromStdString(session_->kernelSource(uint32_t(v.kernelBox()->currentIndex()), sched)));
  }

  void followsSelection() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    KernelView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    const int before = ctx.selects;
    Selection s;
    s.kernel = uint32_t(session_->trace().kernels.size() - 1);
    v.selectionChanged(s);
    QCOMPARE(v.kernelBox()->currentIndex(), int(*s.kernel));
    QCOMPARE(ctx.selects, before);  // following does not select back
    QCOMPARE(v.irText()->toPlainText(), QString::fromStdString(session_->trace().kernels[*s.kernel].fused.kernel.print()));
  }

  // Lowering and emission run on the query worker: the view shows a placeholder, then the text;
  // asking again for a kernel and schedule already shown is answered from the cache at once.
  void sourceComesFromTheWorkerAndIsCached() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    KernelView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    QVERIFY(v.sourceText()->toPlainText().startsWith("/* generating"));
    QTRY_VERIFY(v.sourceText()->toPlainText().contains("__kernel"));
    const QString first = v.sourceText()->toPlainText();
    v.kernelBox()->setCurrentIndex(1);
    QTRY_VERIFY(v.sourceText()->toPlainText().contains("__kernel") && v.sourceText()->toPlainText() != first);
    const int shown = v.sourcesShown();
    v.kernelBox()->setCurrentIndex(0);
    QCOMPARE(v.sourcesShown(), shown + 1);  // no wait: cached
    QCOMPARE(v.sourceText()->toPlainText(), first);
  }

  void highlighting() {
    RecordingContext ctx;
    ctx.setSnapshot(snapshotOf(session_));
    KernelView v(&ctx);
    v.sessionLoaded(*ctx.snapshot());
    // The block holding "__kernel" has a bold format range starting at that keyword.
    QTRY_VERIFY(v.sourceText()->toPlainText().contains("__kernel"));
    const QTextDocument* doc = v.sourceText()->document();
    bool found = false;
    for (QTextBlock b = doc->begin(); b.isValid() && !found; b = b.next()) {
      const int at = b.text().indexOf("__kernel");
      if (at < 0) continue;
      for (const QTextLayout::FormatRange& r : b.layout()->formats())
        if (r.start == at && r.length == 8 && r.format.fontWeight() == QFont::Bold) found = true;
    }
    QVERIFY(found);
    if (!qEnvironmentVariableIsEmpty("KS_SCREENSHOT_DIR")) {
      v.resize(1000, 650);
      v.show();
      QTest::qWait(200);
      v.grab().save(qEnvironmentVariable("KS_SCREENSHOT_DIR") + "/kernel_view.png");
    }
  }
};

QTEST_MAIN(TestKernelView)
#include "test_kernel_view.moc"
