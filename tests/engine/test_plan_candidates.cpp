// Choosing the plan by measurement: the device subsets tried, the choice of the fastest measured
// candidate (a failing or unmeasured one never wins), and a session that measures its candidates
// on PoCL + openblas, keeps the fastest and runs it with the host's results.
#include <QtTest>

#include "engine/core/error.h"
#include "engine/devices/device_info.h"
#include "engine/io/program_source.h"
#include "engine/plan/plan_candidates.h"
#include "engine/session/session.h"
#include "tests/require_opencl.h"

using namespace ks;

namespace {
DeviceInfo device(const std::string& name, DeviceKind kind, bool hostVisible) {
  DeviceInfo d;
  d.name = name;
  d.kind = kind;
  d.hostVisible = hostVisible;
  return d;
}
std::vector<std::string> names(const std::vector<DeviceInfo>& devices, const std::vector<std::vector<bool>>& subsets) {
  std::vector<std::string> r;
  for (const auto& s : subsets) {
    std::string n;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (s[i]) n += (n.empty() ? "" : "+") + devices[i].name;
    r.push_back(n);
  }
  return r;
}
bool haveOpenCL() {
  for (auto& d : discoverDevices())
    if (d.compiles()) return true;
  return false;
}
PlanCandidate candidate(const std::string& devices, int blasThreads = 0) {
  PlanCandidate c;
  c.devices = devices;
  c.blasThreads = blasThreads;
  return c;
}
}  // namespace

class TestPlanCandidates : public QObject {
  Q_OBJECT
 private slots:
  void subsetsStartWithTheWholeSelection() {
    const std::vector<DeviceInfo> two = {device("opencl:0:0", DeviceKind::OpenCL, true), device("openblas", DeviceKind::OpenBlas, true)};
    QCOMPARE(names(two, candidateSubsets(two, 8)), (std::vector<std::string>{"opencl:0:0+openblas", "opencl:0:0"}));
    const std::vector<DeviceInfo> three = {device("opencl:1:0", DeviceKind::OpenCL, false), device("opencl:0:0", DeviceKind::OpenCL, true),
                                           device("openblas", DeviceKind::OpenBlas, true)};
    QCOMPARE(names(three, candidateSubsets(three, 8)),
             (std::vector<std::string>{"opencl:1:0+opencl:0:0+openblas", "opencl:1:0+openblas", "opencl:1:0",
                                       "opencl:0:0+openblas", "opencl:0:0"}));
    QCOMPARE(candidateSubsets(three, 2).size(), std::size_t(2));
    QCOMPARE(candidateSubsets(three, 1).size(), std::size_t(1));
  }

  void theFastestMeasuredWins() {
    std::vector<PlanCandidate> c = {candidate("a+b"), candidate("a+b", 1), candidate("a")};
    c[0].predictedNs = 1, c[1].predictedNs = 1, c[2].predictedNs = 5;
    const std::vector<double> ns = {3e6, 2e6, 1e6};
    int calls = 0;
    const PlanChoice p = choosePlan(c, [&](const PlanCandidate& x, int& runs) {
      runs = 5;
      ++calls;
      return ns[x.devices == "a" ? 2 : x.blasThreads];
    }, 10e9);
    QCOMPARE(calls, 3);
    QCOMPARE(p.chosen, 2);
    QVERIFY(p.candidates[2].chosen && !p.candidates[0].chosen && !p.candidates[1].chosen);
    QVERIFY2(p.why.find("fastest measured: 1.000 ms") == 0, p.why.c_str());
    QVERIFY2(p.why.find("next: a+b, OpenBLAS 1 thread 2.000 ms") != std::string::npos, p.why.c_str());
    QVERIFY2(p.why.find("predictions ranked the mixed plan first") != std::string::npos, p.why.c_str());
    std::vector<DeviceInfo> devs = {device("a", DeviceKind::OpenCL, true), device("b", DeviceKind::OpenBlas, true)};
    const std::string policy = blasPolicy(p, devs);
    QVERIFY2(policy.find("a+b: every core 3.000 ms, 1 thread 2.000 ms") != std::string::npos, policy.c_str());
  }

  void failedOrUnmeasuredCandidatesNeverWin() {
    std::vector<PlanCandidate> c = {candidate("a+b"), candidate("a")};
    const PlanChoice p = choosePlan(c, [](const PlanCandidate& x, int& runs) -> double {
      runs = 1;
      if (x.devices == "a") throw Error(ErrorCode::Launch, "boom");
      return 7e6;
    }, 10e9);
    QCOMPARE(p.chosen, 0);
    QVERIFY(p.candidates[1].note.find("failed: boom") == 0);
    const PlanChoice none = choosePlan(c, [](const PlanCandidate&, int&) -> double { return 1; }, -1);
    QCOMPARE(none.chosen, 0);
    QVERIFY(none.candidates[0].measuredNs < 0 && none.candidates[1].note.find("budget") != std::string::npos);
    QVERIFY(none.why.find("no candidate could be measured") == 0);
  }

  // PoCL + openblas: the mixed plan, its OpenBLAS-on-one-thread variant and PoCL alone are
  // measured; the session's plan is the fastest of them and its runs equal the host's.
  void sessionKeepsTheFastestMeasured() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    SessionOptions o;
    o.devices = "opencl:0:0,openblas";
    o.tune = TuneLevel::None;
    o.cache = "none";
    o.planCandidates = 3;
    Session s(parseKs("input x: f32[32, 64]\nparam w: f32[64, 48] = normal(std=0.1, seed=3)\n"
                      "y = sum(relu(x @ w) * 2.0, axes=[1])\noutput y\n", "cand.ks"), o);
    s.runTo(Stage::Planned);
    const PlanChoice& pc = s.trace().planChoice;
    QVERIFY2(pc.candidates.size() >= 2 && pc.candidates.size() <= 3, pc.why.c_str());
    QCOMPARE(pc.candidates[0].devices, std::string("opencl:0:0+openblas"));
    QVERIFY(pc.chosen >= 0);
    const PlanCandidate& w = pc.candidates[static_cast<std::size_t>(pc.chosen)];
    QVERIFY(w.chosen && w.measuredNs > 0 && w.runs >= 1);
    for (const PlanCandidate& c : pc.candidates)
      if (c.measuredNs >= 0) QVERIFY(w.measuredNs <= c.measuredNs);
    QCOMPARE(s.trace().plan.steps.size(), w.plan.steps.size());
    for (std::size_t i = 0; i < w.plan.steps.size(); ++i) QCOMPARE(s.trace().plan.steps[i].label, w.plan.steps[i].label);
    const RunRecord& r = s.run({}, true);
    QVERIFY(r.verifyPassed && r.verifyMode == VerifyMode::Full);
    QVERIFY(r.verifyNs > 0);
  }
};

QTEST_APPLESS_MAIN(TestPlanCandidates)
#include "test_plan_candidates.moc"
