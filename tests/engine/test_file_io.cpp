// Paths that are not what a command expects: a directory given as a .ks, .onnx, .npy, .pb or
// session file is named as a directory (not misread as an empty or malformed file); a session
// saved to a directory or a missing folder fails with the reason and leaves nothing behind; a save
// replaces the old file whole and never touches another file's name.
#include <QtTest>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/io/npy.h"
#include "engine/io/onnx_importer.h"
#include "engine/io/program_source.h"
#include "engine/io/tensor_file.h"
#include "engine/session/session.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ks_test_file_io_" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};
std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
// The message of the Error `f` throws ("" when it throws none).
template <class F> std::string errorOf(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
std::vector<std::string> names(const fs::path& dir) {
  std::vector<std::string> r;
  for (const auto& e : fs::directory_iterator(dir)) r.push_back(e.path().filename().string());
  std::sort(r.begin(), r.end());
  return r;
}
}  // namespace

class TestFileIo : public QObject {
  Q_OBJECT
 private slots:
  void directoriesAreNamedAsDirectories() {
    TempDir t;
    for (const char* d : {"d.ks", "d.onnx", "d.npy", "d.pb", "d.kss.json"}) fs::create_directories(t / d);
    const std::string ks = errorOf([&] { loadProgramFile(t / "d.ks"); });
    QVERIFY2(has(ks, t / "d.ks") && has(ks, "is a directory, not a .ks program"), ks.c_str());
    const std::string npy = errorOf([&] { readNpy(t / "d.npy"); });
    QVERIFY2(has(npy, "is a directory, not a .npy array"), npy.c_str());
    const std::string session = errorOf([&] { Session::load(t / "d.kss.json"); });
    QVERIFY2(has(session, "is a directory, not a session file"), session.c_str());
#ifdef KS_WITH_ONNX
    const std::string onnx = errorOf([&] { loadProgramFile(t / "d.onnx"); });
    QVERIFY2(has(onnx, "is a directory, not an ONNX model"), onnx.c_str());
    const std::string pb = errorOf([&] { readOnnxTensorFile(t / "d.pb", nullptr); });
    QVERIFY2(has(pb, "is a directory, not an ONNX TensorProto"), pb.c_str());
#endif
  }

  void missingFileSaysWhy() {
    TempDir t;
    const std::string e = errorOf([&] { loadProgramFile(t / "nothere.ks"); });
    QVERIFY2(has(e, "cannot open a .ks program: No such file or directory"), e.c_str());
  }

  // `run --session /tmp`: an error naming the directory; the directory and its folder unchanged.
  void sessionSavedToADirectoryFails() {
    TempDir t;
    fs::create_directories(t / "out");
    std::ofstream(t / "out/mine.txt") << "mine";
    SessionOptions o;
    o.devices = "host";
    o.cache = "none";
    Session s(parseKs("input x: f32[4]\ny = x + x\noutput y\n", "t.ks"), o);
    s.run({}, false);
    const std::string e = errorOf([&] { s.save(t / "out"); });
    QVERIFY2(has(e, t / "out") && has(e, "is a directory, not a session file"), e.c_str());
    QCOMPARE(names(t.path), std::vector<std::string>{"out"});
    QCOMPARE(contents(t / "out/mine.txt"), std::string("mine"));
    const std::string missing = errorOf([&] { s.save(t / "nofolder/s.kss.json"); });
    QVERIFY2(has(missing, "the folder " + (t / "nofolder") + " does not exist"), missing.c_str());
    s.save(t / "s.kss.json");  // and a good path works
    QVERIFY(Session::load(t / "s.kss.json").runs().size() == 1);
  }

  // The old file is replaced whole; a file that happens to have the temporary's name is not touched.
  void writesReplaceWholeAndTouchNothingElse() {
    TempDir t;
    const std::string path = t / "a.json";
    std::ofstream(path) << "old";
    const std::string squatter = path + ".tmp" + std::to_string(::getpid());
    std::ofstream(squatter) << "someone's";
    writeFileAtomically(path, "new contents", "a test file");
    QCOMPARE(contents(path), std::string("new contents"));
    QCOMPARE(contents(squatter), std::string("someone's"));
    QCOMPARE(names(t.path).size(), std::size_t(2));
    const std::string e = errorOf([&] { writeFileAtomically(t.path.string(), "x", "a test file"); });
    QVERIFY2(has(e, "is a directory, not a test file"), e.c_str());
    QCOMPARE(names(t.path).size(), std::size_t(2));
  }
};

QTEST_APPLESS_MAIN(TestFileIo)
#include "test_file_io.moc"
