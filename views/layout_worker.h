// LayoutWorker: the one serialized thread that owns every libgvc call in the GUI process.
// Requests queue in order; a cancelled request is skipped if not started and its result is
// discarded if it was (a Graphviz layout cannot be interrupted).
#pragma once
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThread>
#include <atomic>
#include <functional>
#include <memory>

#include "views/graph_layout.h"

namespace ks {

struct LayoutResult {
  std::shared_ptr<const GraphLayout> layout;  // null on error
  QString error;
  double milliseconds = 0;
  Qt::HANDLE thread = nullptr;  // the thread that ran Graphviz (tests check it is not the GUI's)
};

// A handle on one queued layout.
class LayoutJob {
 public:
  void cancel() { cancelled_.store(true); }
  bool cancelled() const { return cancelled_.load(); }
  quint64 id() const { return id_; }

 private:
  friend class LayoutWorker;
  explicit LayoutJob(quint64 id) : id_(id) {}
  quint64 id_;
  std::atomic<bool> cancelled_{false};
};

class LayoutWorker : public QObject {
  Q_OBJECT
 public:
  // The process-wide worker (created on first use; its thread stops at application exit).
  static LayoutWorker& instance();
  ~LayoutWorker() override;

  // Queues a layout of `input`. `done` runs on `receiver`'s thread, unless the job was cancelled
  // or `receiver` died first.
  std::shared_ptr<LayoutJob> request(LayoutInput input, QObject* receiver,
                                     std::function<void(const LayoutResult&)> done);
  // Runs any other Graphviz work (e.g. renderDot) on the layout thread and waits for it.
  // Must not be called from the layout thread itself.
  void runBlocking(const std::function<void()>& f);

  QThread* thread() { return &thread_; }
  int pending() const { return pending_.load(); }

 private:
  LayoutWorker();
  QThread thread_;
  QObject* context_ = nullptr;  // lives on thread_; queued lambdas run in its context
  std::atomic<quint64> nextId_{1};
  std::atomic<int> pending_{0};
};

}  // namespace ks
