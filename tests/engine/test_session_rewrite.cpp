// The rewrite stage in the Session: it runs before AOT matching, the chosen term compiles and
// is verified against the program as built, builder ids stay valid, a warm compile takes the
// saturated e-graph from the cache, the trace round-trips through a session file, and version-1
// session files (before rewrites) still load.
#include <QtTest>

#include <algorithm>
#include <filesystem>

#include "engine/devices/device_info.h"
#include "engine/io/program_source.h"
#include "engine/program/builder.h"
#include "engine/session/session.h"
#include "tests/require_opencl.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {
bool haveOpenCL() {
  for (auto& d : discoverDevices())
    if (d.compiles()) return true;
  return false;
}
SessionOptions quickOptions(RewriteMode mode = RewriteMode::Default) {
  SessionOptions o;
  o.devices = "opencl:0:0";
  o.tune = TuneLevel::None;
  o.cache = "none";
  o.rewrite.mode = mode;
  return o;
}
// (a @ b) @ v with v * 1: reassociation and mul-one both pay off.
Program chain(int64_t n, int64_t k) {
  ProgramBuilder b("chain");
  Value a = b.input("a", DType::F32, {n, n});
  Value c = b.input("b", DType::F32, {n, n});
  Value v = b.input("v", DType::F32, {n, k});
  b.output("y", op::matmul(op::matmul(a, c), op::mul(v, 1.0)));
  return b.finish();
}
// The largest reduction the structural term computes, in input elements.
int64_t largestReduce(const Graph& g, const std::vector<ClassId>& outputs) {
  int64_t most = 0;
  for (ClassId c : g.topoOrder(outputs)) {
    const Node& n = g.structural(c);
    if (n.kind == NodeKind::Reduce) most = std::max(most, numel(g.shape(n.in[0])));
  }
  return most;
}
// Runs `steps` verified steps; the first mismatch, or "".
std::string mismatches(Session& s, int steps) {
  for (int k = 0; k < steps; ++k) {
    const RunRecord& r = s.run({}, true);
    for (const auto* list : {&r.outputs, &r.updates})
      for (const OutputValue& v : *list)
        if (!v.mismatch.empty()) return "step " + std::to_string(k) + ", " + v.name + ": " + v.mismatch;
  }
  return "";
}
}  // namespace

