// Choosing the plan by measurement: the device subsets tried, the choice of the fastest measured
// candidate (a failing or unmeasured one never wins), and a session that measures its candidates
// on PoCL + openblas, keeps the fastest and runs it with the host's results.
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <memory>

#include <nlohmann/json.hpp>

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
// Two GEMMs with a ReLU between: on PoCL + openblas, plans differ by where each runs.
const char* const kTwoMatmuls =
    "input x: f32[16, 32]\nparam w1: f32[32, 24] = normal(std=0.1, seed=1)\n"
    "param w2: f32[24, 8] = normal(std=0.1, seed=2)\ny = relu(x @ w1) @ w2\noutput y\n";
// kTwoMatmuls planned on PoCL + openblas with six candidate slots.
Session plannedTwoMatmuls() {
  SessionOptions o;
  o.devices = "opencl:0:0,openblas";
  o.tune = TuneLevel::None;
  o.cache = "none";
  o.planCandidates = 6;
  o.rewrite.mode = RewriteMode::Default;  // the candidate terms give the GEMMs other layouts to fall back on
  Session s(parseKs(kTwoMatmuls, "two.ks"), o);
  s.runTo(Stage::Planned);
  return s;
}
bool haveOpenCL() {
  for (auto& d : discoverDevices())
    if (d.compiles()) return true;
  return false;
}
// A prepared candidate whose every run takes `ns`.
PreparedCandidate fixedTime(double ns) {
  PreparedCandidate r;
  r.coldNs = ns;
  r.time = [ns] { return ns; };
  return r;
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
    int prepared = 0;
    const PlanChoice p = choosePlan(c, [&](const PlanCandidate& x) {
      ++prepared;
      return fixedTime(ns[x.devices == "a" ? 2 : static_cast<std::size_t>(x.blasThreads)]);
    });
    QCOMPARE(prepared, 3);
    QCOMPARE(p.chosen, 2);
    QVERIFY(p.candidates[2].chosen && !p.candidates[0].chosen && !p.candidates[1].chosen);
    QCOMPARE(p.candidates[2].runs, 9);
    QVERIFY2(p.why.find("fastest measured: 1.000 ms") == 0, p.why.c_str());
    QVERIFY2(p.why.find("next: a+b, OpenBLAS 1 thread 2.000 ms") != std::string::npos, p.why.c_str());
    QVERIFY2(p.why.find("predictions ranked the mixed plan first") != std::string::npos, p.why.c_str());
    QVERIFY2(p.why.find("local search") == std::string::npos, p.why.c_str());  // none asked for
    std::vector<DeviceInfo> devs = {device("a", DeviceKind::OpenCL, true), device("b", DeviceKind::OpenBlas, true)};
    const std::string policy = blasPolicy(p, devs);
    QVERIFY2(policy.find("a+b: every core 3.000 ms, 1 thread 2.000 ms") != std::string::npos, policy.c_str());
  }

  // A candidate predicted over 20x the best prediction is not prepared; one just under is.
  void hopelessCandidatesAreNotMeasured() {
    std::vector<PlanCandidate> c = {candidate("a+b"), candidate("a+b", 1), candidate("a")};
    c[0].predictedNs = 2e6, c[1].predictedNs = 39e6, c[2].predictedNs = 41e6;
    std::vector<std::string> prepared;
    const PlanChoice p = choosePlan(c, [&](const PlanCandidate& x) {
      prepared.push_back(candidateName(x));
      return fixedTime(1e6);
    });
    QCOMPARE(prepared.size(), std::size_t(2));
    QVERIFY(p.candidates[2].measuredNs < 0 && !p.candidates[2].chosen);
    QVERIFY2(p.candidates[2].note == "not measured: predicted 41.000 ms, over 20x the best prediction (2.000 ms)",
             p.candidates[2].note.c_str());
    QVERIFY(p.candidates[1].measuredNs > 0);
  }

  void failedOrUnmeasuredCandidatesNeverWin() {
    std::vector<PlanCandidate> c = {candidate("a+b"), candidate("a")};
    const PlanChoice p = choosePlan(c, [](const PlanCandidate& x) {
      if (x.devices == "a") throw Error(ErrorCode::Launch, "boom");
      return fixedTime(7e6);
    });
    QCOMPARE(p.chosen, 0);
    QVERIFY(p.candidates[1].note.find("failed: boom") == 0);
    // A candidate failing in a timed run (not while preparing) is out too.
    const PlanChoice late = choosePlan(c, [](const PlanCandidate& x) {
      PreparedCandidate r = fixedTime(1e6);
      if (x.devices == "a+b") r.time = []() -> double { throw Error(ErrorCode::Launch, "late boom"); };
      return r;
    });
    QCOMPARE(late.chosen, 1);
    QVERIFY(late.candidates[0].measuredNs < 0 && late.candidates[0].note.find("failed: late boom") == 0);
    ChoiceLimits none;
    none.budgetNs = -1;
    const PlanChoice unmeasured = choosePlan(c, [](const PlanCandidate&) { return fixedTime(1); }, none);
    QCOMPARE(unmeasured.chosen, 0);
    QVERIFY(unmeasured.candidates[0].measuredNs < 0 && unmeasured.candidates[1].note.find("budget") != std::string::npos);
    QVERIFY(unmeasured.why.find("no candidate could be measured") == 0);
    // Cancellation is no candidate's failure: it ends the choice.
    QVERIFY_THROWS_EXCEPTION(Error, choosePlan(c, [](const PlanCandidate&) -> PreparedCandidate {
      throw Error(ErrorCode::Cancelled, "cancelled during execution");
    }));
  }

  // Every round times every candidate once, starting one later each round: a load that comes and
  // goes touches all alike, and no candidate always runs first (after another's cache traffic).
  void roundsInterleaveTheCandidates() {
    std::vector<PlanCandidate> c = {candidate("a"), candidate("b"), candidate("c")};
    std::string order;
    ChoiceLimits limits;
    limits.maxRuns = 4;
    const PlanChoice p = choosePlan(c, [&](const PlanCandidate& x) {
      PreparedCandidate r;
      r.time = [&order, name = x.devices] {
        order += name;
        return 1e3;
      };
      return r;
    }, limits);
    QCOMPARE(order, std::string("abc" "bca" "cab" "abc"));
    for (const PlanCandidate& x : p.candidates) QCOMPARE(x.runs, 4);
    // A slow program gets fewer rounds: 3 over 0.1 s cold, 1 over a second.
    order.clear();
    choosePlan(c, [&](const PlanCandidate& x) {
      PreparedCandidate r = fixedTime(1e3);
      r.coldNs = x.devices == "b" ? 2e8 : 1e3;
      r.time = [&order, name = x.devices] {
        order += name;
        return 1e3;
      };
      return r;
    }, limits);
    QCOMPARE(order.size(), std::size_t(9));
  }

  // Candidates over the memory bound are not all held at once: a group is timed and let go first.
  void bigCandidatesAreTimedAGroupAtATime() {
    std::vector<PlanCandidate> c = {candidate("a"), candidate("b"), candidate("c")};
    auto live = std::make_shared<int>(0);
    int most = 0;
    ChoiceLimits limits;
    limits.interleaveBytes = 100;
    const PlanChoice p = choosePlan(c, [&](const PlanCandidate& x) {
      PreparedCandidate r;
      r.bytes = 60;
      auto held = std::shared_ptr<int>(new int(0), [live](int* q) { --*live, delete q; });
      ++*live;
      most = std::max(most, *live);
      r.time = [held, ns = x.devices == "b" ? 1e3 : 2e3] { return ns; };
      return r;
    }, limits);
    QCOMPARE(most, 2);
    QCOMPARE(*live, 0);
    QCOMPARE(p.chosen, 1);
    for (const PlanCandidate& x : p.candidates) QCOMPARE(x.runs, 9);
  }

  // The local search asks for the neighbours of the fastest measured, moves to a faster one and
  // stops at a local optimum; the choice says what it did.
  void theClimbFollowsTheFastestMeasured() {
    std::vector<PlanCandidate> c = {candidate("a"), candidate("b")};
    const std::map<std::string, double> ns = {{"a", 5e6}, {"b", 4e6}, {"b1", 3e6}, {"b2", 6e6}, {"b11", 3.5e6}};
    std::vector<std::string> asked;
    ChoiceLimits limits;
    limits.maxCandidates = 8;
    const PlanChoice p = choosePlan(
        c, [&](const PlanCandidate& x) { return fixedTime(ns.at(x.devices + x.variant)); }, limits,
        [&](const PlanCandidate& base, int room) {
          const std::string name = base.devices + base.variant;
          asked.push_back(name);
          std::vector<PlanCandidate> out;
          for (const char* v : {"1", "2"}) {
            if (!ns.count(name + v) || room-- <= 0) continue;
            PlanCandidate n = base;
            n.variant += v;
            out.push_back(n);
          }
          return out;
        });
    QCOMPARE(asked, (std::vector<std::string>{"b", "b1"}));
    QCOMPARE(p.candidates.size(), std::size_t(5));
    QCOMPARE(p.candidates[static_cast<std::size_t>(p.chosen)].variant, std::string("1"));
    QVERIFY2(p.why.find("found by local search") != std::string::npos, p.why.c_str());
    QVERIFY2(p.why.find("local search measured 3 neighbour(s), moved 1 time(s), stopped at a local optimum") != std::string::npos,
             p.why.c_str());
    // The slots bound the search.
    limits.maxCandidates = 3;
    asked.clear();
    const PlanChoice capped = choosePlan(
        c, [&](const PlanCandidate& x) { return fixedTime(ns.at(x.devices + x.variant)); }, limits,
        [&](const PlanCandidate& base, int room) {
          asked.push_back(base.devices + base.variant);
          std::vector<PlanCandidate> out;
          for (int i = 0; i < room; ++i) out.push_back(base), out.back().variant = "1";
          return out;
        });
    QCOMPARE(capped.candidates.size(), std::size_t(3));
    QVERIFY2(capped.why.find("room for 3 candidates used") != std::string::npos, capped.why.c_str());
  }

  void differenceNamesStepsByLabel() {
    auto withSteps = [](std::vector<std::string> labels) {
      PlanCandidate c;
      for (auto& l : labels) c.plan.steps.push_back(PlanStep{}), c.plan.steps.back().label = l;
      return c;
    };
    const PlanCandidate ref = withSteps({"exp on d", "sin on d", "copy %3 host -> d"});
    QCOMPARE(planDifference(ref, ref), std::string());
    QCOMPARE(planDifference(withSteps({"exp_sin on d", "copy %3 host -> d"}), ref),
             std::string("+exp_sin on d, -exp on d, -sin on d"));
    QCOMPARE(planDifference(withSteps({"a", "b", "c"}), ref, 2), std::string("+a, +b and 4 more"));
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

  // The device subsets take up to five of the six slots, the rest go to the local search, whose
  // neighbours leave out one launch each. Every candidate, kept in turn, gives the host's results.
  void localSearchPlansRunWithTheHostsResults() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s = plannedTwoMatmuls();
    const PlanChoice& pc = s.trace().planChoice;
    QVERIFY2(pc.candidates.size() >= 4 && pc.candidates.size() <= 6, pc.why.c_str());
    QVERIFY2(pc.why.find("local search measured") != std::string::npos, pc.why.c_str());
    int local = 0;
    for (const PlanCandidate& c : pc.candidates) {
      if (c.variant.empty()) continue;
      ++local;
      QVERIFY2(c.variant.rfind("without ", 0) == 0, c.variant.c_str());
      QVERIFY(!c.excluded.empty());
    }
    QVERIFY2(local >= 1, pc.why.c_str());
    for (std::size_t i = 0; i < pc.candidates.size(); ++i) {
      s.keepPlanCandidate(i);
      QCOMPARE(s.trace().planChoice.chosen, static_cast<int>(i));
      QVERIFY2(s.trace().planChoice.why.find("kept by request") == 0, s.trace().planChoice.why.c_str());
      QCOMPARE(s.trace().plan.steps.size(), pc.candidates[i].plan.steps.size());
      const RunRecord& r = s.run({}, true);
      QVERIFY2(r.verifyPassed && r.verifyMode == VerifyMode::Full, pc.candidates[i].variant.c_str());
    }
    QVERIFY_THROWS_EXCEPTION(Error, s.keepPlanCandidate(pc.candidates.size()));
  }

  // A session file keeps every candidate with its step labels; an edited file whose candidates
  // disagree about the kept one is refused, naming the value.
  void sessionFileKeepsTheCandidates() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s = plannedTwoMatmuls();
    const PlanChoice& pc = s.trace().planChoice;
    QVERIFY(pc.candidates.size() >= 2);
    const std::string text = s.toJson();
    const Session back = Session::fromJson(text, "plans.kss.json");
    const PlanChoice& lc = back.trace().planChoice;
    QCOMPARE(lc.chosen, pc.chosen);
    QCOMPARE(lc.why, pc.why);
    QCOMPARE(lc.candidates.size(), pc.candidates.size());
    for (std::size_t i = 0; i < pc.candidates.size(); ++i) {
      const PlanCandidate &a = pc.candidates[i], &b = lc.candidates[i];
      QCOMPARE(b.devices, a.devices);
      QCOMPARE(b.allowed, a.allowed);
      QCOMPARE(b.variant, a.variant);
      QCOMPARE(b.excluded.size(), a.excluded.size());
      QCOMPARE(b.measuredNs, a.measuredNs);
      QCOMPARE(b.runs, a.runs);
      QCOMPARE(b.chosen, a.chosen);
      QCOMPARE(b.plan.steps.size(), a.plan.steps.size());
      QCOMPARE(planDifference(b, lc.candidates[static_cast<std::size_t>(lc.chosen)]),
               planDifference(a, pc.candidates[static_cast<std::size_t>(pc.chosen)]));
    }
    auto j = nlohmann::json::parse(text);
    const std::size_t other = pc.chosen == 0 ? 1 : 0;
    j["trace"]["plan_choice"]["candidates"][other]["chosen"] = true;
    try {
      Session::fromJson(j.dump(), "edited.kss.json");
      QFAIL("two kept candidates loaded");
    } catch (const Error& e) {
      const std::string want = "/trace/plan_choice/candidates/" + std::to_string(other) + "/chosen";
      QVERIFY2(std::string(e.what()).find(want) != std::string::npos, e.what());
    }
  }

  // A version-8 file (no plan choice kept) still loads: its plan, no candidates.
  void versionEightFileLoadsWithoutCandidates() {
    const Session s = Session::load(std::string(KS_SOURCE_DIR) + "/tests/data/sessions/plans_v8.kss.json");
    QVERIFY(s.trace().planChoice.candidates.empty());
    QVERIFY(!s.trace().plan.steps.empty());
  }

  // A warm compile of the same program reuses the process's plan choice (the tuning cache gave it
  // the same kernels); with no tuning cache it measures again.
  void aWarmCompileReusesTheChoice() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    QTemporaryDir dir;
    SessionOptions o;
    o.devices = "opencl:0:0,openblas";
    o.tune = TuneLevel::Quick;
    o.cache = dir.filePath("tune.sqlite").toStdString();
    o.planCandidates = 3;
    Session cold(parseKs(kTwoMatmuls, "warm.ks"), o);
    cold.runTo(Stage::Planned);
    const PlanChoice& first = cold.trace().planChoice;
    QVERIFY2(first.why.find("earlier compile") == std::string::npos, first.why.c_str());
    Session warm(parseKs(kTwoMatmuls, "warm.ks"), o);
    warm.runTo(Stage::Planned);
    const PlanChoice& again = warm.trace().planChoice;
    QVERIFY2(again.why.find("measured by an earlier compile of this program in this process") != std::string::npos, again.why.c_str());
    QCOMPARE(again.chosen, first.chosen);
    QCOMPARE(again.candidates.size(), first.candidates.size());
    for (std::size_t i = 0; i < first.candidates.size(); ++i) QCOMPARE(again.candidates[i].measuredNs, first.candidates[i].measuredNs);
    const RunRecord& r = warm.run({}, true);
    QVERIFY(r.verifyPassed && r.verifyMode == VerifyMode::Full);
    o.cache = "none";
    Session fresh(parseKs(kTwoMatmuls, "warm.ks"), o);
    fresh.runTo(Stage::Planned);
    QVERIFY(fresh.trace().planChoice.why.find("earlier compile") == std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestPlanCandidates)
#include "test_plan_candidates.moc"
