// The diff of two sessions matches classes, kernels and plan steps by structure: a program with
// an unrelated statement put in front (every class id, leaf index and kernel index shifts)
// still matches every class, kernel and step of the original, and the added ones are the only
// differences; a session and its saved file do not differ; other devices change the plan.
#include <QtTest>

#include <filesystem>

#include "engine/devices/device_info.h"
#include "engine/graph/term_hash.h"
#include "engine/io/program_source.h"
#include "engine/session/session.h"
#include "engine/session/session_diff.h"
#include "engine/session/session_diff_json.h"
#include "tests/require_opencl.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {
const char* kBase =
    "input x: f32[8, 16]\n"
    "param w: f32[16, 32] = normal(std=0.1, seed=1)\n"
    "h = relu(x @ w)\n"
    "y = softmax(h, axis=-1)\n"
    "output y\n";
// The same program after an unrelated statement with its own input and output.
const char* kShifted =
    "input z: f32[4, 4]\n"
    "e = exp(z) * 2\n"
    "input x: f32[8, 16]\n"
    "param w: f32[16, 32] = normal(std=0.1, seed=1)\n"
    "h = relu(x @ w)\n"
    "y = softmax(h, axis=-1)\n"
    "output e\n"
    "output y\n";

bool haveOpenCL() {
  for (auto& d : discoverDevices())
    if (d.compiles()) return true;
  return false;
}
Session compiled(const char* text, const std::string& devices = "opencl:0:0") {
  SessionOptions o;
  o.devices = devices;
  o.tune = TuneLevel::None;
  o.cache = "none";
  Session s(parseKs(text, "diff.ks"), o);
  s.runTo(Stage::Planned);
  return s;
}
std::string tempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("ks_test_session_diff_" + std::to_string(::getpid()) + "_" + name)).string();
}
}  // namespace

class TestSessionDiff : public QObject {
  Q_OBJECT
 private slots:
  // Term hashes do not depend on ids: every class of the base program has a class of equal hash
  // in the shifted one, at another id.
  void termHashesIgnoreIds() {
    const Program a = parseKs(kBase, "a.ks"), b = parseKs(kShifted, "b.ks");
    const auto ha = termHashes(a.graph), hb = termHashes(b.graph);
    int shifted = 0;
    for (ClassId c : a.graph.canonicalClasses()) {
      const auto it = std::find(hb.begin(), hb.end(), ha[c.v]);
      QVERIFY2(it != hb.end(), ("class %" + std::to_string(c.v) + " has no match").c_str());
      shifted += static_cast<std::size_t>(it - hb.begin()) != c.v;
    }
    QVERIFY(shifted > 0);
    // Within one graph the hash tells classes apart (hashconsing makes equal terms one class).
    std::vector<uint64_t> seen;
    for (ClassId c : b.graph.canonicalClasses()) seen.push_back(hb[c.v]);
    std::sort(seen.begin(), seen.end());
    QVERIFY(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
  }

  void shiftedProgramMatchesByStructure() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    const Session a = compiled(kBase), b = compiled(kShifted);
    const SessionDiff d = diffSessions(a, b, "a", "b");
    QVERIFY(d.onlyAClasses.empty());
    QVERIFY(!d.onlyBClasses.empty());
    QCOMPARE(d.matchedClasses + d.onlyBClasses.size(), d.b.classes);
    for (uint32_t c : d.onlyBClasses) QVERIFY(b.graph().structural(ClassId(c)).isStructural());
    // Every kernel A launches is launched by B, on the same device with the same schedule.
    int both = 0, onlyB = 0;
    for (const DiffKernel& k : d.kernels) {
      QVERIFY2(k.nsB.has_value(), k.name().c_str());
      if (k.nsA) {
        ++both;
        QVERIFY2(!k.changed(), k.name().c_str());
        QCOMPARE(k.deviceA, k.deviceB);
        QVERIFY(k.compiledA && k.compiledB);
      } else {
        ++onlyB;
        QVERIFY(k.nameB.find("exp") != std::string::npos);
      }
    }
    int launchesA = 0;
    for (const PlanStep& st : a.trace().plan.steps) launchesA += st.kind == PlanStep::Kind::Launch;
    QCOMPARE(both, launchesA);
    QCOMPARE(onlyB, 1);
    // Kernel names carry indices, which shifted: the match did not come from them.
    bool renamed = false;
    for (const DiffKernel& k : d.kernels) renamed |= k.nsA && k.nameA != k.nameB;
    QVERIFY(renamed);
    QVERIFY(d.plan.onlyA.empty());
    QVERIFY(d.plan.changed.empty());
    QCOMPARE(static_cast<std::size_t>(d.plan.same), a.trace().plan.steps.size());
    QVERIFY(!d.plan.onlyB.empty());
    for (const DiffStep& s : d.plan.onlyB) QCOMPARE(d.stepStatusB.at(static_cast<std::size_t>(s.index)), std::string("only_b"));
    // B's kernelizer saw the extra statement: its decisions differ from some step on.
    QVERIFY(d.fusion.firstDifference >= 0);
    QVERIFY(d.fusion.onlyB > 0);
    QCOMPARE(d.fusion.onlyA, 0);
    QVERIFY(d.choices.empty());
  }

