// The SQLite tuning cache: two tables, measurements and finished searches.
#include <sqlite3.h>

#include <mutex>

#include "engine/core/error.h"
#include "engine/tune/tuning_cache.h"

namespace ks {

namespace {
constexpr int kSchemaVersion = 1;

class SqliteCache : public TuningCache {
 public:
  SqliteCache(const std::string& path, bool readOnly) : path_(path), readOnly_(readOnly) {
    try {
      openAndCheck();
    } catch (...) {  // the destructor does not run for a constructor that throws
      sqlite3_close(db_);
      throw;
    }
  }
  ~SqliteCache() override { sqlite3_close(db_); }

  void openAndCheck() {
    const int flags = readOnly_ ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr) != SQLITE_OK) fail("cannot open");
    sqlite3_busy_timeout(db_, 2000);
    if (!readOnly_) create();
    // Reading back proves the file is a database of ours, not just something SQLite tolerates.
    sqlite3_stmt* st = prepare("SELECT value FROM meta WHERE key='schema'");
    const bool ok = sqlite3_step(st) == SQLITE_ROW && text(st, 0) == std::to_string(kSchemaVersion);
    sqlite3_finalize(st);
    if (!ok) fail("unknown schema");
    // Broken pages would fail later, in the middle of a compile.
    st = prepare("PRAGMA quick_check");
    const bool intact = sqlite3_step(st) == SQLITE_ROW && text(st, 0) == "ok";
    sqlite3_finalize(st);
    if (!intact) fail("damaged database");
    if (readOnly_) {  // the tables must be there: nothing can create them
      sqlite3_finalize(prepare("SELECT kernel, device, schedule, status, ns, reason FROM measurement LIMIT 0"));
      sqlite3_finalize(prepare("SELECT kernel, device, level, winner, winner_ns, stop_reason, measured FROM search LIMIT 0"));
    }
  }

  void create() {
    exec("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
         "CREATE TABLE IF NOT EXISTS measurement(kernel TEXT, device TEXT, schedule TEXT, status TEXT, ns REAL,"
         " reason TEXT, PRIMARY KEY(kernel, device, schedule));"
         "CREATE TABLE IF NOT EXISTS search(kernel TEXT, device TEXT, level TEXT, winner TEXT, winner_ns REAL,"
         " stop_reason TEXT, measured INTEGER, PRIMARY KEY(kernel, device, level));");
    exec("INSERT OR IGNORE INTO meta VALUES('schema', '" + std::to_string(kSchemaVersion) + "');");
  }

  std::vector<CachedMeasurement> measurements(uint64_t kernel, const std::string& device) override {
    std::lock_guard<std::mutex> lock(mutex_);
    sqlite3_stmt* st = prepare("SELECT schedule, status, ns, reason FROM measurement WHERE kernel=? AND device=?");
    bindKey(st, kernel, device);
    std::vector<CachedMeasurement> r;
    while (sqlite3_step(st) == SQLITE_ROW) r.push_back({text(st, 0), text(st, 1), sqlite3_column_double(st, 2), text(st, 3)});
    sqlite3_finalize(st);
    return r;
  }
  void putMeasurement(uint64_t kernel, const std::string& device, const CachedMeasurement& m) override {
    if (readOnly_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    sqlite3_stmt* st = prepare("INSERT OR REPLACE INTO measurement VALUES(?, ?, ?, ?, ?, ?)");
    bindKey(st, kernel, device);
    sqlite3_bind_text(st, 3, m.schedule.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, m.status.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 5, m.ns);
    sqlite3_bind_text(st, 6, m.reason.c_str(), -1, SQLITE_TRANSIENT);
    step(st);
  }
  std::optional<CachedSearch> search(uint64_t kernel, const std::string& device, const std::string& level) override {
    std::lock_guard<std::mutex> lock(mutex_);
    sqlite3_stmt* st = prepare("SELECT winner, winner_ns, stop_reason, measured FROM search WHERE kernel=? AND device=? AND level=?");
    bindKey(st, kernel, device);
    sqlite3_bind_text(st, 3, level.c_str(), -1, SQLITE_TRANSIENT);
    std::optional<CachedSearch> r;
    if (sqlite3_step(st) == SQLITE_ROW)
      r = CachedSearch{text(st, 0), sqlite3_column_double(st, 1), text(st, 2), sqlite3_column_int(st, 3)};
    sqlite3_finalize(st);
    return r;
  }
  void putSearch(uint64_t kernel, const std::string& device, const std::string& level, const CachedSearch& s) override {
    if (readOnly_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    sqlite3_stmt* st = prepare("INSERT OR REPLACE INTO search VALUES(?, ?, ?, ?, ?, ?, ?)");
    bindKey(st, kernel, device);
    sqlite3_bind_text(st, 3, level.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, s.winner.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 5, s.winnerNs);
    sqlite3_bind_text(st, 6, s.stopReason.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 7, s.measured);
    step(st);
  }
  void clear() override {
    if (readOnly_) throw Error(ErrorCode::Io, "tuning cache: read-only (no write permission), not cleared", {path_});
    std::lock_guard<std::mutex> lock(mutex_);
    exec("DELETE FROM measurement; DELETE FROM search;");
  }
  std::string location() const override { return path_; }
  bool persistent() const override { return true; }

 private:
  [[noreturn]] void fail(const std::string& what) {
    const std::string msg = what + ": " + (db_ ? sqlite3_errmsg(db_) : "no database");
    if (db_) sqlite3_close(db_);
    db_ = nullptr;
    throw Error(ErrorCode::Io, "tuning cache: " + msg, {path_});
  }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw Error(ErrorCode::Io, "tuning cache: " + msg, {path_});
    }
  }
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &st, nullptr) != SQLITE_OK)
      throw Error(ErrorCode::Io, std::string("tuning cache: ") + sqlite3_errmsg(db_), {path_});
    return st;
  }
  void step(sqlite3_stmt* st) {
    const int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) throw Error(ErrorCode::Io, std::string("tuning cache: ") + sqlite3_errmsg(db_), {path_});
  }
  static void bindKey(sqlite3_stmt* st, uint64_t kernel, const std::string& device) {
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(kernel));
    sqlite3_bind_text(st, 1, hex, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, device.c_str(), -1, SQLITE_TRANSIENT);
  }
  static std::string text(sqlite3_stmt* st, int col) {
    const unsigned char* t = sqlite3_column_text(st, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }

  std::string path_;
  bool readOnly_ = false;
  sqlite3* db_ = nullptr;
  std::mutex mutex_;
};
}  // namespace

std::unique_ptr<TuningCache> makeSqliteCache(const std::string& path, bool readOnly) {
  return std::make_unique<SqliteCache>(path, readOnly);
}

SqliteOwner sqliteOwner(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return SqliteOwner::Unreadable;
  }
  SqliteOwner owner = SqliteOwner::Foreign;
  sqlite3_stmt* st = nullptr;
  const int rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='schema'", -1, &st, nullptr);
  if (rc == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* v = sqlite3_column_text(st, 0);
      owner = v && std::string(reinterpret_cast<const char*>(v)) == std::to_string(kSchemaVersion) ? SqliteOwner::Ours
                                                                                                    : SqliteOwner::OtherVersion;
    }
  } else if (rc != SQLITE_ERROR) {  // SQLITE_ERROR: no such table, a database of something else
    owner = SqliteOwner::Unreadable;
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return owner;
}

}  // namespace ks
