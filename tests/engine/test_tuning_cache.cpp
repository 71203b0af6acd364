// The tuning cache never destroys what is not its own: a text file, a directory, a read-only
// cache or another program's SQLite database given as --cache is left byte for byte as it was
// (the compile goes on with an in-memory cache and a warning naming the path); only a damaged
// cache of ours is moved aside, each time to a new name, and started anew.
#include <QtTest>

#ifdef KS_WITH_SQLITE
#include <sqlite3.h>
#endif

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/tune/tuning_cache.h"

using namespace ks;
namespace fs = std::filesystem;

#ifdef KS_WITH_SQLITE

namespace {
std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("ks_test_cache_" + std::to_string(::getpid()) + "_" + name)).string();
}
std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
// A cache of ours holding `n` measurements of 600-byte reasons (each put is a transaction: few, large).
void fill(const std::string& path, int n) {
  std::string w;
  auto c = TuningCache::open(path, &w);
  QVERIFY2(w.empty() && c->persistent(), w.c_str());
  for (int i = 0; i < n; ++i) c->putMeasurement(uint64_t(i), "dev", {"schedule " + std::to_string(i), "ok", 5.0 + i, std::string(600, 'x')});
  c->putSearch(1, "dev", "quick", {"default", 5, "exhausted", 1});
}
}  // namespace

class TestTuningCache : public QObject {
  Q_OBJECT
 private slots:
  // `echo A > t.txt; --cache t.txt`, twice with other text: both texts survive, no .corrupt.
  void textFileIsLeftAlone() {
    const std::string path = tempPath("t.txt");
    for (const char* text : {"A\n", "B\n"}) {
      write(path, text);
      std::string warning;
      auto c = TuningCache::open(path, &warning);
      QVERIFY(!c->persistent());
      QVERIFY2(has(warning, path) && has(warning, "not an SQLite database") && has(warning, "in-memory"), warning.c_str());
      c->putMeasurement(1, "dev", {"default", "ok", 5, ""});
      QCOMPARE(c->measurements(1, "dev").size(), std::size_t(1));
      QCOMPARE(contents(path), std::string(text));
      QVERIFY(!fs::exists(path + ".corrupt"));
    }
    fs::remove(path);
  }

  void directoryIsLeftAlone() {
    const std::string dir = tempPath("mydata");
    fs::create_directories(dir);
    write(dir + "/notes.txt", "mine");
    std::string warning;
    auto c = TuningCache::open(dir, &warning);
    QVERIFY(!c->persistent());
    QVERIFY2(has(warning, dir) && has(warning, "not a file"), warning.c_str());
    QVERIFY(fs::is_directory(dir));
    QCOMPARE(contents(dir + "/notes.txt"), std::string("mine"));
    QVERIFY(!fs::exists(dir + ".corrupt"));
    fs::remove_all(dir);
  }

  // A valid cache without write permission is read, and its bytes do not change.
  void readOnlyCacheIsReadNotReplaced() {
    const std::string path = tempPath("ro.sqlite");
    fs::remove(path);
    fill(path, 3);
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    const std::string before = contents(path);
    std::string warning;
    auto c = TuningCache::open(path, &warning);
    QVERIFY2(has(warning, path) && has(warning, "read-only"), warning.c_str());
    QCOMPARE(c->measurements(2, "dev").size(), std::size_t(1));
    QVERIFY(c->search(1, "dev", "quick").has_value());
    c->putMeasurement(99, "dev", {"default", "ok", 5, ""});
    QVERIFY_THROWS_EXCEPTION(Error, c->clear());
    c.reset();
    QCOMPARE(contents(path), before);
    QVERIFY(!fs::exists(path + ".corrupt"));
    fs::permissions(path, fs::perms::owner_all);
    fs::remove(path);
  }

  void foreignDatabaseIsLeftAlone() {
    const std::string path = tempPath("other.db");
    fs::remove(path);
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "CREATE TABLE notes(t TEXT); INSERT INTO notes VALUES('keep me');", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    const std::string before = contents(path);
    std::string warning;
    auto c = TuningCache::open(path, &warning);
    QVERIFY(!c->persistent());
    QVERIFY2(has(warning, path) && has(warning, "not a tuning cache"), warning.c_str());
    QCOMPARE(contents(path), before);
    fs::remove(path);
  }

  // A cache of ours with damaged pages moves aside; a second damaged one does not overwrite the
  // first .corrupt, and each rebuilt cache is good.
  void damagedCacheMovesAsideToNewNames() {
    const std::string path = tempPath("damaged.sqlite");
    for (const std::string& p : {path, path + ".corrupt", path + ".corrupt.1"}) fs::remove(p);
    std::string first;
    for (int round = 0; round < 2; ++round) {
      fill(path, 120);
      std::string bytes = contents(path);
      QVERIFY(bytes.size() > 6 * 4096);
      for (std::size_t i = bytes.size() - 3 * 4096; i < bytes.size() - 2 * 4096; ++i) bytes[i] = char(0xA5);
      write(path, bytes);
      if (round == 0) first = bytes;
      std::string warning;
      auto c = TuningCache::open(path, &warning);
      QVERIFY(c->persistent());
      const std::string aside = round == 0 ? path + ".corrupt" : path + ".corrupt.1";
      QVERIFY2(has(warning, "damaged") && has(warning, aside), warning.c_str());
      QCOMPARE(contents(aside), bytes);
      QVERIFY(c->measurements(7, "dev").empty());
    }
    QCOMPARE(contents(path + ".corrupt"), first);  // the first one was not overwritten
    std::string again;
    auto reopened = TuningCache::open(path, &again);
    QVERIFY2(again.empty(), again.c_str());
    for (const std::string& p : {path, path + ".corrupt", path + ".corrupt.1"}) fs::remove(p);
  }
};

#else
// Without SQLite the cache lives in memory and never touches the path.
class TestTuningCache : public QObject {
  Q_OBJECT
 private slots:
  void needsSqlite() { QSKIP("this build has no SQLite (KS_WITH_SQLITE=OFF)"); }
};
#endif

QTEST_APPLESS_MAIN(TestTuningCache)
#include "test_tuning_cache.moc"