  // A saved and reloaded session is the same session: nothing differs, and the times agree.
  void savedSessionDoesNotDiffer() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    const Session a = compiled(kBase);
    const std::string path = tempPath("a.kss.json");
    a.save(path);
    const Session b = Session::load(path);
    fs::remove(path);
    const SessionDiff d = diffSessions(a, b);
    QCOMPARE(d.matchedClasses, d.a.classes);
    QVERIFY(d.onlyAClasses.empty() && d.onlyBClasses.empty());
    QVERIFY(d.plan.onlyA.empty() && d.plan.onlyB.empty() && d.plan.changed.empty());
    QCOMPARE(d.fusion.firstDifference, -1);
    QVERIFY(d.choices.empty());
    for (const DiffKernel& k : d.kernels) {
      QVERIFY(k.nsA && k.nsB);
      QCOMPARE(*k.nsA, *k.nsB);
    }
    const auto j = sessionDiffJson(d);
    QCOMPARE(j["plan"]["only_a"].size(), std::size_t{0});
    QCOMPARE(j["kernels"].size(), d.kernels.size());
    QVERIFY(j["kernels"][0].contains("time_a_us"));
  }

  // With openblas the matmul moves to a GEMM: that step's kind and device change (or it is a new
  // step), and the JSON says null for the side that did not launch a kernel.
  void otherDevicesChangeThePlan() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    bool blas = false;
    for (auto& dev : discoverDevices()) blas |= dev.kind == DeviceKind::OpenBlas;
    if (!blas) QSKIP("no openblas device");
    const Session a = compiled(kBase), b = compiled(kBase, "opencl:0:0,openblas");
    const SessionDiff d = diffSessions(a, b);
    QCOMPARE(d.matchedClasses, d.a.classes);
    bool gemmOnlyB = false;
    for (const DiffKernel& k : d.kernels) gemmOnlyB |= k.gemm && !k.nsA && k.nsB;
    QVERIFY(gemmOnlyB);
    QVERIFY(!d.plan.changed.empty() || !d.plan.onlyB.empty());
    const auto j = sessionDiffJson(d);
    bool nullA = false;
    for (const auto& k : j["kernels"]) nullA |= k["time_a_us"].is_null() && k["time_b_us"].is_number();
    QVERIFY(nullA);
  }

  void sessionWithoutPlanIsRefused() {
    SessionOptions o;
    o.devices = "host";
    const Session a(parseKs(kBase, "a.ks"), o);
    try {
      diffSessions(a, a, "a.kss.json", "b.kss.json");
      QFAIL("a session without a plan was compared");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("a.kss.json") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestSessionDiff)
#include "test_session_diff.moc"
