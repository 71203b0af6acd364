// The saturation runner: stop reasons and limits, the records of each rewrite, and a property
// test over random programs (every term extracted from the saturated e-graph agrees with the
// host executor on the un-rewritten program). Saturation of the transformer sample.
#include <QtTest>

#include <chrono>

#include "engine/check/random_program.h"
#include "engine/core/tolerance.h"
#include "engine/eval/host_executor.h"
#include "engine/io/program_source.h"
#include "engine/program/builder.h"
#include "engine/rewrite/rule_set.h"
#include "engine/rewrite/runner.h"
#include "engine/rewrite/term.h"
#include "engine/rewrite/term_candidates.h"

using namespace ks;

namespace {
std::vector<Rule> exactRules() {
  std::vector<Rule> r;
  for (Rule& x : selectRules({RewriteMode::Aggressive, {}, {}}))
    if (x.exact) r.push_back(std::move(x));
  return r;
}

std::string agree(const Program& p, const MaterializedTerm& t, uint64_t seed) {
  const auto leaves = bindLeaves(p, {}, seed);
  const auto want = HostExecutor::run(p.graph, p.outputClasses(), leaves);
  const auto got = HostExecutor::run(t.graph, t.outputs, leaves);
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::string bad = compareWithTolerance(got[i], want[i]);
    if (!bad.empty()) return "output " + std::to_string(i) + ": " + bad;
  }
  return "";
}
}  // namespace

class TestRewriteSaturation : public QObject {
  Q_OBJECT

