// The real main window (offscreen) opens every session of the session fuzz corpus
// (fuzz/corpus/session: the samples' sessions, hand-edited ones and what the fuzzer kept): each one
// either loads, and every view draws it with a class, a kernel and a fusion step selected, or is
// refused with a message; the window never dies and still opens a good session afterwards.
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/gui/main_window.h"

using namespace ks;

namespace {
bool waitIdle(MainWindow& w, int ms = 60000) {
  QTest::qWait(20);
  QElapsedTimer t;
  t.start();
  while (w.isBusy() && t.elapsed() < ms) QTest::qWait(10);
  return !w.isBusy();
}

// Every view paints the session: each central tab and dock raised and grabbed.
void drawEveryView(MainWindow& w) {
  for (int i = 0; i < w.centralTabs()->count(); ++i) {
    w.centralTabs()->setCurrentIndex(i);
    (void)w.grab();
  }
  for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
    d->show();
    d->raise();
    (void)d->grab();
  }
}
}  // namespace

class TestLongSessionCorpus : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("KernelscopeTest");
    QCoreApplication::setApplicationName("KernelscopeCorpusTest");
    QSettings().clear();
  }
  void cleanupTestCase() { QSettings().clear(); }

  void opensEverySessionOfTheCorpus() {
    const QDir corpus(QString(KS_SOURCE_DIR) + "/fuzz/corpus/session");
    const QStringList files = corpus.entryList(QDir::Files, QDir::Name);
    QVERIFY2(files.size() >= 10, qPrintable(corpus.path()));
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QTemporaryDir dir;
    int loaded = 0, refused = 0;
    for (const QString& name : files) {
      // The window tells a session by its suffix; libFuzzer names files by their hash.
      const QString path = dir.filePath(name + ".kss.json");
      QVERIFY(QFile::copy(corpus.filePath(name), path));
      w.openFile(path);
      QVERIFY2(waitIdle(w), qPrintable(name));
      const SessionSnapshot* s = w.controller().snapshot();
      if (!w.lastError().isEmpty()) {
        ++refused;
        continue;
      }
      QVERIFY2(s && s->session, qPrintable(name));
      ++loaded;
      Selection sel;
      if (s->session->graph().classCount() > 0) sel.eclass = 0;
      if (!s->session->trace().kernels.empty()) sel.kernel = 0;
      if (const KernelizerRun* r = s->session->trace().shownRun(); r && !r->trace.steps.empty()) sel.fusionStep = 0;
      w.controller().select(sel, nullptr);
      QVERIFY2(waitIdle(w), qPrintable(name));
      drawEveryView(w);
      QFile::remove(path);
    }
    qInfo("%lld sessions: %d opened, %d refused with a message", static_cast<long long>(files.size()), loaded, refused);
    QVERIFY(loaded >= 1);
    // Still usable: the committed fixture opens.
    w.openFile(QString(KS_SOURCE_DIR) + "/tests/data/sessions/softmax.kss.json");
    QVERIFY(waitIdle(w));
    QVERIFY2(w.lastError().isEmpty(), qPrintable(w.lastError()));
  }
};

QTEST_MAIN(TestLongSessionCorpus)
#include "test_long_session_corpus.moc"
