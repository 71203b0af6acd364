// The prepared plan: buffers allocated once, parameters uploaded on the cold run only and kept
// resident, inputs uploaded every run, a changed parameter uploaded again (PoCL with zero-copy
// off stands for a device with its own memory); with zero-copy, PoCL, host and openblas share
// values in place: no copy step moves bytes, GEMMs read PoCL's results where they lie. Every
// run's outputs equal the host oracle evaluated on the same leaf values.
#include <QtTest>

#include "engine/devices/device_info.h"
#include "engine/eval/host_executor.h"
#include "engine/core/tolerance.h"
#include "engine/io/program_source.h"
#include "engine/session/session.h"
#include "tests/require_opencl.h"

using namespace ks;

namespace {
bool haveOpenCL() {
  for (auto& d : discoverDevices())
    if (d.compiles()) return true;
  return false;
}

const char* kProgram =
    "input x: f32[16, 48]\n"
    "param w: f32[48, 32] = normal(std=0.1, seed=3)\n"
    "param b: f32[32] = full(0.25)\n"
    "h = relu(x @ w + b)\n"
    "y = sum(h * h, axes=[1])\n"
    "output y\n"
    "output h\n";

Session pocl(const std::string& devices, bool zeroCopy = false) {
  SessionOptions o;
  o.devices = devices;
  o.tune = TuneLevel::None;
  o.cache = "none";
  o.zeroCopy = zeroCopy;
  return Session(parseKs(kProgram, "prepared.ks"), o);
}

HostTensor randomInput(uint64_t seed) {
  HostTensor t(DType::F32, {16, 48});
  for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, std::sin(0.37 * static_cast<double>(i) + seed) * 2.0);
  return t;
}

// The oracle on the leaf values the session was given: inputs, and params by name.
std::vector<HostTensor> oracle(const Session& s, const HostTensor& x) {
  std::vector<HostTensor> leaves = bindLeaves(s.program(), {{"x", x}}, 0);
  for (const ProgramParam& p : s.program().params) leaves[p.leaf] = s.param(p.name);
  return HostExecutor::run(s.graph(), s.program().outputClasses(), leaves);
}

void expectMatches(const Session& s, const RunRecord& r, const HostTensor& x) {
  const std::vector<HostTensor> ref = oracle(s, x);
  QCOMPARE(r.outputs.size(), ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const std::string m = compareWithTolerance(r.outputs[i].value, ref[i], 48);
    QVERIFY2(m.empty(), (r.outputs[i].name + ": " + m).c_str());
  }
}

int residentSteps(const RunRecord& r) {
  int n = 0;
  for (const StepTiming& t : r.steps) n += t.resident;
  return n;
}
int paramUploads(const Session& s) {
  int n = 0;
  for (const PlanStep& st : s.trace().plan.steps) n += uploadsResidentLeaf(s.graph(), s.trace().plan, st);
  return n;
}
}  // namespace

