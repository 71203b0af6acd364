// Candidate plans and the choice among them by measured time.
#include "engine/plan/plan_candidates.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstdio>
#include <iterator>
#include <memory>
#include <set>

#include "engine/core/error.h"
#include "engine/core/median.h"

namespace ks {

namespace {
std::string subsetName(const std::vector<DeviceInfo>& devices, const std::vector<bool>& allowed) {
  std::string s;
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (allowed[i]) s += (s.empty() ? "" : "+") + devices[i].name;
  return s;
}

std::string ms(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
  return b;
}
}  // namespace

std::vector<std::vector<bool>> candidateSubsets(const std::vector<DeviceInfo>& devices, int max) {
  std::vector<std::vector<bool>> out{std::vector<bool>(devices.size(), true)};
  int blas = -1, compiling = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].aotOnly()) blas = static_cast<int>(i);
    compiling += devices[i].compiles();
  }
  auto add = [&](std::vector<bool> a) {
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(std::move(a));
  };
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (!devices[i].compiles()) continue;
    std::vector<bool> a(devices.size(), false);
    a[i] = true;
    if (blas >= 0 && compiling > 1) {
      a[static_cast<std::size_t>(blas)] = true;
      add(a);
      a[static_cast<std::size_t>(blas)] = false;
    }
    add(a);
  }
  if (static_cast<int>(out.size()) > max) out.resize(static_cast<std::size_t>(std::max(max, 1)));
  return out;
}

