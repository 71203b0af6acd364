// E-graph merging: union-find with the builder's ids kept valid, congruence closure, a canonical
// hashcons, the shape/dtype check on every merge, cycle-safe walks and the JSON form of merges.
#include <QtTest>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/eval/host_executor.h"
#include "engine/program/builder.h"

using namespace ks;

namespace {
// x, m = x*1 merged into x (a cycle: m's node has x as operand and lives in x's class), out = exp(m).
struct Cycle {
  Program p;
  ClassId x, m, out;
};
Cycle mulOneCycle() {
  ProgramBuilder b("cycle");
  Value x = b.input("x", DType::F32, {2, 3});
  Value m = op::mul(x, 1.0);
  Value out = op::exp(m);
  b.output("out", out);
  Cycle c{b.finish(), x.id(), m.id(), out.id()};
  c.p.graph.merge(c.m, c.x, "mul-one");
  c.p.graph.rebuild();
  return c;
}
}  // namespace

class TestEGraphMerge : public QObject {
  Q_OBJECT

 private slots:
  void mergeKeepsBuilderIdsValid() {
    Cycle c = mulOneCycle();
    const Graph& g = c.p.graph;
    QCOMPARE(g.find(c.m), c.x);  // the smaller id is the root
    QVERIFY(!g.isCanonical(c.m));
    QCOMPARE(g.eclass(c.m).nodes.size(), std::size_t{2});
    QCOMPARE(g.shape(c.m), (Shape{2, 3}));
    QCOMPARE(g.structural(c.m).kind, NodeKind::Leaf);
    QCOMPARE(g.canonicalClassCount(), g.classCount() - 1);
    QCOMPARE(g.structural(c.out).in.front(), c.x);  // operands canonical after rebuild
    g.checkInvariants();
  }

  void walksAreCycleSafe() {
    Cycle c = mulOneCycle();
    const Graph& g = c.p.graph;
    const auto all = g.topoOrder({c.out}, true);
    QCOMPARE(std::count(all.begin(), all.end(), c.x), 1);
    QCOMPARE(all.back(), c.out);
    for (ClassId k : all) QVERIFY(g.isCanonical(k));
    const auto structural = g.topoOrder({c.out});
    QCOMPARE(structural.size(), std::size_t{2});
    QVERIFY(g.dump().find("(merged)") != std::string::npos);
    // The host walks structural nodes: exp(x), with the merged output id still accepted.
    HostTensor x(DType::F32, {2, 3});
    for (int i = 0; i < 6; ++i) x.setDouble(i, 0.25 * i - 0.5);
    std::vector<HostTensor> leaves{x};
    const auto r = HostExecutor::run(g, {c.out}, leaves);
    for (int i = 0; i < 6; ++i) QCOMPARE(static_cast<float>(r[0].getDouble(i)), std::exp(static_cast<float>(0.25 * i - 0.5)));
  }

  void rebuildClosesUnderCongruence() {
    ProgramBuilder b;
    Value a = b.input("a", DType::F32, {4});
    Value c = b.input("c", DType::F32, {4});
    Value fa = op::exp(a), fc = op::exp(c);
    Value ga = op::neg(fa), gc = op::neg(fc);
    Graph& g = b.graph();
    QVERIFY(g.find(ga.id()) != g.find(gc.id()));
    QVERIFY(g.merge(a.id(), c.id(), "test"));
    QVERIFY(g.needsRebuild());
    QVERIFY(!g.merge(c.id(), a.id(), "test"));  // already one class
    QCOMPARE(g.rebuild(), std::size_t{2});      // exp and neg, transitively
    QCOMPARE(g.find(fa.id()), g.find(fc.id()));
    QCOMPARE(g.find(ga.id()), g.find(gc.id()));
    QCOMPARE(g.eclass(fa.id()).nodes.size(), std::size_t{1});  // the two exp nodes are one now
    g.checkInvariants();
    // The hashcons is canonical: building exp(c) again finds the merged class.
    const std::size_t classes = g.classCount();
    QCOMPARE(op::exp(c).id(), g.find(fa.id()));
    QCOMPARE(g.classCount(), classes);
  }

  void mergeOfDifferentShapesNamesTheRule() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2, 3});
    Value y = b.input("y", DType::F32, {3, 2});
    Value z = b.input("z", DType::F64, {2, 3});
    try {
      b.graph().merge(x.id(), y.id(), "bad-rule");
      QFAIL("merge accepted different shapes");
    } catch (const Error& e) {
      QCOMPARE(e.code(), ErrorCode::Invariant);
      QVERIFY2(std::string(e.what()).find("bad-rule") != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find("f32[2, 3]") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(Error, b.graph().merge(x.id(), z.id(), "dtype-rule"));
    QVERIFY(b.graph().isCanonical(y.id()));
  }

  void jsonKeepsMerges() {
    Cycle c = mulOneCycle();
    const Graph& g = c.p.graph;
    const Graph back = Graph::fromJson(g.toJson());
    QCOMPARE(back.find(c.m), c.x);
    QCOMPARE(back.dump(), g.dump());
    QCOMPARE(back.cacheKey({c.out}), g.cacheKey({c.out}));
    back.checkInvariants();
  }

  void jsonVersionOneLoads() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2});
    b.output("y", op::exp(x));
    const Graph& g = b.graph();
    nlohmann::json j = nlohmann::json::parse(g.toJson());
    j["version"] = 1;
    const Graph back = Graph::fromJson(j.dump());
    QCOMPARE(back.dump(), g.dump());
    QCOMPARE(back.canonicalClassCount(), g.classCount());
  }

  void jsonRejectsBrokenMerges() {
    Cycle c = mulOneCycle();
    nlohmann::json j = nlohmann::json::parse(c.p.graph.toJson());
    nlohmann::json upward = j;
    upward["classes"][0]["parent"] = 5;  // a parent of larger id would make find cycle
    QVERIFY_THROWS_EXCEPTION(Error, Graph::fromJson(upward.dump()));
    nlohmann::json listed = j;
    listed["classes"][c.m.v]["nodes"] = {0};
    QVERIFY_THROWS_EXCEPTION(Error, Graph::fromJson(listed.dump()));
    nlohmann::json future = j;
    future["version"] = 3;
    QVERIFY_THROWS_EXCEPTION(Error, Graph::fromJson(future.dump()));
  }

  void cacheKeySeesMerges() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2});
    Value m = op::mul(x, 1.0);
    b.output("m", m);
    Graph g = b.graph();
    const uint64_t before = g.cacheKey({m.id()});
    g.merge(m.id(), x.id(), "mul-one");
    g.rebuild();
    QVERIFY(g.cacheKey({m.id()}) != before);
  }
};

QTEST_GUILESS_MAIN(TestEGraphMerge)
#include "test_egraph_merge.moc"
