// Smoke test of the app's path on every .ks sample: compile (no tuning), step the Fusion view,
// run with verification, show the outputs, save the session and reopen it with the same views.
#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QLabel>
#include <QtTest>

#include "engine/io/program_source.h"
#include "engine/session/session.h"
#include "views/fusion_view.h"
#include "views/graph_view.h"
#include "views/output_view.h"

using namespace ks;

class TestAppSamples : public QObject {
  Q_OBJECT
 private slots:
  void samples_data() {
    QTest::addColumn<QString>("file");
    const QStringList files = QDir(KS_SOURCE_DIR "/samples").entryList({"*.ks"}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 5);
    for (const QString& f : files) QTest::newRow(qPrintable(f)) << f;
  }

  void samples() {
    QFETCH(QString, file);
    QElapsedTimer clock;
    clock.start();
    SessionOptions o;
    o.tune = TuneLevel::None;
    o.cache = "none";
    auto s = std::make_shared<Session>(loadProgramFile((QString(KS_SOURCE_DIR "/samples/") + file).toStdString()), o);
    s->runTo(Stage::Planned);
    // The view opens on the plan's run; when GEMMs compute the whole plan that run fused nothing
    // (matmul_chain), and the steps are those of the run before AOT matching.
    const CompileTrace& ct = s->trace();
    FusionView fusion(nullptr);
    fusion.showTrace(s);
    QCOMPARE(fusion.currentRun(), ct.planRun);
    QCOMPARE(fusion.stepCount(), static_cast<int>(ct.shownRun()->trace.steps.size()));
    const int shownRun = fusion.stepCount() > 0 ? ct.planRun : 0;
    if (fusion.stepCount() == 0) {
      QVERIFY(ct.shownRun()->afterAot);
      QVERIFY(!fusion.banner()->isHidden());
      fusion.showRun(0);
    }
    const FusionTrace& t = ct.fusionRuns.at(static_cast<std::size_t>(shownRun)).trace;
    QVERIFY(t.error.empty());
    QCOMPARE(fusion.stepCount(), static_cast<int>(t.steps.size()));
    QVERIFY(fusion.stepCount() > 0);
    // Step through a few places (every step is checked in test_fusion_view on softmax).
    for (int n : {0, fusion.stepCount() / 2, fusion.stepCount() - 1}) {
      fusion.setStep(n);
      QCOMPARE(fusion.currentStep(), n);
      QCOMPARE(fusion.drawnKernelCount(), static_cast<int>(t.stateAfter(n + 1).size()));
    }

    const RunRecord& run = s->run({}, true);
    QVERIFY(run.verified);
    QVERIFY(run.verifyPassed);
    OutputView out(nullptr);
    out.showSession(s);
    QCOMPARE(out.summaryModel()->rowCount(), static_cast<int>(run.outputs.size()));

    QTemporaryDir dir;
    const std::string path = (dir.path() + "/s.kss.json").toStdString();
    s->save(path);
    auto reopened = std::make_shared<Session>(Session::load(path));
    QVERIFY(!reopened->live());
    FusionView fusion2(nullptr);
    fusion2.showTrace(reopened);
    QCOMPARE(fusion2.currentRun(), ct.planRun);
    fusion2.showRun(shownRun);
    QCOMPARE(fusion2.stepCount(), fusion.stepCount());
    fusion2.setStep(fusion.stepCount() / 2);
    QCOMPARE(fusion2.drawnKernelCount(), static_cast<int>(t.stateAfter(fusion.stepCount() / 2 + 1).size()));
    OutputView out2(nullptr);
    out2.showSession(reopened);
    QCOMPARE(out2.summaryModel()->rowCount(), out.summaryModel()->rowCount());
    for (int r = 0; r < out.summaryModel()->rowCount(); ++r)
      for (int c = 0; c < OutputSummaryModel::ColumnCount; ++c)
        QCOMPARE(out2.summaryModel()->data(out2.summaryModel()->index(r, c), Qt::DisplayRole),
                 out.summaryModel()->data(out.summaryModel()->index(r, c), Qt::DisplayRole));
    qInfo("%s: %d steps, %zu kernels, %lld ms", qPrintable(file), fusion.stepCount(), s->trace().kernels.size(),
          static_cast<long long>(clock.elapsed()));
  }
};

QTEST_MAIN(TestAppSamples)
#include "test_app_samples.moc"
