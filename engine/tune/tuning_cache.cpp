// The in-memory tuning cache and the choice between it and SQLite.
#include "engine/tune/tuning_cache.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "engine/core/error.h"

namespace ks {

namespace {
class MemoryCache : public TuningCache {
 public:
  std::vector<CachedMeasurement> measurements(uint64_t kernel, const std::string& device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = meas_.find({kernel, device});
    return it == meas_.end() ? std::vector<CachedMeasurement>{} : it->second;
  }
  void putMeasurement(uint64_t kernel, const std::string& device, const CachedMeasurement& m) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& v = meas_[{kernel, device}];
    for (auto& e : v)
      if (e.schedule == m.schedule) {
        e = m;
        return;
      }
    v.push_back(m);
  }
  std::optional<CachedSearch> search(uint64_t kernel, const std::string& device, const std::string& level) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = searches_.find({kernel, device + "|" + level});
    if (it == searches_.end()) return std::nullopt;
    return it->second;
  }
  void putSearch(uint64_t kernel, const std::string& device, const std::string& level, const CachedSearch& s) override {
    std::lock_guard<std::mutex> lock(mutex_);
    searches_[{kernel, device + "|" + level}] = s;
  }
  void clear() override {
    std::lock_guard<std::mutex> lock(mutex_);
    meas_.clear();
    searches_.clear();
  }
  std::string location() const override { return "memory"; }
  bool persistent() const override { return false; }

 private:
  std::mutex mutex_;
  std::map<std::pair<uint64_t, std::string>, std::vector<CachedMeasurement>> meas_;
  std::map<std::pair<uint64_t, std::string>, CachedSearch> searches_;
};

// Without SQLite, the sessions of one process that name the same cache share one memory cache
// (a GUI recompile, a benchmark's warm compile), as they would share the file.
class SharedMemoryCache : public TuningCache {
 public:
  explicit SharedMemoryCache(const std::string& name) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<TuningCache>> caches;
    std::lock_guard<std::mutex> lock(mutex);
    auto& c = caches[name];
    if (!c) c = makeMemoryCache();
    target_ = c;
  }
  std::vector<CachedMeasurement> measurements(uint64_t k, const std::string& d) override { return target_->measurements(k, d); }
  void putMeasurement(uint64_t k, const std::string& d, const CachedMeasurement& m) override { target_->putMeasurement(k, d, m); }
  std::optional<CachedSearch> search(uint64_t k, const std::string& d, const std::string& l) override { return target_->search(k, d, l); }
  void putSearch(uint64_t k, const std::string& d, const std::string& l, const CachedSearch& s) override { target_->putSearch(k, d, l, s); }
  void clear() override { target_->clear(); }
  std::string location() const override { return "memory (shared in this process)"; }
  bool persistent() const override { return false; }

 private:
  std::shared_ptr<TuningCache> target_;
};
}  // namespace

std::unique_ptr<TuningCache> makeMemoryCache() { return std::make_unique<MemoryCache>(); }

std::string TuningCache::defaultPath() {
  std::filesystem::path base;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) base = x;
  else if (const char* h = std::getenv("HOME"); h && *h) base = std::filesystem::path(h) / ".cache";
  else base = std::filesystem::temp_directory_path();
  return (base / "kernelscope" / "tuning.sqlite").string();
}

std::unique_ptr<TuningCache> TuningCache::open(const std::string& pathIn, std::string* warning) {
  if (pathIn == "none") return makeMemoryCache();
#ifndef KS_WITH_SQLITE
  if (warning && !pathIn.empty())
    *warning = "this build has no SQLite (KS_WITH_SQLITE=OFF): the tuning cache lives in memory, shared by the sessions of this process";
  return std::make_unique<SharedMemoryCache>(pathIn);
#else
  const std::string path = pathIn.empty() ? defaultPath() : pathIn;
  try {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    return makeSqliteCache(path);
  } catch (const Error& e) {
    // Corrupt or foreign file: move it aside and start a fresh cache.
    std::error_code ec;
    const std::string aside = path + ".corrupt";
    std::filesystem::rename(path, aside, ec);
    try {
      auto cache = makeSqliteCache(path);
      if (warning) *warning = "tuning cache " + path + " was unusable (" + e.message() + "); moved it to " + aside + " and started a new one";
      return cache;
    } catch (const Error& e2) {
      if (warning) *warning = "tuning cache " + path + " is unusable (" + e2.message() + "); using an in-memory cache";
      return makeMemoryCache();
    }
  }
#endif
}

#ifndef KS_WITH_SQLITE
std::unique_ptr<TuningCache> makeSqliteCache(const std::string& path) {
  throw Error(ErrorCode::Unsupported, "this build has no SQLite (KS_WITH_SQLITE=OFF)", {path});
}
#endif

}  // namespace ks
