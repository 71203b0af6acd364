// QueryRunner: work runs off the GUI thread; a request replaces an older one of its kind only;
// results are cached by key; clear() drops results in flight; work that throws reports why.
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <atomic>

#include "views/query_runner.h"

using namespace ks;

namespace {
// Work that blocks until released, so that a test controls what is still running.
struct Gate {
  std::atomic<bool> open{false};
  void wait() const {
    while (!open.load()) QThread::msleep(1);
  }
};
// For requests whose work does not throw: a failure is a test failure.
void unexpectedFailure(const std::string& error) { QFAIL(("unexpected failure: " + error).c_str()); }
}  // namespace

class TestQueryRunner : public QObject {
  Q_OBJECT
 private slots:
  void workRunsOffTheGuiThread() {
    QueryRunner runner;
    QObject receiver;
    Qt::HANDLE worker = nullptr;
    int got = 0;
    postQuery<int>(runner, RequestKind::KernelSource, "a", [&worker] {
      worker = QThread::currentThreadId();
      return 42;
    }, &receiver, [&got](const int& v) { got = v; }, unexpectedFailure);
    QCOMPARE(got, 0);  // not answered inside post
    QTRY_COMPARE(got, 42);
    QVERIFY(worker && worker != QThread::currentThreadId());
  }

  void newerRequestOfTheSameKindReplacesOnly() {
    QueryRunner runner;
    QObject receiver;
    Gate gate;
    std::vector<int> delivered;
    std::atomic<bool> started{false};
    auto record = [&delivered](const int& v) { delivered.push_back(v); };
    postQuery<int>(runner, RequestKind::KernelSource, "k1", [&gate, &started] {
      started = true;
      gate.wait();
      return 1;
    }, &receiver, record, unexpectedFailure);
    QTRY_VERIFY(started.load());
    postQuery<int>(runner, RequestKind::Explanation, "e", [] { return 2; }, &receiver, record, unexpectedFailure);  // another kind
    postQuery<int>(runner, RequestKind::KernelSource, "k2", [] { return 3; }, &receiver, record, unexpectedFailure);  // replaces k1
    gate.open = true;
    QTRY_COMPARE(runner.inFlight(), 0);
    QCOMPARE(delivered, (std::vector<int>{2, 3}));
    // The replaced request's result was still computed (it was running) and is cached.
    int cached = 0;
    postQuery<int>(runner, RequestKind::KernelSource, "k1", [] { return -1; }, &receiver, [&cached](const int& v) { cached = v; }, unexpectedFailure);
    QCOMPARE(cached, 1);  // answered at once from the cache
  }

  void queuedReplacedWorkIsSkipped() {
    QueryRunner runner;
    QObject receiver;
    Gate gate;
    std::atomic<int> ran{0};
    postQuery<int>(runner, RequestKind::Explanation, "busy", [&gate] {
      gate.wait();
      return 0;
    }, &receiver, [](const int&) {}, unexpectedFailure);
    for (int i = 0; i < 5; ++i)
      postQuery<int>(runner, RequestKind::KernelSource, "q" + std::to_string(i), [&ran] { return ++ran; }, &receiver,
                     [](const int&) {}, unexpectedFailure);
    gate.open = true;
    QTRY_COMPARE(runner.inFlight(), 0);
    QCOMPARE(ran.load(), 1);  // only the newest of the five queued ones ran
  }

  void clearDropsResultsInFlight() {
    QueryRunner runner;
    QObject receiver;
    Gate gate;
    int delivered = 0;
    postQuery<int>(runner, RequestKind::KernelSource, "x", [&gate] {
      gate.wait();
      return 7;
    }, &receiver, [&delivered](const int&) { ++delivered; }, unexpectedFailure);
    runner.clear();
    gate.open = true;
    QTRY_COMPARE(runner.inFlight(), 0);
    QCOMPARE(delivered, 0);
    int again = 0;
    postQuery<int>(runner, RequestKind::KernelSource, "x", [] { return 8; }, &receiver, [&again](const int& v) { again = v; }, unexpectedFailure);
    QTRY_COMPARE(again, 8);  // not served from a cache of the old session
  }

  void receiverDeathDropsResult() {
    QueryRunner runner;
    int delivered = 0;
    auto* receiver = new QObject;
    postQuery<int>(runner, RequestKind::KernelSource, "r", [] { return 1; }, receiver, [&delivered](const int&) { ++delivered; }, unexpectedFailure);
    delete receiver;
    QTRY_COMPARE(runner.inFlight(), 0);
    QCOMPARE(delivered, 0);
  }

  void throwingWorkReportsItsError() {
    QueryRunner runner;
    QObject receiver;
    int delivered = 0, runs = 0;
    std::string error;
    auto post = [&] {
      postQuery<int>(
          runner, RequestKind::KernelSource, "t",
          [&runs]() -> int {
            ++runs;
            throw std::runtime_error("no such schedule");
          },
          &receiver, [&delivered](const int&) { ++delivered; }, [&error](const std::string& e) { error = e; });
    };
    post();
    QTRY_COMPARE(runner.inFlight(), 0);
    QCOMPARE(delivered, 0);
    QCOMPARE(error, std::string("no such schedule"));
    // A failure is not cached: asking again runs the work again.
    error.clear();
    post();
    QTRY_COMPARE(runner.inFlight(), 0);
    QCOMPARE(runs, 2);
    QCOMPARE(error, std::string("no such schedule"));
  }
};

QTEST_MAIN(TestQueryRunner)
#include "test_query_runner.moc"
