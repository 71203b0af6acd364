// Session files are user input: an edited .kss.json (ids out of range, wrong types, negative
// shapes, illegal stages, huge tensors) is refused with an error naming the JSON pointer of the
// bad value and what was expected, never loaded into views that would index out of range.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/error.h"
#include "engine/session/session.h"

using namespace ks;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {
// A compiled and run softmax session (PoCL and openblas, --tune none), committed.
std::string fixturePath() { return std::string(KS_SOURCE_DIR) + "/tests/data/sessions/softmax.kss.json"; }
json fixture() {
  std::ifstream in(fixturePath());
  return json::parse(in);
}
std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("ks_test_session_file_" + std::to_string(::getpid()) + "_" + name)).string();
}
// Loads the fixture after `edit`; returns the error's message, or "" when it loaded.
std::string loadEdited(const std::function<void(json&)>& edit) {
  json j = fixture();
  edit(j);
  const std::string path = tempPath("edited.kss.json");
  std::ofstream(path) << j.dump();
  try {
    Session::load(path);
    fs::remove(path);
    return {};
  } catch (const Error& e) {
    fs::remove(path);
    return e.what();
  }
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

class TestSessionFile : public QObject {
  Q_OBJECT
 private slots:
  void fixtureLoads() {
    const Session s = Session::load(fixturePath());
    QVERIFY(s.hasStage(Stage::Planned));
    QVERIFY(s.trace().plan.steps.size() >= 3);
    QVERIFY(!s.trace().plan.buffers.empty());
    QCOMPARE(loadEdited([](json&) {}), std::string());
  }

  // A version 2 file (whole kernel states in its fusion trace) loads, and saves as the current
  // version with the same trace: every step's diff and every intermediate state.
  void version2FixtureLoads() {
    const Session s = Session::load(std::string(KS_SOURCE_DIR) + "/tests/data/sessions/softmax_v2.kss.json");
    QVERIFY(s.hasStage(Stage::Planned));
    const FusionTrace& t = s.trace().shownRun()->trace;
    QVERIFY(t.steps.size() >= 5);
    const Session back = Session::fromJson(s.toJson());
    QCOMPARE(json::parse(s.toJson())["version"].get<int>(), 10);
    const FusionTrace& u = back.trace().shownRun()->trace;
    QCOMPARE(u.steps.size(), t.steps.size());
    for (std::size_t i = 0; i < t.steps.size(); ++i) {
      QVERIFY(u.steps[i].diff.set == t.steps[i].diff.set);
      QCOMPARE(u.steps[i].diff.removed, t.steps[i].diff.removed);
      QVERIFY(u.stateAfter(i + 1) == t.stateAfter(i + 1));
    }
  }

  // Files from before zero-copy (versions 2 and 3; the v3 one is a seed of the session fuzz corpus,
  // mlp.ks on PoCL + openblas): every copy step is a real copy, no buffer aliases another, an OpenCL
  // device read from them is not taken for host memory; a save writes version 4 with the keys.
  void filesBeforeZeroCopyLoadWithRealCopies() {
    for (const int version : {2, 3}) {
      const std::string path =
          std::string(KS_SOURCE_DIR) + "/tests/data/sessions/copies_v" + std::to_string(version) + ".kss.json";
      QCOMPARE(json::parse(std::ifstream(path)).at("version").get<int>(), version);
      const Session s = Session::load(path);
      int copies = 0;
      for (const PlanStep& st : s.trace().plan.steps) {
        QVERIFY(!st.zeroCopy);
        copies += st.kind == PlanStep::Kind::Copy;
      }
      QVERIFY(copies >= 2);
      for (const PlanBuffer& b : s.trace().plan.buffers) QCOMPARE(b.alias, -1);
      for (const DeviceInfo& d : s.devices()) QCOMPARE(d.hostVisible, d.kind != DeviceKind::OpenCL);
      const json saved = json::parse(s.toJson());
      QCOMPARE(saved.at("version").get<int>(), 10);
      QVERIFY(saved["trace"]["plan"]["steps"][0].contains("zero_copy"));
      QVERIFY(saved["trace"]["plan"]["buffers"][0].contains("alias"));
      QVERIFY(saved["devices"][0].contains("host_visible"));
    }
  }

  // Training sessions from before updates were saved: version 4 (train_v4, saved by that build:
  // `w <- w - 0.1 * x` on f32[4]) and version 5 (train_v5: the same program as version 5 wrote it,
  // with places and without updates) load as before, without updates (and the plan key warning of
  // a program without them); a save writes the current version with an empty "updates".
  void trainingFilesBeforeUpdatesLoad() {
    for (const int version : {4, 5}) {
      const std::string path = std::string(KS_SOURCE_DIR) + "/tests/data/sessions/train_v" + std::to_string(version) + ".kss.json";
      QCOMPARE(json::parse(std::ifstream(path)).at("version").get<int>(), version);
      const Session s = Session::load(path);
      QVERIFY(s.hasStage(Stage::Planned));
      QVERIFY(s.program().updates.empty());
      QCOMPARE(s.program().places.empty(), version == 4);
      QCOMPARE(s.runs().size(), std::size_t(1));
      QVERIFY(s.runs()[0].updates.empty());
      const json saved = json::parse(s.toJson());
      QCOMPARE(saved.at("version").get<int>(), 10);
      QVERIFY(saved["program"]["updates"].is_array() && saved["program"]["updates"].empty());
    }
  }

  // Each edit, and the pointer and expectation its error must name.
  void editedFilesNameTheBadValue_data() {
    QTest::addColumn<int>("edit");
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QString>("expected");
    const char* rows[][3] = {
        {"step input buffer 99999", "/trace/plan/steps/2/inputs/0", "expected a buffer of the plan"},
        {"no plan buffers", "/trace/plan/steps/", "(there are none), found 0"},
        {"step node is a string", "/trace/plan/steps/0/node", "expected an integer in 0..4294967295, found \"seven\""},
        {"version 1e30", "version 1e+30 is not supported", "expected 1 to 10"},
        {"negative class shape", "/graph/classes/0/shape/0", "expected a dimension >= 0, found -3"},
        {"stage 99", "/stage", "expected a stage 0..5, found 99"},
        {"entry device 7", "/trace/entries/0/device", "expected a device"},
        {"node operand 99999", "/graph/nodes/", "expected a class (11 in the graph), found 99999"},
        {"kernel op reads a later op", "/trace/kernels/0/fused/kernel", "before it is defined"},
        {"huge output tensor", "/runs/0/outputs/0/value/values", "expected 1000000000000000 values"},
        {"missing plan key", "/trace/plan/steps/1/device", "missing"},
        {"unknown step kind", "/trace/plan/steps/0", "expected \"launch\" or \"copy\", found \"jump\""},
        {"buffer pool 5", "/trace/plan/buffers/0/pool", "expected a memory pool"},
        {"kernel node ref 999", "/graph/nodes/", "expected a kernel entry of the trace"},
        {"buffer alias 99999", "/trace/plan/buffers/1/alias", "expected -1 or another buffer that aliases none"},
        // Lowering indexed the reshape [4096, 1] with the store's rank-1 index (SIGSEGV).
        {"store shape differs from its value", "/trace/kernels/1/fused/kernel", "op 4: shape [4096] differs from the [4096, 1]"},
        {"op dtype differs from its operands", "/trace/kernels/0/fused/kernel", "op 3: dtype bool differs from the f32"},
        {"read parameter differs from its class", "/trace/kernels/1/fused/loads/0", "expected a class of the kernel's read parameter's f32[4096, 1024]"},
        {"schedule_json not JSON", "/trace/entries/0/schedule_json", "expected a schedule as JSON text"},
        {"schedule_json a list", "/trace/entries/1/schedule_json", "expected a schedule (an object of its settings), found array"},
        {"schedule_json value a string", "/trace/entries/0/schedule_json/vec", "expected an integer"},
        {"schedule_json other than named", "/trace/entries/2/schedule_json", "expected the schedule that \"schedule\" names ('default'), found 'vec=4'"},
        {"node op 255", "/graph/nodes/5/op", "expected an op code 0..20 for a unary node, found 255"},
        {"reduce op 9", "/graph/nodes/1/op", "expected an op code 0..3 for a reduce node, found 9"},
        {"op code on a reshape", "/graph/nodes/2/op", "expected no op code (0) for a reshape node, found 3"},
        {"binary node with one operand", "/graph/nodes/4/in", "expected 2 operands for a binary node, found 1"},
        {"pad node without its attributes", "/graph/nodes/3", "pad axis out of range"},
        {"node shape differs from its class", "/graph/nodes/2", "its operands give f32[1, 4096], but its class %2 is f32[4096, 1]"},
        {"leaf kind 7", "/graph/leaves/0/kind", "expected a leaf kind 0..2"},
        {"class shape overflows", "/graph/classes/3/shape/1", "expected a shape of at most 2^63 elements"},
        {"device kind gpu", "/devices/1/kind", "expected \"opencl\", \"openblas\" or \"host\", found \"gpu\""},
        {"device compute units 1e30", "/devices/0/compute_units", "expected an integer"},
    };
    for (int i = 0; i < int(std::size(rows)); ++i) QTest::newRow(rows[i][0]) << i << QString(rows[i][1]) << QString(rows[i][2]);
  }
  void editedFilesNameTheBadValue() {
    QFETCH(int, edit);
    QFETCH(QString, pointer);
    QFETCH(QString, expected);
    const std::vector<std::function<void(json&)>> edits = {
        [](json& j) { j["trace"]["plan"]["steps"][2]["inputs"] = {99999}; },
        [](json& j) { j["trace"]["plan"]["buffers"] = json::array(); },
        [](json& j) { j["trace"]["plan"]["steps"][0]["node"] = "seven"; },
        [](json& j) { j["version"] = 1e30; },
        [](json& j) { j["graph"]["classes"][0]["shape"] = {-3}; },
        [](json& j) { j["stage"] = 99; },
        [](json& j) { j["trace"]["entries"][0]["device"] = 7; },
        [](json& j) {
          for (auto& n : j["graph"]["nodes"])
            if (n.contains("in")) return void(n["in"][0] = 99999);
        },
        [](json& j) {
          for (auto& op : j["trace"]["kernels"][0]["fused"]["kernel"])
            if (op.contains("src")) return void(op["src"][0] = 5000);
        },
        [](json& j) { j["runs"][0]["outputs"][0]["value"]["shape"] = {100000, 100000, 100000}; },
        [](json& j) { j["trace"]["plan"]["steps"][1].erase("device"); },
        [](json& j) { j["trace"]["plan"]["steps"][0]["kind"] = "jump"; },
        [](json& j) { j["trace"]["plan"]["buffers"][0]["pool"] = 5; },
        [](json& j) {
          for (auto& n : j["graph"]["nodes"])
            if (n["kind"] == "kernel") return void(n["ref"] = 999);
        },
        [](json& j) { j["trace"]["plan"]["buffers"][1]["alias"] = 99999; },
        [](json& j) { j["trace"]["kernels"][1]["fused"]["kernel"][4]["shape"] = {4096}; },
        [](json& j) { j["trace"]["kernels"][0]["fused"]["kernel"][3]["dtype"] = "bool"; },
        [](json& j) { j["trace"]["kernels"][1]["fused"]["loads"][0] = 2; },
        [](json& j) { j["trace"]["entries"][0]["schedule_json"] = "{\"wg_n\": 0,"; },
        [](json& j) { j["trace"]["entries"][1]["schedule_json"] = "[1, 2]"; },
        [](json& j) { j["trace"]["entries"][0]["schedule_json"] = "{\"vec\": \"wide\"}"; },
        [](json& j) { j["trace"]["entries"][2]["schedule_json"] = "{\"vec\": 4}"; },
        [](json& j) { j["graph"]["nodes"][5]["op"] = 255; },
        [](json& j) { j["graph"]["nodes"][1]["op"] = 9; },
        [](json& j) { j["graph"]["nodes"][2]["op"] = 3; },
        [](json& j) { j["graph"]["nodes"][4]["in"] = {0}; },
        [](json& j) { j["graph"]["nodes"][3]["kind"] = "pad", j["graph"]["nodes"][3]["attr"] = json::array(); },
        [](json& j) { j["graph"]["nodes"][2]["attr"] = {1, 4096}; },
        [](json& j) { j["graph"]["leaves"][0]["kind"] = 7; },
        [](json& j) { j["graph"]["classes"][3]["shape"] = {int64_t{1} << 40, int64_t{1} << 40}; },
        [](json& j) { j["devices"][1]["kind"] = "gpu"; },
        [](json& j) { j["devices"][0]["compute_units"] = 1e30; },
    };
    const std::string message = loadEdited(edits.at(edit));
    QVERIFY2(has(message, "edited.kss.json"), message.c_str());  // the file is named
    QVERIFY2(has(message, pointer.toStdString()), message.c_str());
    QVERIFY2(has(message, expected.toStdString()), message.c_str());
    QVERIFY2(!has(message, "json.exception"), message.c_str());
  }

  // A value nested 100,000 deep (in the graph, and as a version) is refused naming the limit:
  // reading it would recurse once per level (dump, copy, conversion) and overflow the stack.
  void deepNestingIsRefused() {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    std::string text = fixture().dump();
    for (const auto& [key, with] : {std::pair{std::string("\"graph\":{"), std::string("\"graph\":{\"deep\":") + deep + ","},
                                    std::pair{std::string("\"version\":1"), std::string("\"version\":") + deep}}) {
      std::string edited = text;
      const std::size_t at = edited.find(key);
      QVERIFY2(at != std::string::npos, key.c_str());
      edited.replace(at, key.size(), with);
      const std::string path = tempPath("deep.kss.json");
      std::ofstream(path) << edited;
      std::string message;
      try {
        Session::load(path);
      } catch (const Error& e) {
        message = e.what();
      }
      fs::remove(path);
      QVERIFY2(has(message, "deep.kss.json: nested deeper than 128 levels"), message.c_str());
    }
    // The limit is far above what a session nests: the fixture loads from its text as well.
    QVERIFY(Session::fromJson(text).hasStage(Stage::Planned));
  }
};

QTEST_APPLESS_MAIN(TestSessionFile)
#include "test_session_file.moc"
