// LayoutWorker: queued lambdas on one QThread; results posted back to the requester.
#include "views/layout_worker.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMetaObject>

#include "engine/core/error.h"

namespace ks {

LayoutWorker& LayoutWorker::instance() {
  static LayoutWorker* worker = [] {
    auto* w = new LayoutWorker;
    // Stop the thread before the application object (and its event dispatcher) goes away.
    if (QCoreApplication::instance())
      QObject::connect(QCoreApplication::instance(), &QCoreApplication::aboutToQuit, [w] {
        w->thread_.quit();
        w->thread_.wait();
      });
    return w;
  }();
  return *worker;
}

LayoutWorker::LayoutWorker() {
  thread_.setObjectName("ks-layout");
  context_ = new QObject;
  context_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, context_, &QObject::deleteLater);
  thread_.start();
}

LayoutWorker::~LayoutWorker() {
  thread_.quit();
  thread_.wait();
}

std::shared_ptr<LayoutJob> LayoutWorker::request(LayoutInput input, QObject* receiver,
                                                 std::function<void(const LayoutResult&)> done) {
  std::shared_ptr<LayoutJob> job(new LayoutJob(nextId_.fetch_add(1)));
  QPointer<QObject> target(receiver);
  ++pending_;
  QMetaObject::invokeMethod(
      context_,
      [this, job, target, input = std::move(input), done = std::move(done)]() {
        --pending_;
        if (job->cancelled()) return;
        LayoutResult r;
        r.thread = QThread::currentThreadId();
        QElapsedTimer t;
        t.start();
        try {
          r.layout = std::make_shared<GraphLayout>(layoutGraph(input));
        } catch (const Error& e) {
          r.error = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
          r.error = QString::fromStdString(e.what());
        }
        r.milliseconds = t.nsecsElapsed() / 1e6;
        QObject* app = QCoreApplication::instance();
        if (job->cancelled() || !target || !app) return;
        // Posted to the application object, not to the receiver: the receiver may be destroyed on
        // the GUI thread between a check here and the post (a crash seen in the app-samples test).
        // On the GUI thread, where views are destroyed, the check below cannot race.
        QMetaObject::invokeMethod(
            app,
            [job, target, r, done]() {
              // A cancel issued while the result was in flight still wins.
              if (job->cancelled() || !target) return;
              done(r);
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
  return job;
}

void LayoutWorker::runBlocking(const std::function<void()>& f) {
  if (QThread::currentThread() == &thread_) {
    f();
    return;
  }
  QMetaObject::invokeMethod(context_, f, Qt::BlockingQueuedConnection);
}

}  // namespace ks
