// Progress reporting and cooperative cancellation for long engine work (compile, tune, run).
// The engine checks `cancelled()` between units of work: a driver call already running finishes on
// its worker and its result is dropped; no new work starts once the flag is seen.
#pragma once
#include <atomic>
#include <functional>
#include <string>

#include "engine/core/error.h"

namespace ks {

class Progress {
 public:
  using Callback = std::function<void(double fraction, const std::string& what)>;
  Progress() = default;
  explicit Progress(Callback cb, std::atomic<bool>* cancel = nullptr) : cb_(std::move(cb)), cancel_(cancel) {}

  void report(double fraction, const std::string& what) const {
    if (cb_) cb_(fraction, what);
  }
  bool cancelled() const { return cancel_ && cancel_->load(std::memory_order_relaxed); }
  // Throws Error(Cancelled) when cancellation was requested.
  void check(const std::string& where) const {
    if (cancelled()) throw Error(ErrorCode::Cancelled, "cancelled during " + where);
  }

 private:
  Callback cb_;
  std::atomic<bool>* cancel_ = nullptr;
};

}  // namespace ks
