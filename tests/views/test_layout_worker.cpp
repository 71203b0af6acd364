// LayoutWorker: layouts run off the GUI thread, in order, and a cancelled layout is discarded.
#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include "views/layout_worker.h"

using namespace ks;

namespace {
// A chain of n boxes, and a wide one that keeps Graphviz busy for a while.
LayoutInput chain(int n) {
  LayoutInput m;
  for (int i = 0; i < n; ++i) {
    m.sizes.push_back(QSizeF(60, 20));
    m.cluster.push_back(-1);
    if (i > 0) m.edges.push_back({i - 1, i, 1});
  }
  return m;
}
LayoutInput heavy() {
  LayoutInput m = chain(300);
  for (int i = 0; i + 7 < 300; i += 2) m.edges.push_back({i, i + 7, 1});
  return m;
}
}  // namespace

class TestLayoutWorker : public QObject {
  Q_OBJECT
 private slots:
  void heavyTakesAWhile() {
    // The cancellation tests rely on this layout keeping the worker busy for a measurable time.
    QObject receiver;
    LayoutResult got;
    bool done = false;
    LayoutWorker::instance().request(heavy(), &receiver, [&](const LayoutResult& r) {
      got = r;
      done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 30000);
    qInfo("heavy layout: %.1f ms", got.milliseconds);
    QVERIFY(got.layout);
    QVERIFY(got.milliseconds > 30);
  }

  void layoutRunsOffGuiThread() {
    QObject receiver;
    LayoutResult got;
    bool done = false;
    LayoutWorker::instance().request(chain(5), &receiver, [&](const LayoutResult& r) {
      got = r;
      done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QVERIFY2(got.layout, qPrintable(got.error));
    QVERIFY(got.thread != QThread::currentThreadId());
    QCOMPARE(got.layout->nodeRects.size(), std::size_t(5));
    QCOMPARE(got.layout->edges.size(), std::size_t(4));
    // Top to bottom, y downward: each node of the chain lies below its predecessor, and every
    // edge starts near its source and ends (arrow tip) at the top of its target.
    for (int i = 1; i < 5; ++i) QVERIFY(got.layout->nodeRects[i].top() > got.layout->nodeRects[i - 1].bottom());
    for (const auto& e : got.layout->edges) {
      const QRectF from = got.layout->nodeRects[e.edge], to = got.layout->nodeRects[e.edge + 1];
      QVERIFY(e.hasArrow);
      QVERIFY(qAbs(e.path.pointAtPercent(0).y() - from.bottom()) < 2.0);
      QVERIFY(qAbs(e.arrowTip.y() - to.top()) < 2.0);
      QVERIFY(from.contains(QPointF(from.center().x(), from.bottom() - 0.5)));
    }
    QVERIFY(got.layout->bounds.contains(got.layout->nodeRects[4]));
  }

  void clustersGetRects() {
    LayoutInput m = chain(4);
    m.clusterCount = 1;
    m.cluster[1] = 0;
    m.cluster[2] = 0;
    QObject receiver;
    std::shared_ptr<const GraphLayout> l;
    LayoutWorker::instance().request(m, &receiver, [&](const LayoutResult& r) { l = r.layout; });
    QTRY_VERIFY_WITH_TIMEOUT(l != nullptr, 10000);
    QVERIFY(l->clusterRects[0].contains(l->nodeRects[1]));
    QVERIFY(l->clusterRects[0].contains(l->nodeRects[2]));
    QVERIFY(!l->clusterRects[0].contains(l->nodeRects[0]));
  }

  void cancelledLayoutIsDiscarded() {
    QObject receiver;
    int heavyDone = 0, cancelledDone = 0, lastDone = 0;
    std::vector<int> order;
    // The heavy job occupies the worker while the next one is queued and then cancelled.
    LayoutWorker::instance().request(heavy(), &receiver, [&](const LayoutResult&) { ++heavyDone; order.push_back(1); });
    auto cancelled = LayoutWorker::instance().request(chain(10), &receiver, [&](const LayoutResult&) { ++cancelledDone; });
    cancelled->cancel();
    LayoutWorker::instance().request(chain(3), &receiver, [&](const LayoutResult&) { ++lastDone; order.push_back(3); });
    QTRY_VERIFY_WITH_TIMEOUT(lastDone == 1, 60000);
    QCOMPARE(heavyDone, 1);
    QCOMPARE(cancelledDone, 0);
    QCOMPARE(order, (std::vector<int>{1, 3}));  // serialized, in request order
  }

  void cancelWhileRunningDiscardsResult() {
    QObject receiver;
    int done = 0, after = 0;
    auto job = LayoutWorker::instance().request(heavy(), &receiver, [&](const LayoutResult&) { ++done; });
    QTest::qWait(20);  // it is (very likely) running now; cancel must still discard it
    job->cancel();
    LayoutWorker::instance().request(chain(2), &receiver, [&](const LayoutResult&) { ++after; });
    QTRY_VERIFY_WITH_TIMEOUT(after == 1, 60000);
    QCOMPARE(done, 0);
  }

  void eventLoopKeepsTurningDuringLayout() {
    QObject receiver;
    bool done = false;
    LayoutWorker::instance().request(heavy(), &receiver, [&](const LayoutResult&) { done = true; });
    QElapsedTimer t;
    t.start();
    qint64 worst = 0, last = 0;
    while (!done && t.elapsed() < 60000) {
      QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
      const qint64 now = t.elapsed();
      worst = std::max(worst, now - last);
      last = now;
      QThread::msleep(1);
    }
    QVERIFY(done);
    QVERIFY2(worst < 100, qPrintable(QString("GUI thread stalled %1 ms").arg(worst)));
  }

  void receiverDeathDropsResult() {
    int done = 0;
    auto* receiver = new QObject;
    LayoutWorker::instance().request(chain(3), receiver, [&](const LayoutResult&) { ++done; });
    delete receiver;
    QObject other;
    int after = 0;
    LayoutWorker::instance().request(chain(2), &other, [&](const LayoutResult&) { ++after; });
    QTRY_VERIFY_WITH_TIMEOUT(after == 1, 10000);
    QCOMPARE(done, 0);
  }

  void oversizedModelIsRefused() {
    QObject receiver;
    LayoutResult got;
    bool done = false;
    LayoutWorker::instance().request(chain(kMaxLayoutNodes + 1), &receiver, [&](const LayoutResult& r) {
      got = r;
      done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QVERIFY(!got.layout);
    QVERIFY(got.error.contains("collapsed"));
  }
};

QTEST_MAIN(TestLayoutWorker)
#include "test_layout_worker.moc"
