// The tuning cache: every measurement keyed by (kernel hash, device fingerprint, schedule), and
// the finished searches, so re-compiling a program measures nothing new. Persistent in SQLite when
// built with it (KS_WITH_SQLITE), otherwise in memory for the life of the process.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ks {

struct CachedMeasurement {
  std::string schedule;  // Schedule::str()
  std::string status;    // toString(TuneStatus): the cache stores words
  double ns = 0;
  std::string reason;
};

struct CachedSearch {
  std::string winner;      // schedule of the fastest ok measurement
  double winnerNs = 0;
  std::string stopReason;  // TuneSearch::stopText() of the search
  int measured = 0;
};

class TuningCache {
 public:
  virtual ~TuningCache() = default;
  // path: a file (created if missing), "" for the default file under $XDG_CACHE_HOME or
  // ~/.cache/kernelscope/, or "none" for an in-memory cache. Never fatal, and never destroys what
  // is not ours: a directory, a file that is not SQLite, or an SQLite database that is not a
  // tuning cache is left as it is, reported in *warning, and replaced by an in-memory cache. A
  // read-only cache (no write permission) is read and not written. Only a cache of ours whose
  // content is broken is moved aside, to a new name (PATH.corrupt, PATH.corrupt.1, ...), and
  // started anew.
  static std::unique_ptr<TuningCache> open(const std::string& path, std::string* warning);
  static std::string defaultPath();

  virtual std::vector<CachedMeasurement> measurements(uint64_t kernel, const std::string& device) = 0;
  virtual void putMeasurement(uint64_t kernel, const std::string& device, const CachedMeasurement& m) = 0;
  // A finished search at a tune level ("quick", "full").
  virtual std::optional<CachedSearch> search(uint64_t kernel, const std::string& device, const std::string& level) = 0;
  virtual void putSearch(uint64_t kernel, const std::string& device, const std::string& level, const CachedSearch& s) = 0;
  virtual void clear() = 0;
  virtual std::string location() const = 0;  // file path or "memory"
  virtual bool persistent() const = 0;
};

// The in-memory cache (also the fallback when SQLite is absent or the file is unusable).
std::unique_ptr<TuningCache> makeMemoryCache();
// The SQLite cache; throws ks::Error(Io) when the file cannot be opened or is not a cache. A
// read-only one reads the file and drops what is put into it.
std::unique_ptr<TuningCache> makeSqliteCache(const std::string& path, bool readOnly = false);
// Whether an SQLite file holds a tuning cache of ours (its meta table names our schema), opening
// it read-only: Ours, Foreign (a database of something else), or Unreadable (SQLite cannot read it).
enum class SqliteOwner { Ours, OtherVersion, Foreign, Unreadable };
SqliteOwner sqliteOwner(const std::string& path);

}  // namespace ks
