// The in-process plan-choice cache: a short list, newest last, the oldest dropped.
#include "engine/plan/plan_choice_cache.h"

#include <deque>
#include <mutex>
#include <utility>

namespace ks {

namespace {
constexpr std::size_t kEntries = 8;
std::mutex& lock() {
  static std::mutex m;
  return m;
}
std::deque<std::pair<uint64_t, PlanChoice>>& entries() {
  static std::deque<std::pair<uint64_t, PlanChoice>> e;
  return e;
}
}  // namespace

std::optional<PlanChoice> findPlanChoice(uint64_t key) {
  std::lock_guard<std::mutex> g(lock());
  for (const auto& [k, c] : entries())
    if (k == key) return c;
  return std::nullopt;
}

void keepPlanChoice(uint64_t key, const PlanChoice& choice) {
  std::lock_guard<std::mutex> g(lock());
  for (auto& [k, c] : entries())
    if (k == key) {
      c = choice;
      return;
    }
  entries().emplace_back(key, choice);
  if (entries().size() > kEntries) entries().pop_front();
}

}  // namespace ks
