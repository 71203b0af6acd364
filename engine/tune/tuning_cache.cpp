// The in-memory tuning cache and the choice between it and SQLite.
#include "engine/tune/tuning_cache.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
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

#ifdef KS_WITH_SQLITE
namespace {
// What is at a cache path before anything touches it.
enum class Found { Nothing, EmptyFile, Sqlite, NotAFile, NotSqlite };
Found inspect(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || st.type() == fs::file_type::not_found) return Found::Nothing;
  if (st.type() != fs::file_type::regular) return Found::NotAFile;
  if (fs::file_size(path, ec) == 0 && !ec) return Found::EmptyFile;
  char magic[16] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(magic, sizeof magic);
  return in && std::memcmp(magic, "SQLite format 3", 16) == 0 ? Found::Sqlite : Found::NotSqlite;
}

// No write permission for anyone, or none for us: the owner's wish to keep the file as it is.
bool readOnly(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::perms p = fs::status(path, ec).permissions();
  const fs::perms anyWrite = fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
  return (p & anyWrite) == fs::perms::none || ::access(path.c_str(), W_OK) != 0;
}

// Moves `path` to the first of PATH.corrupt, PATH.corrupt.1, ... that does not exist (a hard
// link, then the unlink: an existing name is never replaced, even by a concurrent run).
std::string moveAside(const std::string& path) {
  for (int n = 0; n < 1000; ++n) {
    const std::string aside = path + ".corrupt" + (n ? "." + std::to_string(n) : "");
    if (::link(path.c_str(), aside.c_str()) == 0) {
      ::unlink(path.c_str());
      return aside;
    }
    if (errno != EEXIST) break;
  }
  return {};
}
}  // namespace
#endif

std::unique_ptr<TuningCache> TuningCache::open(const std::string& pathIn, std::string* warning) {
  if (pathIn == "none") return makeMemoryCache();
#ifndef KS_WITH_SQLITE
  if (warning && !pathIn.empty())
    *warning = "this build has no SQLite (KS_WITH_SQLITE=OFF): the tuning cache lives in memory, shared by the sessions of this process";
  return std::make_unique<SharedMemoryCache>(pathIn);
#else
  const std::string path = pathIn.empty() ? defaultPath() : pathIn;
  auto inMemory = [&](const std::string& why) {
    if (warning) *warning = "tuning cache " + path + " " + why + "; using an in-memory cache";
    return makeMemoryCache();
  };
  const Found found = inspect(path);
  if (found == Found::NotAFile) return inMemory("is not a file (a directory?); left as it is");
  if (found == Found::NotSqlite) return inMemory("is not an SQLite database, so not a tuning cache; left as it is");
  const bool ro = found == Found::Sqlite && readOnly(path);
  if (found == Found::Sqlite) {
    const SqliteOwner owner = sqliteOwner(path);
    if (owner == SqliteOwner::Foreign) return inMemory("is an SQLite database of something else, not a tuning cache; left as it is");
    if (owner == SqliteOwner::OtherVersion) return inMemory("is a tuning cache of another version; left as it is");
    // A database SQLite cannot read is ours only where nobody else puts files: the default path.
    if (owner == SqliteOwner::Unreadable && !pathIn.empty()) return inMemory("is an SQLite file that cannot be read; left as it is");
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  try {
    auto cache = makeSqliteCache(path, ro);
    if (ro && warning) *warning = "tuning cache " + path + " is read-only: its entries are used, new measurements are not saved";
    return cache;
  } catch (const Error& e) {
    if (found != Found::Sqlite) return inMemory("cannot be created (" + e.message() + ")");
    if (ro) return inMemory("is read-only and unusable (" + e.message() + "); left as it is");
    const std::string aside = moveAside(path);
    if (aside.empty()) return inMemory("is unusable (" + e.message() + ") and cannot be moved aside; left as it is");
    try {
      auto cache = makeSqliteCache(path);
      if (warning) *warning = "tuning cache " + path + " was damaged (" + e.message() + "); moved it to " + aside + " and started a new one";
      return cache;
    } catch (const Error& e2) {
      return inMemory("was damaged (moved to " + aside + ") and a new one cannot be created (" + e2.message() + ")");
    }
  }
#endif
}

#ifndef KS_WITH_SQLITE
std::unique_ptr<TuningCache> makeSqliteCache(const std::string& path, bool) {
  throw Error(ErrorCode::Unsupported, "this build has no SQLite (KS_WITH_SQLITE=OFF)", {path});
}
#endif

}  // namespace ks