class TestPreparedPlan : public QObject {
  Q_OBJECT
 private slots:
  void parametersStayResidentAcrossRuns() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s = pocl("opencl:0:0");
    const HostTensor x1 = randomInput(1), x2 = randomInput(2);
    const RunRecord r1 = s.run({{"x", x1}}, false);
    QVERIFY(r1.cold);
    QCOMPARE(residentSteps(r1), 0);  // the cold run uploads everything
    const int uploads = paramUploads(s);
    QVERIFY2(uploads >= 2, "w and b are uploaded to PoCL");
    expectMatches(s, r1, x1);
    // Later runs: the parameters are not copied again, the new input is.
    const RunRecord r2 = s.run({{"x", x2}}, false);
    QVERIFY(!r2.cold);
    QCOMPARE(residentSteps(r2), uploads);
    expectMatches(s, r2, x2);
    const RunRecord r3 = s.run({{"x", x1}}, false);
    QCOMPARE(residentSteps(r3), uploads);
    expectMatches(s, r3, x1);
    QCOMPARE(r3.outputs[0].value.contentHash(), r1.outputs[0].value.contentHash());
    QVERIFY(r3.totalNs > 0 && r3.kernelNs > 0);
  }

  // Steady state: the medians of the timed runs, parameters resident in every one of them.
  void steadyStateAfterTheColdRun() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s = pocl("opencl:0:0");
    QVERIFY_THROWS_EXCEPTION(Error, s.repeatRuns(1, 1, 10.0));  // no run yet
    const RunRecord cold = s.run({{"x", randomInput(3)}}, false);
    const SteadyState st = s.repeatRuns(2, 5, 60.0);
    QCOMPARE(st.runs, 5);
    QCOMPARE(st.warmups, 2);
    QCOMPARE(st.steps.size(), cold.steps.size());
    QVERIFY(st.totalNs > 0 && st.kernelNs > 0);
    int resident = 0;
    for (const StepTiming& t : st.steps) resident += t.resident;
    QCOMPARE(resident, paramUploads(s));
    QCOMPARE(s.runs().size(), std::size_t(1));  // repeated runs keep no outputs
    const SteadyState capped = s.repeatRuns(0, 1000, 0.0);  // stops after the first timed run
    QCOMPARE(capped.runs, 1);
  }

  void changedParameterIsUploadedAgain() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s = pocl("opencl:0:0");
    const HostTensor x = randomInput(5);
    s.run({{"x", x}}, false);
    HostTensor w = s.param("w");
    for (int64_t i = 0; i < w.numel(); ++i) w.setDouble(i, -w.getDouble(i) + 0.01 * static_cast<double>(i % 7));
    s.setParam("w", w);
    const RunRecord r = s.run({{"x", x}}, true);
    QCOMPARE(residentSteps(r), paramUploads(s) - 1);  // only w moved
    QVERIFY(r.verifyPassed);
    expectMatches(s, r, x);
    const RunRecord again = s.run({{"x", x}}, false);
    QCOMPARE(residentSteps(again), paramUploads(s));
    expectMatches(s, again, x);
    QVERIFY_THROWS_EXCEPTION(Error, s.setParam("nosuch", w));
    QVERIFY_THROWS_EXCEPTION(Error, s.setParam("b", w));  // wrong shape
  }

  void mixedPlanWithOpenBlas() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s = pocl("opencl:0:0,openblas");
    for (uint64_t k = 0; k < 3; ++k) {
      const HostTensor x = randomInput(10 + k);
      const RunRecord r = s.run({{"x", x}}, false);
      QCOMPARE(r.cold, k == 0);
      expectMatches(s, r, x);
    }
  }

  // Zero-copy: every pool boundary of PoCL + openblas is a zero-copy step (no bytes move), the
  // destination aliases its source, parameters are read in place, and the results match the host
  // run after run, a changed parameter included.
  void zeroCopyPlanSharesHostMemory() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s = pocl("opencl:0:0,openblas", true);
    s.runTo(Stage::Planned);
    const ExecPlan& plan = s.trace().plan;
    int zero = 0, gemms = 0;
    for (const PlanStep& st : plan.steps) {
      if (st.kind == PlanStep::Kind::Launch) gemms += s.trace().entries.at(st.kernel).kind == KernelEntry::Kind::Gemm;
      if (st.kind != PlanStep::Kind::Copy) continue;
      QVERIFY2(st.zeroCopy, st.label.c_str());
      QCOMPARE(plan.buffers[st.outputs[0]].alias, static_cast<int>(rootBuffer(plan, st.inputs[0])));
      ++zero;
    }
    // The GEMM's step does the bias and relu (its epilogue) and stores h; PoCL reads it in place.
    QVERIFY2(zero >= 1 && gemms >= 1, plan.describe().c_str());
    QCOMPARE(paramUploads(s), 0);
    for (uint64_t k = 0; k < 3; ++k) {
      const HostTensor x = randomInput(20 + k);
      const RunRecord r = s.run({{"x", x}}, k == 0);
      QVERIFY(r.verifyPassed);
      expectMatches(s, r, x);
      QCOMPARE(r.copyNs, 0.0);
      for (const StepTiming& t : r.steps) QVERIFY2(t.kind != "copy", t.label.c_str());
    }
    HostTensor w = s.param("w");
    for (int64_t i = 0; i < w.numel(); ++i) w.setDouble(i, 0.02 * static_cast<double>(i % 11) - 0.1);
    s.setParam("w", w);
    const HostTensor x = randomInput(30);
    expectMatches(s, s.run({{"x", x}}, false), x);
    const SteadyState st = s.repeatRuns(1, 3, 30.0);
    QCOMPARE(st.runs, 3);
  }

  // Off, the same program copies at every boundary and gives the same values.
  void zeroCopyOffCopies() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session on = pocl("opencl:0:0,openblas", true), off = pocl("opencl:0:0,openblas", false);
    const HostTensor x = randomInput(40);
    const RunRecord a = on.run({{"x", x}}, false), b = off.run({{"x", x}}, false);
    int copies = 0;
    for (const PlanStep& st : off.trace().plan.steps) {
      QVERIFY(!st.zeroCopy);
      copies += st.kind == PlanStep::Kind::Copy;
    }
    QVERIFY(copies >= 1);
    for (const PlanBuffer& buf : off.trace().plan.buffers) QCOMPARE(buf.alias, -1);
    QCOMPARE(a.outputs.size(), b.outputs.size());
    for (std::size_t i = 0; i < a.outputs.size(); ++i)
      QVERIFY(compareWithTolerance(a.outputs[i].value, b.outputs[i].value, 48).empty());
  }

  // A resident upload's buffer is never shared with another value, so it survives between runs.
  void residentBuffersAreNotReused() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s = pocl("opencl:0:0");
    s.runTo(Stage::Planned);
    const ExecPlan& plan = s.trace().plan;
    for (const PlanStep& st : plan.steps) {
      if (!uploadsResidentLeaf(s.graph(), plan, st)) continue;
      const uint32_t alloc = plan.buffers[st.outputs[0]].allocation;
      for (std::size_t b = 0; b < plan.buffers.size(); ++b)
        if (b != st.outputs[0] && !plan.buffers[b].leaf) QVERIFY(plan.buffers[b].allocation != alloc);
    }
  }
};

QTEST_APPLESS_MAIN(TestPreparedPlan)
#include "test_prepared_plan.moc"
