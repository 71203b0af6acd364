// The rewrite stage in the Session: it runs before AOT matching, the chosen term compiles and
// is verified against the program as built, builder ids stay valid, a warm compile takes the
// saturated e-graph from the cache, the trace round-trips through a session file, and version-1
// session files (before rewrites) still load.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "engine/core/tolerance.h"
#include "engine/devices/device_info.h"
#include "engine/devices/openblas_gemm.h"
#include "engine/eval/host_executor.h"
#include "engine/plan/gemm_layouts.h"
#include "engine/rewrite/runner.h"
#include "engine/io/program_source.h"
#include "engine/program/builder.h"
#include "engine/session/host_check.h"
#include "engine/session/magnitude.h"
#include "engine/session/plan_explanation.h"
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
    std::size_t classesAdded = 0;
    for (std::size_t i = 0; i < a.report.rules.size(); ++i) {
      QCOMPARE(b.report.rules[i].nodesAdded, a.report.rules[i].nodesAdded);
      QCOMPARE(b.report.rules[i].classesAdded, a.report.rules[i].classesAdded);
      classesAdded += a.report.rules[i].classesAdded;
    }
    QVERIFY(classesAdded > 0);  // the chain reassociates into classes of its own
    QCOMPARE(b.termChanges, a.termChanges);
    QCOMPARE(back.options().rewrite.mode, RewriteMode::Default);
    QCOMPARE(back.graph().dump(), s.graph().dump());
    for (uint32_t c = 0; c < s.graph().classCount(); ++c) QCOMPARE(back.graph().find(ClassId(c)), s.graph().find(ClassId(c)));
  }

  // The runners-up and the program as built compile beside the static best: their kernels join the
  // e-classes they compute, so the output class has producers of more than one form to choose from
  // by measured time, and the plan, whichever forms it takes, matches the program as built.
  void candidateTermsCompileSideBySide() {
    SessionOptions o = quickOptions();
    o.termCandidates = 3;
    Session s(chain(128, 4), o);
    const RunRecord& r = s.run({}, true);
    QVERIFY2(r.verifyPassed, r.outputs[0].mismatch.c_str());
    const RewriteTrace& t = s.trace().rewrite;
    QVERIFY2(t.candidates.size() >= 2, std::to_string(t.candidates.size()).c_str());
    QCOMPARE(t.candidates.front().source, std::string("static best"));
    QCOMPARE(t.candidates.back().source, std::string("as built"));
    QVERIFY(t.candidates.back().differ > 0);
    QVERIFY(t.candidates.back().staticNs > t.candidates.front().staticNs);
    for (const TermCandidateRecord& c : t.candidates) QVERIFY2(!c.kernels.empty(), c.source.c_str());
    // Kernels only the as-built form made exist and are Kernel nodes of the e-graph.
    const auto& best = t.candidates.front().kernels;
    std::size_t own = 0;
    for (uint32_t k : t.candidates.back().kernels) own += std::find(best.begin(), best.end(), k) == best.end();
    QVERIFY(own > 0);
    const ClassId out = s.graph().find(s.program().outputClasses()[0]);
    std::size_t producers = 0;
    for (NodeId n : s.graph().eclass(out).nodes) producers += s.graph().node(n).kind == NodeKind::Kernel;
    QVERIFY2(producers >= 2, std::to_string(producers).c_str());
    // Measured, a reassociated form wins (the static best or a runner-up, which differ only in
    // where a transpose goes and are as fast): nothing only the as-built form made is in the plan.
    QVERIFY(t.planCandidate >= 0 && t.planCandidate + 1 < static_cast<int>(t.candidates.size()));
    QVERIFY(t.candidates[static_cast<std::size_t>(t.planCandidate)].planKernels > 0);
    QCOMPARE(t.candidates.back().planOnly, std::size_t{0});
    s.graph().checkInvariants();
  }

  void oneCandidateCompilesTheStaticBestAlone() {
    SessionOptions o = quickOptions();
    o.termCandidates = 1;
    Session s(chain(16, 2), o);
    s.runTo(Stage::Planned);
    QVERIFY(s.trace().rewrite.candidates.empty());
    QCOMPARE(s.trace().rewrite.planCandidate, -1);
  }

  void sessionFileKeepsTheCandidates() {
    Session s(chain(16, 2), quickOptions());
    s.runTo(Stage::Planned);
    QVERIFY(!s.trace().rewrite.candidates.empty());
    const Session back = Session::fromJson(s.toJson());
    const auto &a = s.trace().rewrite, &b = back.trace().rewrite;
    QCOMPARE(b.candidates.size(), a.candidates.size());
    QCOMPARE(b.planCandidate, a.planCandidate);
    for (std::size_t i = 0; i < a.candidates.size(); ++i) {
      QCOMPARE(b.candidates[i].source, a.candidates[i].source);
      QCOMPARE(b.candidates[i].kernels, a.candidates[i].kernels);
      QCOMPARE(b.candidates[i].planKernels, a.candidates[i].planKernels);
    }
  }

  // Version 4 and 5 files (before the candidates were recorded) load with none.
  void filesBeforeVersionSixLoadWithoutCandidates_data() {
    QTest::addColumn<int>("version");
    QTest::newRow("v4") << 4;
    QTest::newRow("v5") << 5;
  }
  void filesBeforeVersionSixLoadWithoutCandidates() {
    QFETCH(int, version);
    const Session s = Session::load(std::string(KS_SOURCE_DIR) + "/tests/data/sessions/rewrite_v" + std::to_string(version) +
                                    ".kss.json");
    QVERIFY(s.trace().rewrite.ran);
    QVERIFY(s.trace().rewrite.candidates.empty());
    QCOMPARE(s.trace().rewrite.planCandidate, -1);
    QVERIFY(s.hasStage(Stage::Planned));
    s.graph().checkInvariants();
  }

  // A version 7 file (exp((a @ b) @ v), --tune none, opencl:0:0 and openblas: the static best and
  // the term as built) loads with its candidate terms, and its one fusion trace as the only
  // kernelizer run (the static best's before AOT matching), the plan's, its kernels found among
  // the trace's.
  void versionSevenFileLoads() {
    const Session s = Session::load(std::string(KS_SOURCE_DIR) + "/tests/data/sessions/rewrite_v7.kss.json");
    QVERIFY(s.hasStage(Stage::Planned));
    QCOMPARE(s.trace().rewrite.candidates.size(), std::size_t(2));
    QCOMPARE(s.trace().rewrite.candidates[1].source, std::string("as built"));
    QVERIFY(!s.trace().matches.empty());
    QCOMPARE(s.trace().fusionRuns.size(), std::size_t(1));
    const KernelizerRun& r = s.trace().fusionRuns[0];
    QCOMPARE(s.trace().planRun, 0);
    QCOMPARE(r.term, std::string("static best"));
    QVERIFY(!r.afterAot);
    QVERIFY(!r.trace.steps.empty());
    QVERIFY(!r.kernels.empty());
    for (uint32_t k : r.kernels) QCOMPARE(s.trace().kernels.at(k).pass, 0);
    s.graph().checkInvariants();
  }

  // Every kernelizer run is kept, each with its own trace: per candidate term, before and after
  // AOT matching; the plan's run makes the most of the plan's kernel steps; the runs and the
  // plan's run survive a save.
  void keepsEveryKernelizerRun() {
    SessionOptions o = quickOptions();
    o.devices = "opencl:0:0,openblas";
    Session s(chain(128, 4), o);
    s.runTo(Stage::Planned);
    const CompileTrace& t = s.trace();
    QVERIFY(!t.matches.empty());
    QVERIFY(t.rewrite.candidates.size() >= 2);
    // Each candidate ran before AOT matching, and after it when its term has matches.
    std::vector<int> before(t.rewrite.candidates.size()), after(t.rewrite.candidates.size());
    for (const KernelizerRun& r : t.fusionRuns) {
      QVERIFY(r.candidate >= 0 && static_cast<std::size_t>(r.candidate) < t.rewrite.candidates.size());
      QCOMPARE(r.term, t.rewrite.candidates[static_cast<std::size_t>(r.candidate)].source);
      ++(r.afterAot ? after : before)[static_cast<std::size_t>(r.candidate)];
      QVERIFY(r.afterAot == !r.gemms.empty());
      QVERIFY(r.afterAot || !r.trace.steps.empty());  // after AOT matching, GEMMs may leave no gap
      for (uint32_t k : r.kernels) QVERIFY(k < t.kernels.size());
      QVERIFY(r.candidate == 0 ? r.forms.empty() : !r.forms.empty());
      // Its classes are the e-graph's, and its forms rebuild a graph.
      for (const FusionStep& st : r.trace.steps)
        if (st.cls != UINT32_MAX) QVERIFY(st.cls < s.graph().classCount());
      runGraph(s.graph(), r).checkInvariants();
    }
    for (std::size_t c = 0; c < before.size(); ++c) QCOMPARE(before[c], 1);
    QCOMPARE(after[0], 1);
    QVERIFY(t.planRun >= 0);
    // The plan's run holds at least as many of the plan's kernel steps as any other run.
    const auto used = [&](const KernelizerRun& r) {
      int n = 0;
      for (NodeId id : t.extraction.order) {
        const Node& node = s.graph().node(id);
        if (node.kind != NodeKind::Kernel) continue;
        const KernelEntry& e = t.entries.at(node.ref);
        const auto& list = e.kind == KernelEntry::Kind::Gemm ? r.gemms : r.kernels;
        n += std::find(list.begin(), list.end(), e.kind == KernelEntry::Kind::Gemm ? node.ref : e.fused) != list.end();
      }
      return n;
    };
    for (const KernelizerRun& r : t.fusionRuns) QVERIFY(used(r) <= used(*t.shownRun()));
    QVERIFY(used(*t.shownRun()) > 0);
    const Session back = Session::fromJson(s.toJson());
    QCOMPARE(back.trace().fusionRuns.size(), t.fusionRuns.size());
    QCOMPARE(back.trace().planRun, t.planRun);
    for (std::size_t i = 0; i < t.fusionRuns.size(); ++i) {
      QCOMPARE(back.trace().fusionRuns[i].kernels, t.fusionRuns[i].kernels);
      QCOMPARE(back.trace().fusionRuns[i].forms, t.fusionRuns[i].forms);
      QCOMPARE(back.trace().fusionRuns[i].trace.steps.size(), t.fusionRuns[i].trace.steps.size());
    }
  }

  // The plan's run is the one that made most of the plan's kernel steps; a tie goes to the run
  // with fewer kernels the plan does not use.
  void planRunCountsThePlansKernels() {
    std::vector<KernelizerRun> runs(3);
    runs[0].kernels = {0, 1, 2};
    runs[1].kernels = {3};
    runs[1].gemms = {0};
    runs[2].kernels = {3, 4};
    runs[2].gemms = {0};
    QCOMPARE(planRunOf(runs, {{3}, {0}}), 1);
    QCOMPARE(planRunOf(runs, {{0, 1}, {}}), 0);
    QCOMPARE(planRunOf(runs, {{3, 4}, {0}}), 2);
    QCOMPARE(planRunOf({}, {{3}, {0}}), -1);
  }

  // explain-plan: the output's chosen producer with its measured time, the runner-up (the as-built
  // form's kernel) with its own, and the plan cost without the chosen node, never lower.
  void explainsAClassWithNumbers() {
    Session s(chain(128, 4), quickOptions());
    s.runTo(Stage::Planned);
    const ClassId out = s.program().outputClasses()[0];
    const PlanExplanation e = explainPlan(s, out);
    QCOMPARE(e.decided, s.graph().find(out));
    QVERIFY(e.chosen.valid());
    QVERIFY(e.chosenNs > 0);
    QVERIFY(e.runnerUp.valid());
    QVERIFY(e.runnerUpTreeNs >= e.chosenTreeNs);
    QVERIFY(e.withoutNs >= e.dagNs);
    QVERIFY(std::isfinite(e.withoutNs));
    const std::string text = explanationText(s, e);
    QVERIFY2(text.find("runner-up: node") != std::string::npos, text.c_str());
    QVERIFY2(text.find("without the chosen node: plan DAG cost") != std::string::npos, text.c_str());
    // A class computed inside a kernel is answered by that kernel's stored class.
    for (const KernelRecord& k : s.trace().kernels)
      for (ClassId c : k.fused.classes)
        if (!s.trace().extraction.chosen.count(s.graph().find(c)) && !s.graph().isLeaf(c)) {
          try {
            const PlanExplanation in = explainPlan(s, c);
            QVERIFY(!in.inside.empty());
            QVERIFY(in.decided != in.asked);
          } catch (const Error& err) {
            QCOMPARE(err.code(), ErrorCode::Unsupported);  // a class of a form the plan did not take
          }
        }
  }

  // exp(at^T) @ w: the layout rules put permute(exp(at)) into the left operand's class, so the GEMM
  // can also read exp(at) with its transpose flag flipped; both give the same product.
  void gemmReadsAnOperandsTransposePartner() {
    ProgramBuilder b("layouts");
    Value at = b.input("at", DType::F32, {5, 6});
    Value w = b.input("w", DType::F32, {5, 4});
    Value e = op::exp(op::transpose(at));
    b.output("y", op::matmul(e, w));
    const Program p = b.finish();
    Graph g = p.graph;
    saturate(g, selectRules({}), {});
    const auto m = matchMatmul(g, p.outputClasses()[0]);
    QVERIFY(m.has_value());
    const std::vector<MatmulMatch> vs = transposedOperandVariants(g, *m);
    QVERIFY2(!vs.empty(), g.dump().c_str());
    const auto leaves = bindLeaves(p, {}, 3);
    for (const MatmulMatch& v : vs) {
      QCOMPARE(g.find(v.out), g.find(m->out));
      QVERIFY(v.a != m->a || v.b != m->b);
      if (v.a != m->a) QCOMPARE(v.spec.transA, !m->spec.transA);
      const auto in = HostExecutor::run(g, {m->a, m->b, v.a, v.b}, leaves);
      HostTensor want(DType::F32, {6, 4}), got(DType::F32, {6, 4});
      runGemm(m->spec, in[0].data<float>(), in[1].data<float>(), want.data<float>());
      runGemm(v.spec, in[2].data<float>(), in[3].data<float>(), got.data<float>());
      const std::string bad = compareWithTolerance(got, want, 5);
      QVERIFY2(bad.empty(), bad.c_str());
    }
  }

  // A reassociated sum that cancels near zero is judged by the size of its terms: the magnitude
  // graph evaluates sum(|a| * |b|) - ... on absolute values, and the bound built on it accepts a
  // rounding difference the plain bound (relative to the tiny result) refuses.
  void magnitudeBoundsACancellingSum() {
    ProgramBuilder b("cancel");
    Value x = b.input("x", DType::F32, {4, 8});
    Value y = b.input("y", DType::F32, {8, 2});
    b.output("z", op::sub(op::matmul(x, y), op::matmul(x, y)));
    const Program p = b.finish();
    const MagnitudeGraph m = magnitudeGraph(p.graph, p.outputClasses());
    std::vector<HostTensor> leaves = bindLeaves(p, {}, 5);
    const auto mag = HostExecutor::run(m.graph, m.results, leaves);
    const auto ref = HostExecutor::run(p.graph, p.outputClasses(), leaves);
    // |x| @ |y| twice, added: positive where the result itself is exactly 0.
    double most = 0;
    for (int64_t i = 0; i < mag[0].numel(); ++i) {
      QCOMPARE(ref[0].getDouble(i), 0.0);
      QVERIFY(mag[0].getDouble(i) > 0);
      most = std::max(most, mag[0].getDouble(i));
    }
    HostTensor got = ref[0];
    got.setDouble(0, 1e-4 * mag[0].getDouble(0));  // a rounding-sized error against a zero result
    QVERIFY(!compareWithTolerance(got, ref[0], 8).empty());
    QVERIFY2(compareWithMagnitude(got, ref[0], mag[0], 8).empty(), compareWithMagnitude(got, ref[0], mag[0], 8).c_str());
    got.setDouble(0, 0.1 * most + 1);  // an error past the terms' size is still one
    QVERIFY(!compareWithMagnitude(got, ref[0], mag[0], 8).empty());
    const HostCheck plain = checkAgainstHost(p.graph, p.graph, p.outputClasses(), leaves, {got}, {});
    QVERIFY(!plain.mismatch[0].empty());
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
