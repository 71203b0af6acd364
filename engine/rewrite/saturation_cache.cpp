// A small process-wide cache of saturated e-graphs, oldest out first.
#include "engine/rewrite/saturation_cache.h"

#include <deque>
#include <mutex>
#include <utility>

namespace ks {

namespace {
constexpr std::size_t kEntries = 16;  // programs a GUI session switches between

std::mutex& lock() {
  static std::mutex m;
  return m;
}
std::deque<std::pair<std::string, std::shared_ptr<const Saturated>>>& entries() {
  static std::deque<std::pair<std::string, std::shared_ptr<const Saturated>>> e;
  return e;
}
}  // namespace

std::string SaturationKey::str() const {
  return std::to_string(program) + "|" + rules + "|" + std::to_string(limits.iterations) + "," + std::to_string(limits.nodes) +
         "," + std::to_string(limits.seconds) + "," + std::to_string(limits.matchLimit) + "," + std::to_string(limits.banRounds);
}

std::shared_ptr<const Saturated> findSaturated(const SaturationKey& key) {
  const std::string k = key.str();
  std::lock_guard<std::mutex> g(lock());
  for (auto& [name, s] : entries())
    if (name == k) return s;
  return nullptr;
}

void keepSaturated(const SaturationKey& key, std::shared_ptr<const Saturated> s) {
  const std::string k = key.str();
  std::lock_guard<std::mutex> g(lock());
  for (auto& [name, old] : entries())
    if (name == k) {
      old = std::move(s);
      return;
    }
  entries().emplace_back(k, std::move(s));
  if (entries().size() > kEntries) entries().pop_front();
}

}  // namespace ks
