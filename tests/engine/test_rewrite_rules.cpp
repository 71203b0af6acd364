// Every rewrite rule on a small program where it matches: the rule fires, the merged classes
// agree in shape, and the rewritten term (extracted preferring the nodes the rule added) gives
// the numbers the host executor gives for the un-rewritten program, on random inputs of
// several shapes. Plus rule selection by mode and switches.
#include <QtTest>

#include <cmath>
#include <functional>
#include <set>

#include "engine/core/error.h"
#include "engine/core/tolerance.h"
#include "engine/eval/host_executor.h"
#include "engine/program/builder.h"
#include "engine/rewrite/rule_set.h"
#include "engine/rewrite/runner.h"
#include "engine/rewrite/term.h"

using namespace ks;

namespace {
using Build = std::function<Value(ProgramBuilder&, const Shape&)>;

struct Case {
  const char* rule;
  Build build;
  std::vector<Shape> shapes{{2, 3, 4}, {1, 5, 3}, {4, 1, 2}};
};

Value raw(ProgramBuilder& b, NodeKind kind, Value x, std::vector<int64_t> attr, Scalar value = {}) {
  Node n = rule::make(kind, {x.id()}, std::move(attr));
  n.value = value;
  return b.add(std::move(n));
}

std::vector<Case> cases() {
  auto in = [](ProgramBuilder& b, const Shape& s, const char* name = "x") { return b.input(name, DType::F32, s); };
  return {
      {"permute-permute", [=](ProgramBuilder& b, const Shape& s) { return op::permute(op::permute(in(b, s), {1, 2, 0}), {2, 0, 1}); }},
      {"permute-permute", [=](ProgramBuilder& b, const Shape& s) { return op::exp(op::permute(op::permute(in(b, s), {1, 0, 2}), {0, 2, 1})); }},
      {"permute-identity", [=](ProgramBuilder& b, const Shape& s) { return op::exp(raw(b, NodeKind::Permute, in(b, s), {0, 1, 2})); }},
      {"reshape-reshape", [=](ProgramBuilder& b, const Shape& s) {
         return op::reshape(op::reshape(in(b, s), {s[0] * s[1], s[2]}), {s[0], s[1] * s[2]});
       }, {{2, 3, 4}, {1, 5, 3}, {3, 2, 2}}},
      {"reshape-same", [=](ProgramBuilder& b, const Shape& s) { return op::exp(raw(b, NodeKind::Reshape, in(b, s), s)); }},
      {"expand-expand", [=](ProgramBuilder& b, const Shape& s) {
         Value x = b.input("x", DType::F32, {s[0], 1, 1});
         return raw(b, NodeKind::Expand, raw(b, NodeKind::Expand, x, {s[0], s[1], 1}), s);
       }},
      {"expand-same", [=](ProgramBuilder& b, const Shape& s) { return op::exp(raw(b, NodeKind::Expand, in(b, s), s)); }},
      {"narrow-pad", [=](ProgramBuilder& b, const Shape& s) {
         return op::exp(op::narrow(raw(b, NodeKind::Pad, in(b, s), {1, 2, 1}, Scalar::of(DType::F32, 0)), 1, 2, s[1]));
       }},
      {"narrow-narrow", [=](ProgramBuilder& b, const Shape& s) {
         return op::narrow(op::narrow(in(b, s), 2, 1, s[2] - 1), 2, 1, s[2] - 2);
       }, {{2, 3, 4}, {1, 5, 3}, {4, 1, 5}}},
      {"crop-narrow", [=](ProgramBuilder& b, const Shape& s) {
         return op::exp(raw(b, NodeKind::Pad, in(b, s), {0, 0, -1}, Scalar::of(DType::F32, 0)));
       }, {{2, 3, 4}, {3, 5, 3}, {4, 1, 2}}},
      {"pad-pad", [=](ProgramBuilder& b, const Shape& s) {
         const Scalar v = Scalar::of(DType::F32, -1.5);
         return raw(b, NodeKind::Pad, raw(b, NodeKind::Pad, in(b, s), {2, 1, 0}, v), {2, 2, 3}, v);
       }},
      {"unary-permute", [=](ProgramBuilder& b, const Shape& s) { return op::exp(op::permute(in(b, s), {2, 0, 1})); }},
      {"unary-permute", [=](ProgramBuilder& b, const Shape& s) { return op::cast(op::permute(in(b, s), {2, 0, 1}), DType::F16); }},
      {"permute-unary", [=](ProgramBuilder& b, const Shape& s) { return op::permute(op::tanh(in(b, s)), {1, 2, 0}); }},
      {"binary-permute", [=](ProgramBuilder& b, const Shape& s) {
         return op::add(op::permute(in(b, s), {2, 0, 1}), op::permute(in(b, s, "y"), {2, 0, 1}));
       }},
      {"binary-permute", [=](ProgramBuilder& b, const Shape& s) { return op::mul(op::permute(in(b, s), {1, 0, 2}), 3.0); }},
      {"permute-binary", [=](ProgramBuilder& b, const Shape& s) { return op::permute(op::sub(in(b, s), in(b, s, "y")), {0, 2, 1}); }},
      {"permute-binary", [=](ProgramBuilder& b, const Shape& s) { return op::permute(op::div(2.0, in(b, s)), {2, 1, 0}); }},
      // Matmul chains: s = {m, k, n}.
      {"matmul-transpose", [=](ProgramBuilder& b, const Shape& s) {
         return op::matmul(op::permute(in(b, {s[1], s[0]}, "a"), {1, 0}), op::permute(in(b, {s[2], s[1]}, "b"), {1, 0}));
       }},
      {"matmul-transpose", [=](ProgramBuilder& b, const Shape& s) { return op::matmul(in(b, {s[0], s[1]}, "a"), in(b, {s[1], s[2]}, "b")); }},
      {"matmul-assoc-right", [=](ProgramBuilder& b, const Shape& s) {
         return op::matmul(op::matmul(in(b, {s[0], s[1]}, "a"), in(b, {s[1], s[2]}, "b")), in(b, {s[2], 3}, "c"));
       }},
      {"matmul-assoc-left", [=](ProgramBuilder& b, const Shape& s) {
         return op::matmul(in(b, {s[0], s[1]}, "a"), op::matmul(in(b, {s[1], s[2]}, "b"), in(b, {s[2], 3}, "c")));
       }},
      {"mul-one", [=](ProgramBuilder& b, const Shape& s) { return op::exp(op::mul(in(b, s), 1.0)); }},
      {"mul-one", [=](ProgramBuilder& b, const Shape& s) { return op::exp(op::mul(1.0, in(b, s))); }},
      {"div-one", [=](ProgramBuilder& b, const Shape& s) { return op::exp(op::div(in(b, s), 1.0)); }},
      {"sub-zero", [=](ProgramBuilder& b, const Shape& s) { return op::exp(op::sub(in(b, s), 0.0)); }},
      {"add-zero", [=](ProgramBuilder& b, const Shape& s) { return op::exp(op::add(0.0, in(b, s))); }},
      {"neg-neg", [=](ProgramBuilder& b, const Shape& s) { return op::exp(op::neg(op::neg(in(b, s)))); }},
      {"pow-square", [=](ProgramBuilder& b, const Shape& s) { return op::exp(op::pow(in(b, s), 2.0)); }},
      {"sub-self", [=](ProgramBuilder& b, const Shape& s) { Value x = in(b, s); return op::add(op::sub(x, x), in(b, s, "y")); }},
      {"factor", [=](ProgramBuilder& b, const Shape& s) {
         Value a = in(b, s, "a");
         return op::add(op::mul(a, in(b, s, "b")), op::mul(in(b, s, "c"), a));
       }},
      {"factor", [=](ProgramBuilder& b, const Shape& s) { Value a = in(b, s, "a"); return op::add(op::mul(2.0, a), op::mul(2.0, in(b, s, "c"))); }},
      {"distribute", [=](ProgramBuilder& b, const Shape& s) {
         return op::mul(in(b, s, "a"), op::add(in(b, s, "b"), in(b, s, "c")));
       }},
      {"distribute", [=](ProgramBuilder& b, const Shape& s) { return op::mul(in(b, s, "a"), op::add(in(b, s, "b"), 1.5)); }},
      {"sum-scaled", [=](ProgramBuilder& b, const Shape& s) { return op::sum(op::mul(in(b, s), 0.5), {1}); }},
      {"sum-scaled", [=](ProgramBuilder& b, const Shape& s) { return op::sum(op::mul(3.0, in(b, s))); }},
      {"scaled-sum", [=](ProgramBuilder& b, const Shape& s) { return op::mul(op::sum(in(b, s), {0, 2}), 0.25); }},
      {"fold-constants", [=](ProgramBuilder& b, const Shape& s) {
         return op::mul(in(b, s), op::exp(op::add(b.scalar(2.0, DType::F32), b.scalar(0.5, DType::F32))));
       }},
      {"fold-constants", [=](ProgramBuilder& b, const Shape& s) {
         return op::add(op::cast(in(b, s), DType::I32), op::cast(b.scalar(7.9, DType::F32), DType::I32));
       }},
  };
}

const Rule& ruleNamed(const std::vector<Rule>& all, const std::string& name) {
  for (const Rule& r : all)
    if (r.name == name) return r;
  throw Error(ErrorCode::Usage, "no rule " + name);
}

// Prefers nodes the rewrite added, so the extracted term is the rewritten form.
NodeCost preferAdded(std::size_t firstAdded) {
  return [firstAdded](const Graph&, NodeId n) { return n.v >= firstAdded ? 1.0 : 16.0; };
}

std::string compareTerms(const Program& p, const MaterializedTerm& t, int64_t reduceTerms, uint64_t seed) {
  const auto leaves = bindLeaves(p, {}, seed);
  const auto want = HostExecutor::run(p.graph, p.outputClasses(), leaves);
  const auto got = HostExecutor::run(t.graph, t.outputs, leaves);
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[i].shape() != want[i].shape() || got[i].dtype() != want[i].dtype()) return "output shape or dtype changed";
    const std::string bad = compareWithTolerance(got[i], want[i], reduceTerms);
    if (!bad.empty()) return bad;
  }
  return "";
}
}  // namespace

