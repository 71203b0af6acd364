// Runs a blocking driver call (a program build, a long launch) on its own thread and waits for it
// while watching the cancel flag: on cancel, control returns within ~50 ms and the call's result,
// when it comes, is dropped. Everything the call touches must be owned by the closure.
#pragma once
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/core/progress.h"

namespace ks {

template <class F>
auto runCancellable(F f, const Progress& progress, const std::string& what) -> decltype(f()) {
  using R = decltype(f());
  struct State {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::optional<R> value;
    std::exception_ptr error;
  };
  auto st = std::make_shared<State>();
  std::thread([st, f = std::move(f)]() mutable {
    std::optional<R> v;
    std::exception_ptr err;
    try {
      v.emplace(f());
    } catch (...) {
      err = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(st->m);
    st->value = std::move(v);
    st->error = err;
    st->done = true;
    st->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(st->m);
  while (!st->done) {
    st->cv.wait_for(lock, std::chrono::milliseconds(50));
    if (!st->done && progress.cancelled()) throw Error(ErrorCode::Cancelled, "cancelled during " + what);
  }
  if (st->error) std::rethrow_exception(st->error);
  return std::move(*st->value);
}

}  // namespace ks
