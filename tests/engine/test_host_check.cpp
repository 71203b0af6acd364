// Bounded verification: the per-element reference gives every element the whole-tensor host
// oracle gives (programs over every node kind), a host check past its budget compares a sample
// and still finds a wrong element, and a reference past its own budget skips with the reason.
#include <QtTest>

#include "engine/core/tolerance.h"
#include "engine/eval/host_executor.h"
#include "engine/io/program_source.h"
#include "engine/session/host_check.h"
#include "engine/session/point_evaluator.h"
#include "engine/session/session.h"

using namespace ks;

namespace {
// Every node kind the reference follows: movement ops (pad with crop, narrow, slice, flip,
// transpose, expand, reshape), reductions over inner and outer axes, a matmul, integer ops,
// casts, comparisons and where.
const char* kPrograms[] = {
    "input x: f32[6, 10]\n"
    "y = softmax(x, axis=-1)\n"
    "z = log_softmax(x, axis=0)\n"
    "output y\noutput z\n",
    "input a: f32[5, 7]\n"
    "param w: f32[7, 9] = normal(std=0.3, seed=4)\n"
    "h = relu(a @ w) + sum(a, axes=[1], keepdim=true)\n"
    "output h\n",
    "input x: f32[3, 4, 5]\n"
    "p = pad(x, [[1, 2], [-1, 0], [0, 3]], value=-1.5)\n"
    "t = flip(transpose(p, 0, 2), [1])\n"
    "n = narrow(t, 2, 1, 3)\n"
    "s = slice(n, axis=0, start=1, stop=7, step=2)\n"
    "r = reshape(s, [3, 9])\n"
    "e = expand(reshape(max(x, axes=[1]), [3, 1, 5]), [3, 4, 5]) - x\n"
    "output r\noutput e\n",
    "input x: f32[4, 8]\n"
    "i = cast(x * 10.0, i32)\n"
    "m = mod(i, 3) + div(i, 2)\n"
    "c = where(x > 0.25, cast(m, f32), exp(x) * -2.0)\n"
    "k = sum(cast(x < 0.0, i32), axes=[1])\n"
    "output c\noutput k\noutput m\n",
};

HostTensor wave(const Shape& s, double phase) {
  HostTensor t(DType::F32, s);
  for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, std::sin(0.91 * static_cast<double>(i) + phase) * 1.7);
  return t;
}

std::vector<HostTensor> leavesOf(const Program& p) {
  std::vector<std::pair<std::string, HostTensor>> inputs;
  for (const ProgramInput& in : p.inputs) inputs.push_back({in.name, wave(p.graph.leaf(in.leaf).shape, 0.3)});
  return bindLeaves(p, inputs, 0);
}
}  // namespace

class TestHostCheck : public QObject {
  Q_OBJECT
 private slots:
  void pointValuesAreTheOracles() {
    for (const char* text : kPrograms) {
      const Program p = parseKs(text, "points.ks");
      const std::vector<HostTensor> leaves = leavesOf(p);
      const std::vector<ClassId> outs = p.outputClasses();
      const std::vector<HostTensor> ref = HostExecutor::run(p.graph, outs, leaves);
      PointEvaluator points(p.graph, leaves, 1 << 30);
      for (std::size_t o = 0; o < outs.size(); ++o) {
        HostTensor got(ref[o].dtype(), ref[o].shape());
        for (int64_t i = 0; i < got.numel(); ++i) {
          const KVal v = points.at(outs[o], i);
          if (isFloat(got.dtype())) got.setDouble(i, v.f);
          else got.setInt(i, v.i);
        }
        const std::string m = compareWithTolerance(got, ref[o], reductionTerms(p.graph, outs[o]));
        QVERIFY2(m.empty(), (p.outputs[o].name + " of\n" + text + m).c_str());
      }
    }
  }

  void sampleIsDeterministicAndSpread() {
    QCOMPARE(sampleIndices(5, 8), (std::vector<int64_t>{0, 1, 2, 3, 4}));
    const std::vector<int64_t> s = sampleIndices(1000001, 5);
    QCOMPARE(s, (std::vector<int64_t>{0, 250000, 500000, 750000, 1000000}));
  }