class TestRewriteRules : public QObject {
  Q_OBJECT

 private slots:
  void everyRuleHasACase() {
    std::set<std::string> covered;
    for (const Case& c : cases()) covered.insert(c.rule);
    for (const Rule& r : allRules()) QVERIFY2(covered.count(r.name), r.name.c_str());
  }

  void eachRuleMatchesMergesAndAgreesWithTheHost() {
    const std::vector<Rule> all = allRules();
    uint64_t seed = 1;
    for (const Case& c : cases()) {
      const Rule& rule = ruleNamed(all, c.rule);
      for (const Shape& shape : c.shapes) {
        ProgramBuilder b(c.rule);
        b.output("out", c.build(b, shape));
        const Program p = b.finish();
        Graph g = p.graph;
        const std::size_t before = g.nodeCount();
        const RewriteReport rep = saturate(g, {rule}, RewriteLimits{});
        const std::string what = std::string(c.rule) + " on " + shapeStr(shape);
        QVERIFY2(!rep.steps.empty(), ("no merge: " + what).c_str());
        for (const RewriteStep& s : rep.steps) {
          QCOMPARE(s.rule, rule.name);
          QCOMPARE(g.find(s.root), g.find(s.added));
        }
        QCOMPARE(rep.stop, RewriteStop::Saturated);
        g.checkInvariants();
        const MaterializedTerm t = materialize(g, chooseTerm(g, preferAdded(before)), p.outputClasses());
        QVERIFY2(t.graph.dump() != p.graph.dump(), ("the extracted term is the original: " + what).c_str());
        QCOMPARE(t.graph.shape(t.outputs[0]), p.graph.shape(p.outputClasses()[0]));
        for (int rep2 = 0; rep2 < 2; ++rep2) {
          const std::string bad = compareTerms(p, t, 64, seed++);
          QVERIFY2(bad.empty(), (what + ": " + bad).c_str());
        }
      }
    }
  }