class TestSessionRewrite : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
  }

  void reassociatesAndVerifiesAgainstTheProgramAsBuilt() {
    Session s(chain(32, 2), quickOptions());
    const RunRecord& r = s.run({}, true);
    QVERIFY2(r.verifyPassed, r.outputs[0].mismatch.c_str());
    const RewriteTrace& t = s.trace().rewrite;
    QVERIFY(t.ran);
    QVERIFY(!t.report.steps.empty());
    QVERIFY(t.termChanges > 0);
    QVERIFY2(t.termNs < t.originalNs, (std::to_string(t.termNs) + " vs " + std::to_string(t.originalNs)).c_str());
    // The compiled term multiplies b @ v first: no 32x32x32 reduction is left.
    const int64_t most = largestReduce(s.graph(), s.program().outputClasses());
    QVERIFY2(most < 32 * 32 * 32, std::to_string(most).c_str());
    s.graph().checkInvariants();
  }

  // Every sample through the whole pipeline with rewrites, verified against the program as built;
  // a training sample for two steps, so that the second starts from params the rewritten term updated.
  void samplesWithRewritesMatchHost_data() {
    QTest::addColumn<QString>("file");
    const fs::path dir = fs::path(KS_SOURCE_DIR) / "samples";
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".ks") files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) QTest::newRow(f.c_str()) << QString::fromStdString(f);
  }
  void samplesWithRewritesMatchHost() {
    QFETCH(QString, file);
    const std::string path = std::string(KS_SOURCE_DIR) + "/samples/" + file.toStdString();
    SessionOptions o = quickOptions();
    o.devices = "all";
    Session s(loadProgramFile(path), o);
    const int steps = s.program().updates.empty() ? 1 : 2;
    if (const std::string bad = mismatches(s, steps); !bad.empty()) {
      // A fault the pipeline has without rewrites too is not a rewrite's: say so rather than blame it.
      o.rewrite.mode = RewriteMode::None;
      Session plain(loadProgramFile(path), o);
      if (!mismatches(plain, steps).empty()) QSKIP(qPrintable("the pipeline without rewrites does not verify either: " + QString::fromStdString(bad)));
      QFAIL(bad.c_str());
    }
    QVERIFY(s.trace().rewrite.ran);
    s.graph().checkInvariants();
    qInfo("%s: %s, %d rounds, %zu merges, %zu classes compile a rewritten form, static cost %.0f -> %.0f ns",
          file.toStdString().c_str(), rewriteStopName(s.trace().rewrite.report.stop), s.trace().rewrite.report.rounds,
          s.trace().rewrite.report.steps.size(), s.trace().rewrite.termChanges, s.trace().rewrite.originalNs,
          s.trace().rewrite.termNs);
  }

  void noneKeepsTheProgramAsBuilt() {
    Session s(chain(16, 2), quickOptions(RewriteMode::None));
    s.runTo(Stage::Matched);
    QVERIFY(!s.trace().rewrite.ran);
    QCOMPARE(largestReduce(s.graph(), s.program().outputClasses()), int64_t{16 * 16 * 16});
    QCOMPARE(s.graph().canonicalClassCount(), s.graph().classCount());
  }

  void builderIdsStayValid() {
    const Program p = chain(8, 3);
    Session s(p, quickOptions());
    s.runTo(Stage::Kernelized);
    const Graph& g = s.graph();
    for (uint32_t c = 0; c < p.graph.classCount(); ++c) {
      const ClassId id(c);
      QCOMPARE(g.shape(id), p.graph.shape(id));  // every builder id answers, merged or not
      QCOMPARE(g.dtype(id), p.graph.dtype(id));
    }
    // v * 1 joined v's class.
    const ClassId v = p.inputs[2].cls;
    bool merged = false;
    for (uint32_t c = 0; c < p.graph.classCount(); ++c)
      if (c != v.v && g.find(ClassId(c)) == v) merged = true;
    QVERIFY(merged);
  }

  void warmCompileTakesTheSaturatedGraphFromTheCache() {
    Session cold(chain(12, 2), quickOptions());
    cold.runTo(Stage::Matched);
    Session warm(chain(12, 2), quickOptions());
    warm.runTo(Stage::Matched);
    QVERIFY(warm.trace().rewrite.cached);
    QCOMPARE(warm.graph().dump(), cold.graph().dump());
    QCOMPARE(warm.trace().rewrite.report.steps.size(), cold.trace().rewrite.report.steps.size());
    SessionOptions other = quickOptions();
    other.rewrite.off = {"matmul"};
    Session different(chain(12, 2), other);
    different.runTo(Stage::Matched);
    QVERIFY(!different.trace().rewrite.cached);  // another rule set is another key
  }

  void sessionFileKeepsTheRewrites() {
    Session s(chain(8, 2), quickOptions());
    s.run({}, true);
    const Session back = Session::fromJson(s.toJson());
    const RewriteTrace &a = s.trace().rewrite, &b = back.trace().rewrite;
    QVERIFY(b.ran);
    QCOMPARE(b.rules, a.rules);
    QCOMPARE(b.report.stop, a.report.stop);
    QCOMPARE(b.report.steps.size(), a.report.steps.size());
    QCOMPARE(b.report.rules.size(), a.report.rules.size());
    QCOMPARE(b.termChanges, a.termChanges);
    QCOMPARE(back.options().rewrite.mode, RewriteMode::Default);
    QCOMPARE(back.graph().dump(), s.graph().dump());
    for (uint32_t c = 0; c < s.graph().classCount(); ++c) QCOMPARE(back.graph().find(ClassId(c)), s.graph().find(ClassId(c)));
  }

  void versionOneSessionFilesStillLoad() {
    const std::string path = std::string(KS_SOURCE_DIR) + "/tests/data/sessions/softmax.kss.json";
    const Session s = Session::load(path);
    QVERIFY(!s.trace().rewrite.ran);
    QCOMPARE(s.options().rewrite.mode, RewriteMode::None);
    QVERIFY(s.hasStage(Stage::Planned));
    QVERIFY(!s.trace().kernels.empty());
    QVERIFY(!s.trace().plan.steps.empty());
    QCOMPARE(s.graph().canonicalClassCount(), s.graph().classCount());
    s.graph().checkInvariants();
    QCOMPARE(s.program().outputs.size(), std::size_t{1});
  }
};

QTEST_GUILESS_MAIN(TestSessionRewrite)
#include "test_session_rewrite.moc"