  void overBudgetSamplesAndFindsAWrongElement() {
    const Program p = parseKs(kPrograms[1], "sampled.ks");
    const std::vector<HostTensor> leaves = leavesOf(p);
    const std::vector<ClassId> outs = p.outputClasses();
    std::vector<HostTensor> values = HostExecutor::run(p.graph, outs, leaves);
    VerifyBudget b;
    b.hostWork = 0;
    b.samples = 9;
    HostCheck ok = checkAgainstHost(p.graph, p.graph, outs, leaves, values, b);
    QCOMPARE(ok.mode, VerifyMode::Sampled);
    QCOMPARE(ok.checked, int64_t{9});
    QCOMPARE(ok.total, int64_t{45});
    QVERIFY2(ok.mismatch[0].empty(), ok.mismatch[0].c_str());
    QVERIFY(ok.reason.find("element operations") != std::string::npos);
    // A wrong value at a sampled element (index 22 = the middle of 45) is found and named.
    values[0].setDouble(22, values[0].getDouble(22) + 0.5);
    HostCheck bad = checkAgainstHost(p.graph, p.graph, outs, leaves, values, b);
    QVERIFY2(bad.mismatch[0].rfind("element 22:", 0) == 0, bad.mismatch[0].c_str());
    // Within the budget the whole tensor is compared.
    HostCheck full = checkAgainstHost(p.graph, p.graph, outs, leaves, values, VerifyBudget{});
    QCOMPARE(full.mode, VerifyMode::Full);
    QCOMPARE(full.checked, int64_t{45});
    QVERIFY(!full.mismatch[0].empty());
  }

  void referencePastItsBudgetSkips() {
    const Program p = parseKs(kPrograms[1], "skipped.ks");
    const std::vector<HostTensor> leaves = leavesOf(p);
    const std::vector<ClassId> outs = p.outputClasses();
    const std::vector<HostTensor> values = HostExecutor::run(p.graph, outs, leaves);
    VerifyBudget b;
    b.hostWork = 0;
    b.pointVisits = 3;
    const HostCheck h = checkAgainstHost(p.graph, p.graph, outs, leaves, values, b);
    QCOMPARE(h.mode, VerifyMode::Skipped);
    QCOMPARE(h.checked, int64_t{0});
    QVERIFY2(h.reason.find("budget of 3 node visits") != std::string::npos, h.reason.c_str());
  }

  // The estimate that decides between the whole-tensor oracle and a sample counts what the host
  // computes: a transpose is a view, a matmul's product is fused into its sum (each of its
  // M*N*K terms a quarter), an exp computes each of its elements.
  void oracleWorkCountsComputedValuesOnly() {
    const Program p = parseKs(
        "input a: f32[16, 32]\ninput b: f32[32, 8]\n"
        "t = transpose(a, 0, 1)\ny = a @ b\ne = exp(a)\n"
        "output t\noutput y\noutput e\n",
        "work.ks");
    const std::vector<ClassId> outs = p.outputClasses();
    QCOMPARE(hostOracleWork(p.graph, {outs[0]}), 0.0);
    QCOMPARE(hostOracleWork(p.graph, {outs[1]}), 16.0 * 8 + 0.25 * 16 * 32 * 8);
    QCOMPARE(hostOracleWork(p.graph, {outs[2]}), 16.0 * 32);
  }

  void sessionRecordsTheMode() {
    SessionOptions o;
    o.devices = "host";
    o.cache = "none";
    o.verify.hostWork = 0;
    o.verify.samples = 4;
    Session s(parseKs(kPrograms[0], "session.ks"), o);
    const RunRecord& r = s.run({}, true);
    QVERIFY(r.verified && r.verifyPassed);
    QCOMPARE(r.verifyMode, VerifyMode::Sampled);
    QCOMPARE(r.verifyChecked, int64_t{8});
    QCOMPARE(r.verifyTotal, int64_t{120});
  }
};

QTEST_APPLESS_MAIN(TestHostCheck)
#include "test_host_check.moc"