  void exactRulesAreBitwiseEqualOnSpecialValues() {
    // -0, inf and NaN through the identities that claim exactness.
    const std::vector<Rule> all = allRules();
    for (const char* name : {"mul-one", "div-one", "sub-zero", "neg-neg", "unary-permute"}) {
      const Rule& r = ruleNamed(all, name);
      QVERIFY(r.exact);
      ProgramBuilder b(name);
      Value x = b.input("x", DType::F32, {2, 3});
      Value y = std::string(name) == "mul-one"   ? op::mul(x, 1.0)
                : std::string(name) == "div-one" ? op::div(x, 1.0)
                : std::string(name) == "sub-zero" ? op::sub(x, 0.0)
                : std::string(name) == "neg-neg" ? op::neg(op::neg(x))
                                                 : op::permute(op::sqrt(op::permute(x, {1, 0})), {1, 0});
      b.output("y", y);
      const Program p = b.finish();
      Graph g = p.graph;
      const std::size_t before = g.nodeCount();
      saturate(g, {r}, {});
      const MaterializedTerm t = materialize(g, chooseTerm(g, preferAdded(before)), p.outputClasses());
      HostTensor v(DType::F32, {2, 3});
      const double special[6] = {-0.0, 0.0, INFINITY, -INFINITY, NAN, -2.5};
      for (int i = 0; i < 6; ++i) v.setDouble(i, special[i]);
      const auto want = HostExecutor::run(p.graph, p.outputClasses(), {v});
      const auto got = HostExecutor::run(t.graph, t.outputs, {v});
      for (int i = 0; i < 6; ++i) {
        const double a = got[0].getDouble(i), e = want[0].getDouble(i);
        QVERIFY2((std::isnan(a) && std::isnan(e)) || (a == e && std::signbit(a) == std::signbit(e)), name);
      }
    }
    QVERIFY(!ruleNamed(all, "add-zero").exact);  // -0 + 0 is +0
    QVERIFY(!ruleNamed(all, "sub-self").onByDefault);
  }

