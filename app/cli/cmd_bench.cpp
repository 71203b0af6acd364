// `bench FILE [--devices L] [--repeat N] [--json]`: one plan per compiling device (openblas joins
// as a helper, and each device also runs alone), plus the mixed plan over all of them; per-step
// and total medians, and ratios between the plans. With several --devices (or --compare): the
// engine's DeviceComparison of those selections, the table the GUI's Devices view shows.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/cli/cli_common.h"
#include "app/cli/commands.h"
#include "app/cli/program_loader.h"
#include "engine/session/device_comparison.h"

namespace ks::cli {

namespace {
struct PlanResult {
  std::string devices;
  double totalNs = 0;  // steady-state median wall
  double coldNs = 0, kernelNs = 0, copyNs = 0;
  int runs = 0;
  std::vector<std::pair<std::string, double>> steps;  // label@device, median ns
  bool verified = true;  // no element the host check compared differs
  std::string verification;  // verificationText of the cold run
  nlohmann::json verificationJson;
};
std::string cellText(const ComparisonCell& c) {
  if (!c.present) return "-";
  char buf[64];
  if (c.speedup > 0) std::snprintf(buf, sizeof buf, "%.1f us (%.2fx)", c.ns / 1e3, c.speedup);
  else std::snprintf(buf, sizeof buf, "%.1f us", c.ns / 1e3);
  return buf;
}

// Several selections side by side: each compiled and run `repeat` times (medians).
struct BenchFlags {
  std::vector<std::string> devices;
  std::string baseline;
  int repeat = 20;
  bool json = false, csv = false, compare = false;
};

int benchCompare(const Args& args, const BenchFlags& flags, const SessionOptions& base) {
  std::vector<std::string> selections = flags.devices;
  const int repeat = flags.repeat;
  if (selections.size() <= 1) selections = comparisonSelections(discoverDevices());
  const Program program = loadProgram(args.positional()[0]);
  DeviceComparison c;
  c.programKey = program.cacheKey();
  c.programName = program.name;
  for (const std::string& sel : selections) c.add(measureSelection(program, base, sel, repeat));
  const std::string& baseSel = flags.baseline;
  if (!baseSel.empty() && !c.find(baseSel)) throw UsageError{"--baseline " + baseSel + " is not one of the compared selections"};
  const std::vector<ComparisonRow> rows = c.rows(baseSel);
  const int bi = c.baseline(baseSel);
  bool ok = true;
  for (const ComparisonEntry& e : c.entries) ok = ok && e.error.empty() && e.run.verifyPassed;
  if (flags.csv) {
    std::printf("%s", c.csv(baseSel).c_str());
  } else if (flags.json) {
    nlohmann::json j;
    j["program"] = args.positional()[0];
    j["repeat"] = repeat;
    j["baseline"] = bi >= 0 ? c.entries[bi].selection : "";
    for (const ComparisonEntry& e : c.entries) {
      nlohmann::json ej = {{"selection", e.selection}, {"total_ms", e.run.totalNs / 1e6}, {"verified", e.run.verifyPassed},
                           {"error", e.error}, {"compile_ms", e.compileMs}};
      for (const DeviceInfo& d : e.devices)
        ej["devices"].push_back({{"name", d.name}, {"peak_gbs", d.peakGBs}, {"peak_gflops", d.peakGflops}});
      j["selections"].push_back(ej);
    }
    for (const ComparisonRow& r : rows) {
      nlohmann::json rj = {{"kernel", r.name}, {"label", r.label}, {"kind", r.kind}};
      for (std::size_t i = 0; i < r.cells.size(); ++i) {
        const ComparisonCell& cell = r.cells[i];
        if (!cell.present) {
          rj["cells"].push_back(nullptr);
          continue;
        }
        rj["cells"].push_back({{"selection", c.entries[i].selection}, {"us", cell.ns / 1e3}, {"speedup", cell.speedup},
                               {"device", cell.device}, {"gflops", cell.gflops}, {"gbps", cell.gbps},
                               {"peak_gflops_pct", cell.peakGflopsPct}, {"peak_gbs_pct", cell.peakGBsPct}});
      }
      j["rows"].push_back(rj);
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s: %zu selections, medians of %d runs; speed-ups vs %s\n", args.positional()[0].c_str(), c.entries.size(),
                repeat, bi >= 0 ? c.entries[bi].selection.c_str() : "-");
    for (const ComparisonEntry& e : c.entries) {
      std::printf("  %-24s", e.selection.c_str());
      if (!e.error.empty()) std::printf(" FAILED: %s", e.error.c_str());
      for (const DeviceInfo& d : e.devices) std::printf("  %s peak %.1f GB/s %.1f GFLOP/s", d.name.c_str(), d.peakGBs, d.peakGflops);
      std::printf("%s\n", e.run.verifyPassed ? "" : "  MISMATCH against host");
    }
    std::printf("\n%-34s", "kernel");
    for (const ComparisonEntry& e : c.entries) std::printf(" %24s", e.selection.c_str());
    std::printf("\n");
    for (const ComparisonRow& r : rows) {
      std::string name = r.name.size() > 33 ? r.name.substr(0, 32) + "~" : r.name;
      std::printf("%-34s", name.c_str());
      for (const ComparisonCell& cell : r.cells) std::printf(" %24s", cellText(cell).c_str());
      std::printf("\n");
    }
  }
  return ok ? 0 : 1;
}
}  // namespace

int cmdBench(int argc, char** argv) {
  Args args("bench");
  SessionFlags session;
  BenchFlags flags;
  args.repeatable("--devices", flags.devices, "a device list; several: compare those selections")->check(deviceList());
  addSessionFlags(args, session);
  args.app().add_option("--repeat", flags.repeat, "runs per plan (medians)")->check(atLeast(1));
  args.app().add_option("--baseline", flags.baseline, "the selection speed-ups are measured against");
  args.app().add_flag("--compare", flags.compare, "compare every selection found");
  args.app().add_flag("--json", flags.json, "print one JSON object");
  args.app().add_flag("--csv", flags.csv, "print the comparison as CSV");
  args.positionals("FILE", "a .ks program or an .onnx model");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().size() != 1) throw UsageError{"expects one FILE (.ks or .onnx)"};
  const int repeat = flags.repeat;
  if (!flags.devices.empty()) session.devices = flags.devices.back();
  SessionOptions base = sessionOptions(session);
  if (flags.devices.size() > 1 || flags.compare) return benchCompare(args, flags, base);
  const std::vector<DeviceInfo> selected = selectDevices(base.devices, discoverDevices());
  std::vector<std::string> compiling;
  bool blas = false;
  for (const DeviceInfo& d : selected) {
    if (d.compiles()) compiling.push_back(d.name);
    blas = blas || d.aotOnly();
  }
  if (compiling.empty()) throw UsageError{"bench needs at least one compiling device (opencl:P:D)"};
  std::vector<std::string> plans;
  for (const std::string& d : compiling) {
    plans.push_back(d);
    if (blas) plans.push_back(d + ",openblas");
  }
  if (compiling.size() > 1) {
    std::string all;
    for (const DeviceInfo& d : selected) all += (all.empty() ? "" : ",") + d.name;
    plans.push_back(all);
  }
  std::vector<PlanResult> results;
  for (const std::string& spec : plans) {
    SessionOptions o = base;
    o.devices = spec;
    Session s(loadProgram(args.positional()[0]), o);
    PlanResult pr;
    pr.devices = spec;
    // The cold run is verified; the steady state is 3 warm-ups, then the medians of `repeat` runs.
    const RunRecord& cold = s.run({}, true);
    pr.verified = cold.verifyPassed;
    pr.verification = verificationText(cold);
    pr.verificationJson = {{"mode", verifyModeName(cold.verifyMode)}, {"checked", cold.verifyChecked}, {"total", cold.verifyTotal},
                           {"ms", cold.verifyNs / 1e6}};
    if (!cold.verifyReason.empty()) pr.verificationJson["reason"] = cold.verifyReason;
    pr.coldNs = cold.totalNs;
    const SteadyState st = s.repeatRuns(3, repeat, 30.0);
    pr.totalNs = st.totalNs;
    pr.kernelNs = st.kernelNs;
    pr.copyNs = st.copyNs;
    pr.runs = st.runs;
    for (const StepTiming& t : st.steps) pr.steps.push_back({t.label + " @" + t.device, t.ns});
    results.push_back(std::move(pr));
  }
  const double best = std::min_element(results.begin(), results.end(), [](auto& a, auto& b) { return a.totalNs < b.totalNs; })->totalNs;
  if (flags.json) {
    nlohmann::json j;
    j["program"] = args.positional()[0];
    j["repeat"] = repeat;
    for (const PlanResult& r : results) {
      nlohmann::json pj = {{"devices", r.devices},          {"total_ms", r.totalNs / 1e6},  {"ratio_to_best", r.totalNs / best},
                           {"verified", r.verified && r.verificationJson["mode"] != "skipped"}, {"verification", r.verificationJson}, {"cold_ms", r.coldNs / 1e6},    {"kernels_ms", r.kernelNs / 1e6},
                           {"copies_ms", r.copyNs / 1e6},   {"runs", r.runs},               {"warmups", 3}};
      for (auto& [label, ns] : r.steps) pj["steps"].push_back({{"step", label}, {"ms", ns / 1e6}});
      j["plans"].push_back(pj);
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%-40s %14s %10s %12s %12s %12s %s\n", "plan (devices)", "steady wall", "vs best", "kernels", "copies",
                "cold wall", "verified");
    for (const PlanResult& r : results)
      std::printf("%-40s %14s %9.2fx %12s %12s %12s %s\n", r.devices.c_str(), formatNs(r.totalNs).c_str(), r.totalNs / best,
                  formatNs(r.kernelNs).c_str(), formatNs(r.copyNs).c_str(), formatNs(r.coldNs).c_str(),
                  r.verification.c_str());
    for (const PlanResult& r : results) {
      std::printf("\n%s (medians of %d runs after 3 warm-ups):\n", r.devices.c_str(), r.runs);
      for (auto& [label, ns] : r.steps) std::printf("  %-60s %12s\n", label.c_str(), formatNs(ns).c_str());
    }
  }
  for (const PlanResult& r : results)
    if (!r.verified) return 1;
  return 0;
}

}  // namespace ks::cli