namespace {
std::vector<uint32_t> nodeSet(const Extraction& e) {
  std::vector<uint32_t> nodes;
  for (NodeId n : e.order) nodes.push_back(n.v);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<std::string> deviceNames(const std::vector<DeviceInfo>& devices) {
  std::vector<std::string> names;
  for (const DeviceInfo& d : devices) names.push_back(d.name);
  return names;
}

// Extracts `c` over its devices without its excluded nodes and builds its plan; false when the
// program cannot run that way or the plan is one already proposed.
bool extractCandidate(const PlanInputs& in, PlanCandidate& c, PlanNodeSets& seen) {
  const ExtractionDevices d{in.poolOf, c.allowed, in.hostVisible};
  try {
    c.extraction = extract(in.graph, in.outputs, d, c.excluded);
  } catch (const Error&) {
    return false;
  }
  if (!seen.insert(nodeSet(c.extraction)).second) return false;
  c.plan = buildPlan(in.graph, in.outputs, c.extraction, in.entries, d, deviceNames(in.devices));
  c.predictedNs = c.extraction.totalNs;
  return true;
}
}  // namespace

std::vector<PlanCandidate> planCandidates(const PlanInputs& in, int max, PlanNodeSets& seen) {
  bool cpuDevice = false;
  for (const DeviceInfo& d : in.devices) cpuDevice = cpuDevice || (d.compiles() && d.hostVisible);
  std::vector<PlanCandidate> out;
  for (std::vector<bool>& allowed : candidateSubsets(in.devices, 16)) {
    if (static_cast<int>(out.size()) >= max) break;
    PlanCandidate c;
    c.devices = subsetName(in.devices, allowed);
    c.allowed = allowed;
    if (!extractCandidate(in, c, seen)) continue;
    bool gemm = false;
    for (const PlanStep& s : c.plan.steps)
      gemm = gemm || (s.kind == PlanStep::Kind::Launch && in.entries.at(s.kernel).kind == KernelEntry::Kind::Gemm);
    const bool sharesCpu = gemm && cpuDevice;
    out.push_back(c);
    if (sharesCpu && static_cast<int>(out.size()) < max) {
      c.blasThreads = 1;
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<PlanCandidate> localNeighbours(const PlanInputs& in, const PlanCandidate& base, PlanNodeSets& seen, int max) {
  std::vector<const PlanStep*> launches;
  for (const PlanStep& s : base.plan.steps)
    if (s.kind == PlanStep::Kind::Launch) launches.push_back(&s);
  std::stable_sort(launches.begin(), launches.end(), [&](const PlanStep* a, const PlanStep* b) {
    return in.graph.node(a->node).timeNs > in.graph.node(b->node).timeNs;
  });
  std::vector<PlanCandidate> out;
  for (const PlanStep* s : launches) {
    if (static_cast<int>(out.size()) >= max) break;
    PlanCandidate c;
    c.devices = base.devices;
    c.allowed = base.allowed;
    c.blasThreads = base.blasThreads;
    c.excluded = base.excluded;
    c.excluded.push_back(s->node);
    // Launches of one label may compute different classes (a GEMM matched in two terms): the
    // class it stores tells them apart.
    const Node& n = in.graph.node(s->node);
    const std::string stores = n.out.empty() ? "" : " (%" + std::to_string(n.out.front().v) + ")";
    c.variant = (base.variant.empty() ? "" : base.variant + ", ") + "without " + s->label + stores;
    if (extractCandidate(in, c, seen)) out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const PlanCandidate& a, const PlanCandidate& b) { return a.predictedNs < b.predictedNs; });
  return out;
}

std::string planDifference(const PlanCandidate& c, const PlanCandidate& ref, int most) {
  std::multiset<std::string> mine, theirs;
  for (const PlanStep& s : c.plan.steps) mine.insert(s.label);
  for (const PlanStep& s : ref.plan.steps) theirs.insert(s.label);
  std::vector<std::string> added, removed;
  std::set_difference(mine.begin(), mine.end(), theirs.begin(), theirs.end(), std::back_inserter(added));
  std::set_difference(theirs.begin(), theirs.end(), mine.begin(), mine.end(), std::back_inserter(removed));
  std::vector<std::string> all;
  for (const std::string& a : added) all.push_back("+" + a);
  for (const std::string& r : removed) all.push_back("-" + r);
  std::string out;
  for (std::size_t i = 0; i < all.size() && static_cast<int>(i) < most; ++i) out += (i ? ", " : "") + all[i];
  if (static_cast<int>(all.size()) > most) out += " and " + std::to_string(all.size() - static_cast<std::size_t>(most)) + " more";
  return out;
}

std::string candidateName(const PlanCandidate& c) {
  return c.devices + (c.blasThreads ? ", OpenBLAS 1 thread" : "") + (c.variant.empty() ? "" : ", " + c.variant);
}

std::string blasPolicy(const PlanChoice& choice, const std::vector<DeviceInfo>& devices) {
  std::string cpu;
  for (const DeviceInfo& d : devices)
    if (d.compiles() && d.hostVisible) cpu += (cpu.empty() ? "" : ", ") + d.name;
  std::string pairs;
  const auto& c = choice.candidates;
  for (std::size_t i = 0; i + 1 < c.size(); ++i) {
    if (c[i].blasThreads != 0 || c[i + 1].blasThreads != 1 || c[i].devices != c[i + 1].devices || !c[i].variant.empty() ||
        !c[i + 1].variant.empty())
      continue;
    pairs += (pairs.empty() ? "" : "; ") + c[i].devices + ": every core " +
             (c[i].measuredNs >= 0 ? ms(c[i].measuredNs) : std::string("not measured")) + ", 1 thread " +
             (c[i + 1].measuredNs >= 0 ? ms(c[i + 1].measuredNs) : std::string("not measured"));
  }
  if (pairs.empty()) return "";
  const bool one = choice.chosen >= 0 && c[static_cast<std::size_t>(choice.chosen)].blasThreads == 1;
  return "OpenBLAS shares the CPU with " + cpu +
         ": GEMMs run between that device's kernels (the executor waits for its queue first), but OpenBLAS's "
         "threads spin after a call and take the cores the next kernels run on, so plans with GEMMs are measured "
         "with OpenBLAS on every core and on 1 thread (" + pairs + "); kept: " + (one ? "1 thread" : "every core");
}

namespace {
// Prepares candidates and times them in interleaved rounds. A candidate timed again (the climb's
// base) takes the median of its new rounds: every number a comparison uses comes from one set
// of rounds.
class RoundTimer {
 public:
  RoundTimer(std::vector<PlanCandidate>& c, const PrepareCandidate& prepare, const ChoiceLimits& limits)
      : c_(c), prepare_(prepare), limits_(limits), t0_(std::chrono::steady_clock::now()) {
    for (const PlanCandidate& x : c_)
      if (x.predictedNs > 0 && std::isfinite(x.predictedNs)) bestPredictedNs_ = std::min(bestPredictedNs_, x.predictedNs);
  }

  bool spent() const { return spentNs() > limits_.budgetNs; }

  void measure(const std::vector<std::size_t>& which) {
    std::vector<Held> held;
    int64_t bytes = 0;
    for (std::size_t i : which) {
      PlanCandidate& c = c_[i];
      if (spent()) {
        if (c.measuredNs < 0) c.note = "not measured: the measuring budget was spent";
        continue;
      }
      if (c.measuredNs < 0 && c.predictedNs > limits_.hopelessFactor * bestPredictedNs_) {
        c.note = "not measured: predicted " + ms(c.predictedNs) + ", over " + std::to_string(static_cast<int>(limits_.hopelessFactor)) +
                 "x the best prediction (" + ms(bestPredictedNs_) + ")";
        continue;
      }
      try {
        held.push_back({i, prepare_(c)});
      } catch (const Error& e) {
        if (e.code() == ErrorCode::Cancelled) throw;
        fail(c, e);
        continue;
      }
      bytes += held.back().prepared.bytes;
      if (bytes > limits_.interleaveBytes) {  // time what is held and let it go before preparing more
        timeRounds(held);
        held.clear();
        bytes = 0;
      }
    }
    if (!held.empty()) timeRounds(held);
  }

 private:
  struct Held {
    std::size_t index;
    PreparedCandidate prepared;
  };

  double spentNs() const {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0_).count();
  }
  static void fail(PlanCandidate& c, const Error& e) {
    c.note = "failed: " + e.message();
    c.measuredNs = -1;
    c.runs = 0;
  }

  void timeRounds(std::vector<Held>& held) {
    double cold = 0;
    for (const Held& h : held) cold = std::max(cold, h.prepared.coldNs);
    const int runs = cold > 1e9 ? 1 : cold > 1e8 ? std::min(3, limits_.maxRuns) : limits_.maxRuns;
    const std::size_t n = held.size();
    std::vector<std::vector<double>> times(n);
    std::vector<bool> failed(n, false);
    for (int round = 0; round < std::max(runs, 1); ++round) {
      if (round > 0 && spent()) break;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t j = (static_cast<std::size_t>(round) + k) % n;  // no candidate always runs first
        if (failed[j]) continue;
        try {
          times[j].push_back(held[j].prepared.time());
        } catch (const Error& e) {
          if (e.code() == ErrorCode::Cancelled) throw;
          fail(c_[held[j].index], e);
          failed[j] = true;
        }
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (failed[j]) continue;
      PlanCandidate& c = c_[held[j].index];
      c.measuredNs = median(times[j]);
      c.runs = static_cast<int>(times[j].size());
      c.note.clear();
    }
  }

  std::vector<PlanCandidate>& c_;
  double bestPredictedNs_ = std::numeric_limits<double>::infinity();
  const PrepareCandidate& prepare_;
  const ChoiceLimits& limits_;
  std::chrono::steady_clock::time_point t0_;
};

int fastestOf(const std::vector<PlanCandidate>& c, const std::vector<std::size_t>& which) {
  int best = -1;
  for (std::size_t i : which)
    if (c[i].measuredNs >= 0 && (best < 0 || c[i].measuredNs < c[static_cast<std::size_t>(best)].measuredNs))
      best = static_cast<int>(i);
  return best;
}

std::vector<std::size_t> allOf(const std::vector<PlanCandidate>& c) {
  std::vector<std::size_t> all(c.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

// From the fastest measured, while room is left: its unseen neighbours are timed with it, and the
// climb moves to the fastest of them. Says what it did ("" when it did not run).
std::string climb(std::vector<PlanCandidate>& c, RoundTimer& timer, const ChoiceLimits& limits,
                  const ProposeNeighbours& neighbours) {
  int base = fastestOf(c, allOf(c));
  if (!neighbours || base < 0 || static_cast<int>(c.size()) >= limits.maxCandidates) return "";
  int measured = 0, moves = 0;
  std::string stop = "room for " + std::to_string(limits.maxCandidates) + " candidates used";
  while (static_cast<int>(c.size()) < limits.maxCandidates) {
    if (timer.spent()) {
      stop = "measuring budget spent";
      break;
    }
    std::vector<PlanCandidate> next = neighbours(c[static_cast<std::size_t>(base)], limits.maxCandidates - static_cast<int>(c.size()));
    if (next.empty()) {
      stop = "no unseen neighbour";
      break;
    }
    std::vector<std::size_t> which{static_cast<std::size_t>(base)};
    for (PlanCandidate& n : next) {
      which.push_back(c.size());
      c.push_back(std::move(n));
    }
    timer.measure(which);
    measured += static_cast<int>(which.size()) - 1;
    const int best = fastestOf(c, which);
    if (best < 0 || best == base) {
      stop = "a local optimum";
      break;
    }
    base = best;
    ++moves;
  }
  return "local search measured " + std::to_string(measured) + " neighbour(s), moved " + std::to_string(moves) +
         " time(s), stopped at " + stop;
}
}  // namespace

PlanChoice choosePlan(std::vector<PlanCandidate> candidates, const PrepareCandidate& prepare, const ChoiceLimits& limits,
                      const ProposeNeighbours& neighbours) {
  PlanChoice r;
  r.candidates = std::move(candidates);
  if (r.candidates.empty()) return r;
  RoundTimer timer(r.candidates, prepare, limits);
  std::string search;
  if (r.candidates.size() == 1 && (!neighbours || limits.maxCandidates <= 1)) {
    r.candidates[0].note = "the only candidate: not measured";
  } else {
    timer.measure(allOf(r.candidates));
    search = climb(r.candidates, timer, limits, neighbours);
  }
  const int best = fastestOf(r.candidates, allOf(r.candidates));
  if (best < 0) {
    r.chosen = 0;
    r.why = r.candidates.size() == 1 ? "the only plan" : "no candidate could be measured: the mixed plan (lowest predicted cost)";
  } else {
    r.chosen = best;
    const PlanCandidate& w = r.candidates[static_cast<std::size_t>(best)];
    r.why = "fastest measured: " + ms(w.measuredNs);
    int next = -1;
    for (std::size_t i = 0; i < r.candidates.size(); ++i)
      if (static_cast<int>(i) != best && r.candidates[i].measuredNs >= 0 &&
          (next < 0 || r.candidates[i].measuredNs < r.candidates[static_cast<std::size_t>(next)].measuredNs))
        next = static_cast<int>(i);
    if (next >= 0) {
      const PlanCandidate& n = r.candidates[static_cast<std::size_t>(next)];
      r.why += " (next: " + candidateName(n) + " " + ms(n.measuredNs) + ")";
    }
    if (w.predictedNs > r.candidates[0].predictedNs && best != 0) r.why += "; the predictions ranked the mixed plan first";
    if (!w.variant.empty()) r.why += "; found by local search";
  }
  if (!search.empty()) r.why += "; " + search;
  r.candidates[static_cast<std::size_t>(r.chosen)].chosen = true;
  return r;
}

}  // namespace ks
