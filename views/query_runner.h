// QueryRunner: what views need that is too slow for the GUI thread (a kernel's source under a
// schedule, why two classes were not fused) runs here, on one worker thread, RenderDoc-style: a
// request of a kind replaces a queued or running one of the same kind only (its result is still
// cached, but not delivered), and results are cached by key until clear().
#pragma once
#include <QObject>
#include <QThread>
#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "views/request_kind.h"

namespace ks {

class QueryRunner : public QObject {
  Q_OBJECT
 public:
  using Result = std::shared_ptr<const void>;
  explicit QueryRunner(QObject* parent = nullptr);
  ~QueryRunner() override;

  // Runs `work` on the worker; `done` gets its result on the GUI thread, unless a newer request
  // of the same kind came first, clear() was called or `receiver` died. A cached key answers at
  // once (before post returns). A `work` that throws reaches `failed` with what it said, under
  // the same conditions, and is not cached (asking again runs it again).
  void post(RequestKind kind, const std::string& key, std::function<Result()> work, QObject* receiver,
            std::function<void(const Result&)> done, std::function<void(const std::string&)> failed);
  // Drops every cached result and every result still in flight (another session was loaded).
  void clear();
  int inFlight() const { return inFlight_; }
  QThread* thread() { return &thread_; }

 private:
  // Read by the worker to skip replaced work, written on the GUI thread; shared so that work
  // still queued when the runner goes away reads valid memory.
  struct Latest {
    std::array<std::atomic<quint64>, kNumRequestKinds> newest{};  // newest request of each kind
    std::atomic<quint64> epoch{0};                                // bumped by clear()
  };
  bool isCurrent(RequestKind kind, quint64 id, quint64 epoch) const;

  QThread thread_;
  QObject* context_ = nullptr;  // lives on thread_
  std::shared_ptr<Latest> latest_ = std::make_shared<Latest>();
  quint64 next_ = 0;
  std::map<std::string, Result> cache_;
  int inFlight_ = 0;
};

// A typed request: `work` returns a T, `done` receives it; `failed` receives what a throwing
// `work` said.
template <class T>
void postQuery(QueryRunner& runner, RequestKind kind, const std::string& key, std::function<T()> work, QObject* receiver,
               std::function<void(const T&)> done, std::function<void(const std::string&)> failed) {
  runner.post(
      kind, key, [work = std::move(work)]() -> QueryRunner::Result { return std::make_shared<const T>(work()); }, receiver,
      [done = std::move(done)](const QueryRunner::Result& r) { done(*static_cast<const T*>(r.get())); },
      std::move(failed));
}

}  // namespace ks