 private slots:
  void saturatesAndRecordsEachRewrite() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2, 3});
    b.output("y", op::exp(op::permute(op::permute(op::mul(x, 1.0), {1, 0}), {1, 0})));
    Graph g = b.graph();
    const RewriteReport rep = saturate(g, selectRules({}), {});
    QCOMPARE(rep.stop, RewriteStop::Saturated);
    QVERIFY(rep.rounds >= 2);
    QVERIFY(rep.classesAfter < rep.classesBefore);
    QVERIFY(!rep.steps.empty());
    for (const RewriteStep& s : rep.steps) {
      QVERIFY(s.round >= 1 && s.round <= rep.rounds);
      QCOMPARE(g.find(s.root), g.find(s.added));
      QVERIFY(s.endNode >= s.firstNode);
    }
    // Rows per rule and round; their merges add up to the steps.
    std::size_t merges = 0;
    for (const RuleRound& r : rep.rules) merges += r.merges;
    QCOMPARE(merges, rep.steps.size());
    // The output is exp(x) now: x*1 and the two permutes are gone from the smallest term.
    const MaterializedTerm t = materialize(g, chooseTerm(g, nodeCountCost), {b.program().outputClasses()});
    QCOMPARE(t.graph.classCount(), std::size_t{2});
  }

  void nodeLimitIsRespected() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 4});
    Value v = x;
    for (int i = 0; i < 6; ++i) v = op::add(op::mul(v, x), op::mul(v, op::exp(x)));
    b.output("y", v);
    Graph g = b.graph();
    RewriteLimits limits;
    limits.nodes = 200;
    limits.iterations = 50;
    const RewriteReport rep = saturate(g, selectRules({}), limits);
    QCOMPARE(rep.stop, RewriteStop::NodeLimit);
    QVERIFY2(rep.stopDetail.find("200") != std::string::npos, rep.stopDetail.c_str());
    // The round that hit the limit stops applying: at most one application's nodes past it.
    QVERIFY(g.nodeCount() < 200 + 40);
    g.checkInvariants();
  }

  void iterationAndTimeLimitsAndCancel() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 4});
    Value v = x;
    for (int i = 0; i < 4; ++i) v = op::mul(op::add(v, x), op::exp(x));
    b.output("y", v);
    {
      Graph g = b.graph();
      RewriteLimits l;
      l.iterations = 1;
      QCOMPARE(saturate(g, selectRules({}), l).stop, RewriteStop::IterationLimit);
    }
    {
      Graph g = b.graph();
      RewriteLimits l;
      l.seconds = 0;
      l.iterations = 100;
      QCOMPARE(saturate(g, selectRules({}), l).stop, RewriteStop::TimeLimit);
    }
    {
      Graph g = b.graph();
      std::atomic<bool> cancel{true};
      const RewriteReport rep = saturate(g, selectRules({}), {}, Progress({}, &cancel));
      QCOMPARE(rep.stop, RewriteStop::Cancelled);
      QCOMPARE(rep.rounds, 0);
    }
  }

  void backoffBansARuleWithTooManyMatches() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4});
    Value v = x;
    for (int i = 0; i < 8; ++i) v = op::mul(op::add(v, 1.0), op::add(x, 2.0));
    b.output("y", v);
    Graph g = b.graph();
    RewriteLimits l;
    l.matchLimit = 2;
    l.iterations = 6;
    const RewriteReport rep = saturate(g, selectRules({}), l);
    bool banned = false;
    for (const RuleRound& r : rep.rules)
      if (r.banned && r.rule == "distribute") banned = true;
    QVERIFY(banned);
  }

  void randomProgramsAgreeWithTheHostAfterExactRewrites() {
    const std::vector<Rule> rules = exactRules();
    int rewritten = 0;
    for (uint64_t seed = 1; seed <= 80; ++seed) {
      const Program p = randomProgram(seed);
      Graph g = p.graph;
      const std::size_t before = g.nodeCount();
      const RewriteReport rep = saturate(g, rules, {});
      g.checkInvariants();
      if (!rep.steps.empty()) ++rewritten;
      const NodeCost costs[2] = {nodeCountCost, [before](const Graph&, NodeId n) { return n.v >= before ? 1.0 : 8.0; }};
      for (const NodeCost& cost : costs) {
        const MaterializedTerm t = materialize(g, chooseTerm(g, cost), p.outputClasses());
        const std::string bad = agree(p, t, seed);
        QVERIFY2(bad.empty(), ("seed " + std::to_string(seed) + ": " + bad + "\n" + t.graph.dump()).c_str());
      }
    }
    QVERIFY2(rewritten >= 20, std::to_string(rewritten).c_str());  // the rules do fire on random programs
  }

  void transformerSaturatesWithinQuickLimits() {
    const Program p = loadProgramFile(std::string(KS_SOURCE_DIR) + "/samples/transformer.ks");
    Graph g = p.graph;
    const RewriteReport rep = saturate(g, selectRules({}), {});
    qInfo("transformer: %s (%s), %d rounds, e-nodes %zu -> %zu, classes %zu -> %zu, %.1f ms", rewriteStopName(rep.stop),
          rep.stopDetail.c_str(), rep.rounds, rep.nodesBefore, rep.nodesAfter, rep.classesBefore, rep.classesAfter, rep.ms);
    QVERIFY(rep.nodesAfter <= RewriteLimits{}.nodes + 64);
    QVERIFY(!rep.steps.empty());
    g.checkInvariants();
    const MaterializedTerm t = materialize(g, chooseTerm(g, nodeCountCost), p.outputClasses());
    QVERIFY(t.graph.classCount() <= p.graph.classCount());
  }

  // Candidate terms: the cheapest first (chooseTerm's), then distinct runners-up, each a whole
  // term that computes the program (checked against the host on the program as built).
  void candidateTermsAreDistinctAndAgree() {
    ProgramBuilder b;
    Value a = b.input("a", DType::F32, {6, 5});
    Value c = b.input("c", DType::F32, {5, 4});
    Value v = b.input("v", DType::F32, {4, 3});
    b.output("y", op::exp(op::matmul(op::matmul(a, c), v)));
    const Program p = b.finish();
    Graph g = p.graph;
    saturate(g, selectRules({}), {});
    const auto outputs = p.outputClasses();
    const std::vector<TermCandidate> cands = candidateTerms(g, nodeCountCost, outputs, 4);
    QVERIFY2(cands.size() >= 2, std::to_string(cands.size()).c_str());
    QCOMPARE(reachableChoice(g, cands[0].choice, outputs), reachableChoice(g, chooseTerm(g, nodeCountCost), outputs));
    QCOMPARE(cands[0].differ, std::size_t{0});
    for (std::size_t i = 0; i < cands.size(); ++i) {
      if (i) QVERIFY(cands[i].differ > 0);
      for (std::size_t j = 0; j < i; ++j)
        QVERIFY(reachableChoice(g, cands[i].choice, outputs) != reachableChoice(g, cands[j].choice, outputs));
      const std::string bad = agree(p, materialize(g, cands[i].choice, outputs), 7);
      QVERIFY2(bad.empty(), bad.c_str());
    }
    QCOMPARE(candidateTerms(g, nodeCountCost, outputs, 1).size(), std::size_t{1});
  }
};

QTEST_GUILESS_MAIN(TestRewriteSaturation)
#include "test_rewrite_saturation.moc"
