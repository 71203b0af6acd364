// Flag handling and report formatting for kernelscope-cli.
#include "app/cli/cli_common.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "engine/io/tensor_file.h"
#include "engine/tune/autotuner.h"

namespace ks::cli {

void addSessionFlags(Args& args, SessionFlags& f, bool budgets) {
  CLI::App& app = args.app();
  if (!app.get_option_no_throw("--devices"))  // bench registers a repeatable one first
    app.add_option("--devices", f.devices, "device list: all, host, or a comma list of opencl:P:D and openblas")
        ->check(deviceList())
        ->type_name("LIST");
  app.add_option("--tune", f.tune, "autotune level")->check(CLI::IsMember({"none", "quick", "full"}));
  app.add_option("--cache", f.cache, "tuning cache file, or none (in memory)");
  app.add_option("--seed", f.seed, "seed of the random inputs")->check(atLeast(0));
  app.add_option("--rewrite", f.rewrite, "rewrite rules before matching: none, default or aggressive")
      ->check(CLI::IsMember({"none", "default", "aggressive"}));
  app.add_option("--rewrite-off", f.rewriteOff, "rules or families switched off (comma list)")->type_name("LIST");
  app.add_option("--rewrite-on", f.rewriteOn, "rules switched on that the mode leaves off (comma list)")->type_name("LIST");
  app.add_option("--rewrite-candidates", f.termCandidates,
                 "terms of the rewritten e-graph compiled and measured side by side (default: none 2, quick 2, full 6; 1: the static best)")
      ->check(atLeast(1));
  app.add_option("--zero-copy", f.zeroCopy, "share host memory with devices that live in it (PoCL): on, or off (real copies)")
      ->check(CLI::IsMember({"on", "off"}));
  if (!budgets) return;
  app.add_option("--budget-count", f.budgetCount, "schedules measured per kernel and device (0: the level's)")
      ->check(atLeast(0));
  app.add_option("--budget-seconds", f.budgetSeconds, "seconds per kernel and device (0: the level's)")
      ->check(finiteAtLeast(0));
  app.add_option("--budget-model", f.budgetModel,
                 "seconds per device for searching beyond each kernel's first schedule, slowest kernels first (0: the level's)")
      ->check(finiteAtLeast(0));
  app.add_option("--verify-budget", f.verifyBudget,
                 "element operations the host check may take; past it a sample of the outputs is checked")
      ->check(finiteAtLeast(0));
  app.add_option("--plan-candidates", f.planCandidates,
                 "candidate plans measured on the devices before one is kept (default: none 1, quick 5, full 10)")
      ->check(atLeast(1));
  app.add_option("--verify-samples", f.verifySamples, "elements per output checked when sampling")->check(atLeast(1));
}

std::string verificationText(const RunRecord& r) {
  if (!r.verifyPassed) return "MISMATCH";
  if (r.verifyMode == VerifyMode::Skipped) return "not verified (budget)";
  if (r.verifyMode == VerifyMode::Sampled)
    return "ok (sampled, " + std::to_string(r.verifyChecked) + " of " + std::to_string(r.verifyTotal) + " elements)";
  return "ok";
}

SessionOptions sessionOptions(const SessionFlags& f) {
  SessionOptions o;
  o.devices = f.devices;
  o.tune = f.tune == "none" ? TuneLevel::None : f.tune == "full" ? TuneLevel::Full : TuneLevel::Quick;
  o.cache = f.cache;
  o.seed = f.seed;
  o.budgetCount = f.budgetCount;
  o.budgetSeconds = f.budgetSeconds;
  o.budgetModelSeconds = f.budgetModel;
  o.planCandidates = f.planCandidates;
  o.termCandidates = f.termCandidates;
  o.rewrite.mode = *parseRewriteMode(f.rewrite);
  o.zeroCopy = f.zeroCopy == "on";  // the flag's check allows only known modes
  auto list = [](const std::string& csv) {
    std::vector<std::string> r;
    std::size_t start = 0;
    while (start <= csv.size() && !csv.empty()) {
      const std::size_t comma = std::min(csv.find(',', start), csv.size());
      if (comma == start) throw UsageError{"empty name in the rule list '" + csv + "'"};
      r.push_back(csv.substr(start, comma - start));
      start = comma + 1;
    }
    return r;
  };
  o.rewrite.off = list(f.rewriteOff);
  o.rewrite.on = list(f.rewriteOn);
  try {
    selectRules(o.rewrite);  // an unknown rule or family name is a usage error, before any work
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Usage) throw UsageError{e.message()};
    throw;
  }
  o.verify.hostWork = f.verifyBudget;
  o.verify.samples = f.verifySamples;
  // A device list that names no usable selection is a usage error (exit 2), caught before any work.
  try {
    selectDevices(o.devices, o.devices == "host" ? std::vector<DeviceInfo>{hostDeviceInfo()} : discoverDevices());
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Usage) throw UsageError{e.message()};
    throw;
  }
  return o;
}

std::vector<std::pair<std::string, HostTensor>> inputsFrom(const std::vector<std::string>& specs) {
  std::vector<std::pair<std::string, HostTensor>> r;
  for (const std::string& spec : specs) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw UsageError{"--input takes NAME=FILE, got '" + spec + "'"};
    r.push_back({spec.substr(0, eq), readTensorFile(spec.substr(eq + 1))});
  }
  return r;
}

std::string previewValues(const HostTensor& t, int count) {
  std::ostringstream os;
  os.precision(6);
  const int64_t n = t.numel();
  for (int64_t i = 0; i < std::min<int64_t>(n, count); ++i) {
    if (i) os << ", ";
    if (isFloat(t.dtype())) os << t.getDouble(i);
    else os << t.getInt(i);
  }
  if (n > count) os << ", ... (" << n << " values)";
  return os.str();
}

std::string formatNs(double ns) {
  char buf[64];
  if (ns >= 1e9) std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  else if (ns >= 1e6) std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  else std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  return buf;
}

std::string timingTable(const RunRecord& r, const TimingGap* gap) {
  std::ostringstream os;
  char line[512];
  std::snprintf(line, sizeof line, "%-4s %-44s %-12s %12s %10s %10s", "#", "step", "device", "time", "GFLOP/s", "GB/s");
  os << line << (gap ? "    predicted    ratio\n" : "\n");
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const StepTiming& s = r.steps[i];
    std::string label = s.label.size() > 44 ? s.label.substr(0, 41) + "..." : s.label;
    std::snprintf(line, sizeof line, "%-4zu %-44s %-12s %12s %10.2f %10.2f", i, label.c_str(), s.device.c_str(),
                  formatNs(s.ns).c_str(), s.gflops, s.gbps);
    os << line;
    if (gap && i < gap->steps.size()) {
      const StepGap& g = gap->steps[i];
      std::snprintf(line, sizeof line, " %12s %7.2fx%s", formatNs(g.predictedNs).c_str(), g.ratio(), g.flagged ? " !" : "");
      os << line;
    }
    os << "\n";
  }
  std::snprintf(line, sizeof line, "total %s over %zu steps, peak memory %.2f MiB\n", formatNs(r.totalNs).c_str(),
                r.steps.size(), static_cast<double>(r.peakBytes) / (1 << 20));
  os << line;
  if (gap) {
    os << gap->summary << "\n";
    for (std::size_t i = 0; i < gap->steps.size(); ++i)
      if (gap->steps[i].flagged) os << "  ! #" << i << ": " << gap->steps[i].reason << "\n";
  }
  return os.str();
}

}  // namespace ks::cli
