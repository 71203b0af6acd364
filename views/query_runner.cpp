// QueryRunner: requests posted to one worker thread, results posted back through the
// application object (the receiver may be destroyed between a check on the worker and the post).
#include "views/query_runner.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <exception>

namespace ks {

QueryRunner::QueryRunner(QObject* parent) : QObject(parent) {
  thread_.setObjectName("ks-view-queries");
  context_ = new QObject;
  context_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, context_, &QObject::deleteLater);
  thread_.start();
}

QueryRunner::~QueryRunner() {
  thread_.quit();
  thread_.wait();
}

bool QueryRunner::isCurrent(RequestKind kind, quint64 id, quint64 epoch) const {
  return latest_->newest[static_cast<std::size_t>(kind)].load() == id && latest_->epoch.load() == epoch;
}

void QueryRunner::post(RequestKind kind, const std::string& key, std::function<Result()> work, QObject* receiver,
                       std::function<void(const Result&)> done, std::function<void(const std::string&)> failed) {
  const quint64 id = ++next_;
  latest_->newest[static_cast<std::size_t>(kind)].store(id);  // a newer request of this kind replaces any older one
  if (auto it = cache_.find(key); it != cache_.end()) {
    done(it->second);
    return;
  }
  ++inFlight_;
  QPointer<QObject> target(receiver);
  QPointer<QueryRunner> self(this);
  const quint64 epoch = latest_->epoch.load();
  std::shared_ptr<Latest> latest = latest_;
  QMetaObject::invokeMethod(
      context_,
      [self, latest, kind, key, id, epoch, target, work = std::move(work), done = std::move(done),
       failed = std::move(failed)]() {
        // Work that a newer request of its kind replaced before it started is skipped.
        const auto k = static_cast<std::size_t>(kind);
        const bool stale = latest->newest[k].load() != id || latest->epoch.load() != epoch;
        Result r;
        std::string error;
        if (!stale) {
          try {
            r = work();
          } catch (const std::exception& e) {
            error = e.what();
          } catch (...) {
            error = "an unknown exception";
          }
          if (!r && error.empty()) error = "no result";
        }
        QObject* app = QCoreApplication::instance();
        if (!app) return;
        QMetaObject::invokeMethod(
            app,
            [self, kind, key, id, epoch, target, r, error, stale, done, failed]() {
              if (!self) return;
              --self->inFlight_;
              if (stale || self->latest_->epoch.load() != epoch) return;
              if (r) self->cache_[key] = r;
              if (!self->isCurrent(kind, id, epoch) || !target) return;
              if (r) done(r);
              else failed(error);
            },
            Qt::QueuedConnection);
      },
      Qt::QueuedConnection);
}

void QueryRunner::clear() {
  latest_->epoch.fetch_add(1);
  cache_.clear();
}

}  // namespace ks