  void mergingDifferentShapesIsAnInvariantErrorNamingTheRule() {
    Rule bad{"bad-rule", RuleFamily::Algebra, true, true, "exp(x) -> sum(x)", {}, {}};
    bad.search = [](const Graph&, ClassId c, const Node& n, std::vector<Match>& out) {
      if (n.kind == NodeKind::Unary) out.push_back({c, {n.in[0]}, {}, {}, {}, 0});
    };
    bad.apply = [](Graph& g, const Match& m) { return g.add(rule::make(NodeKind::Reduce, {m.cls[0]}, {0}, 0)); };
    ProgramBuilder b;
    b.output("y", op::exp(b.input("x", DType::F32, {3})));
    Graph g = b.graph();
    try {
      saturate(g, {bad}, {});
      QFAIL("a shape-changing merge was accepted");
    } catch (const Error& e) {
      QCOMPARE(e.code(), ErrorCode::Invariant);
      QVERIFY2(std::string(e.what()).find("bad-rule") != std::string::npos, e.what());
    }
  }

  void selectionByModeAndSwitches() {
    auto names = [](const std::vector<Rule>& rs) {
      std::set<std::string> s;
      for (const Rule& r : rs) s.insert(r.name);
      return s;
    };
    QVERIFY(selectRules({RewriteMode::None, {}, {}}).empty());
    const auto def = names(selectRules({}));
    QVERIFY(def.count("permute-permute") && def.count("factor") && !def.count("sub-self"));
    QVERIFY(names(selectRules({RewriteMode::Aggressive, {}, {}})).count("sub-self"));
    QVERIFY(names(selectRules({RewriteMode::Default, {}, {"sub-self"}})).count("sub-self"));
    const auto noAlgebra = names(selectRules({RewriteMode::Default, {"algebra", "unary-permute"}, {}}));
    QVERIFY(!noAlgebra.count("mul-one") && !noAlgebra.count("unary-permute") && noAlgebra.count("permute-binary"));
    try {
      selectRules({RewriteMode::Default, {"no-such-rule"}, {}});
      QFAIL("an unknown rule name was accepted");
    } catch (const Error& e) {
      QCOMPARE(e.code(), ErrorCode::Usage);
      QVERIFY(std::string(e.what()).find("no-such-rule") != std::string::npos);
    }
    QVERIFY(ruleSetKey(selectRules({})) != ruleSetKey(selectRules({RewriteMode::Aggressive, {}, {}})));
  }
};

QTEST_GUILESS_MAIN(TestRewriteRules)
#include "test_rewrite_rules.moc"
