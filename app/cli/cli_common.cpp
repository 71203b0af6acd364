// Flag handling and report formatting for kernelscope-cli.
#include "app/cli/cli_common.h"

#include <cstdio>
#include <sstream>

#include "engine/io/tensor_file.h"
#include "engine/tune/autotuner.h"

namespace ks::cli {

SessionOptions sessionOptions(const Args& args) {
  SessionOptions o;
  o.devices = args.getOr("devices", "all");
  const std::string tune = args.getOr("tune", "quick");
  if (tune == "none") o.tune = TuneLevel::None;
  else if (tune == "quick") o.tune = TuneLevel::Quick;
  else if (tune == "full") o.tune = TuneLevel::Full;
  else throw UsageError{"--tune takes none, quick or full, not '" + tune + "'"};
  o.cache = args.getOr("cache", "");
  // A device list that names no usable selection is a usage error (exit 2), caught before any work.
  try {
    selectDevices(o.devices, o.devices == "host" ? std::vector<DeviceInfo>{hostDeviceInfo()} : discoverDevices());
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Usage) throw UsageError{e.message()};
    throw;
  }
  try {
    o.seed = std::stoull(args.getOr("seed", "0"));
    o.budgetCount = std::stoi(args.getOr("budget-count", "0"));
    o.budgetSeconds = std::stod(args.getOr("budget-seconds", "0"));
  } catch (const std::exception&) {
    throw UsageError{"--seed, --budget-count and --budget-seconds take numbers"};
  }
  return o;
}

std::vector<std::pair<std::string, HostTensor>> inputsFrom(const Args& args) {
  std::vector<std::pair<std::string, HostTensor>> r;
  for (const std::string& spec : args.all("input")) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError{"--input takes NAME=FILE, got '" + spec + "'"};
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

std::string timingTable(const RunRecord& r) {
  std::ostringstream os;
  char line[512];
  std::snprintf(line, sizeof line, "%-4s %-44s %-12s %12s %10s %10s\n", "#", "step", "device", "time", "GFLOP/s", "GB/s");
  os << line;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const StepTiming& s = r.steps[i];
    std::string label = s.label.size() > 44 ? s.label.substr(0, 41) + "..." : s.label;
    std::snprintf(line, sizeof line, "%-4zu %-44s %-12s %12s %10.2f %10.2f\n", i, label.c_str(), s.device.c_str(),
                  formatNs(s.ns).c_str(), s.gflops, s.gbps);
    os << line;
  }
  std::snprintf(line, sizeof line, "total %s over %zu steps, peak memory %.2f MiB\n", formatNs(r.totalNs).c_str(),
                r.steps.size(), static_cast<double>(r.peakBytes) / (1 << 20));
  os << line;
  return os.str();
}

}  // namespace ks::cli
