// Candidate plans and the choice among them by measured time.
#include "engine/plan/plan_candidates.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "engine/core/error.h"

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

std::vector<PlanCandidate> planCandidates(const Graph& g, const std::vector<ClassId>& outputs,
                                          const std::vector<KernelEntry>& entries, const std::vector<DeviceInfo>& devices,
                                          const std::vector<uint32_t>& poolOf, const std::vector<bool>& hostVisible,
                                          int max) {
  std::vector<std::string> names;
  for (const DeviceInfo& d : devices) names.push_back(d.name);
  bool cpuDevice = false;
  for (std::size_t i = 0; i < devices.size(); ++i)
    cpuDevice = cpuDevice || (devices[i].compiles() && devices[i].hostVisible);
  std::vector<PlanCandidate> out;
  std::set<std::vector<uint32_t>> seen;  // chosen node sets
  for (std::vector<bool>& allowed : candidateSubsets(devices, 16)) {
    if (static_cast<int>(out.size()) >= max) break;
    PlanCandidate c;
    c.devices = subsetName(devices, allowed);
    c.allowed = allowed;
    const ExtractionDevices d{poolOf, allowed, hostVisible};
    try {
      c.extraction = extract(g, outputs, d);
    } catch (const Error&) {
      continue;  // this subset cannot run the program
    }
    std::vector<uint32_t> nodes;
    for (NodeId n : c.extraction.order) nodes.push_back(n.v);
    std::sort(nodes.begin(), nodes.end());
    if (!seen.insert(nodes).second) continue;
    c.plan = buildPlan(g, outputs, c.extraction, entries, d, names);
    c.predictedNs = c.extraction.totalNs;
    bool gemm = false;
    for (const PlanStep& s : c.plan.steps)
      gemm = gemm || (s.kind == PlanStep::Kind::Launch && entries.at(s.kernel).kind == KernelEntry::Kind::Gemm);
    const bool sharesCpu = gemm && cpuDevice;
    out.push_back(c);
    if (sharesCpu && static_cast<int>(out.size()) < max) {
      c.blasThreads = 1;
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::string blasPolicy(const PlanChoice& choice, const std::vector<DeviceInfo>& devices) {
  std::string cpu;
  for (const DeviceInfo& d : devices)
    if (d.compiles() && d.hostVisible) cpu += (cpu.empty() ? "" : ", ") + d.name;
  std::string pairs;
  const auto& c = choice.candidates;
  for (std::size_t i = 0; i + 1 < c.size(); ++i) {
    if (c[i].blasThreads != 0 || c[i + 1].blasThreads != 1 || c[i].devices != c[i + 1].devices) continue;
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

PlanChoice choosePlan(std::vector<PlanCandidate> candidates,
                      const std::function<double(const PlanCandidate&, int& runs)>& measure, double budgetNs) {
  PlanChoice r;
  r.candidates = std::move(candidates);
  if (r.candidates.empty()) return r;
  const auto t0 = std::chrono::steady_clock::now();
  for (PlanCandidate& c : r.candidates) {
    const double spent = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    if (r.candidates.size() == 1) {
      c.note = "the only candidate: not measured";
      break;
    }
    if (spent > budgetNs) {
      c.note = "not measured: the measuring budget was spent";
      continue;
    }
    try {
      c.measuredNs = measure(c, c.runs);
    } catch (const Error& e) {
      c.note = "failed: " + e.message();
    }
  }
  int best = -1;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const PlanCandidate& c = r.candidates[i];
    if (c.measuredNs >= 0 && (best < 0 || c.measuredNs < r.candidates[best].measuredNs)) best = static_cast<int>(i);
  }
  if (best < 0) {
    r.chosen = 0;
    r.why = r.candidates.size() == 1 ? "the only plan" : "no candidate could be measured: the mixed plan (lowest predicted cost)";
  } else {
    r.chosen = best;
    r.why = "fastest measured: " + ms(r.candidates[best].measuredNs);
    int next = -1;
    for (std::size_t i = 0; i < r.candidates.size(); ++i)
      if (static_cast<int>(i) != best && r.candidates[i].measuredNs >= 0 &&
          (next < 0 || r.candidates[i].measuredNs < r.candidates[next].measuredNs))
        next = static_cast<int>(i);
    if (next >= 0) {
      const PlanCandidate& n = r.candidates[next];
      r.why += " (next: " + n.devices + (n.blasThreads ? ", OpenBLAS 1 thread" : "") + " " + ms(n.measuredNs) + ")";
    }
    if (r.candidates[best].predictedNs > r.candidates[0].predictedNs && best != 0)
      r.why += "; the predictions ranked the mixed plan first";
  }
  r.candidates[r.chosen].chosen = true;
  return r;
}

}  // namespace ks
