// DeviceComparison: one program compiled and run once per device selection ("host",
// "opencl:0:0", "opencl:0:0,openblas"), and the side-by-side table of it: per kernel and in
// total, the time on each selection, the speed-up against a baseline, and achieved GB/s and
// GFLOP/s against each device's measured peak. The GUI's Devices view and `kernelscope-cli bench`
// both show this.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/progress.h"
#include "engine/devices/device_info.h"
#include "engine/program/program.h"
#include "engine/session/compile_trace.h"
#include "engine/session/session.h"

namespace ks {

// One selection compiled and run: the run's steps are per-step medians over `repeats` runs.
struct ComparisonEntry {
  std::string selection;            // the --devices list
  std::vector<DeviceInfo> devices;  // as selected, with measured peaks
  RunRecord run;                    // step timings in plan order; totalNs the median total
  int repeats = 0;
  double compileMs = 0;
  std::string error;                // why it could not compile or run ("" when it did)
  std::vector<std::string> kernelNames;  // by fused-kernel index: "k3 exp_mul_sum"
};

// One kernel (or "copies", or "total") on one selection.
struct ComparisonCell {
  bool present = false;
  double ns = 0;           // summed over the plan's launches with this label
  std::string device;      // where it ran ("a+b" when launches ran on several)
  double flops = 0;        // work of those launches (0 when unknown)
  double bytes = 0;        // bytes they moved (0 when unknown)
  double gflops = 0, gbps = 0;
  double peakGflopsPct = 0, peakGBsPct = 0;  // against the device's peak; 0 when unknown
  double speedup = 0;      // baseline ns / ns (0 when there is no baseline cell)
};

struct ComparisonRow {
  std::string label;  // "kernel k3", "sgemm 64x64x64 batch 1", "copies", "total"
  std::string name;   // what to show: the kernel's name ("k3 exp_mul_sum") when known, else label
  std::string kind;   // "launch", "gemm", "host", "copy", "total"
  std::vector<ComparisonCell> cells;  // one per entry, in entry order
};

// The kernel a step ran, without the device: "kernel k3 on opencl:0:0" -> "kernel k3".
std::string comparisonLabel(const StepTiming& s);

class DeviceComparison {
 public:
  uint64_t programKey = 0;        // Program::cacheKey() of the compared program
  std::string programName;
  std::vector<ComparisonEntry> entries;

  // Adds an entry, replacing the one with the same selection (a rerun supersedes it).
  void add(ComparisonEntry e);
  const ComparisonEntry* find(const std::string& selection) const;
  bool empty() const { return entries.empty(); }

  // Index of the baseline entry: `selection` when it is there and ran, else the slowest total
  // among the entries that ran; -1 when none ran.
  int baseline(const std::string& selection = "") const;
  // The table: kernels in first-seen order over the entries, then "copies" (every copy step
  // together) when any entry copied, then "total". Speed-ups: against the named selection's cell
  // of the same row (none where it did not run that row), or, with no selection named (or one not
  // compared), against the slowest cell of the row.
  std::vector<ComparisonRow> rows(const std::string& baselineSelection = "") const;
  // The same table as CSV (header: kernel, kind, then per entry time_us, speedup, device,
  // GFLOP/s, GB/s, % peak FLOP/s, % peak GB/s).
  std::string csv(const std::string& baselineSelection = "") const;
};

// A comparison entry from a session's runs: step-wise medians over runs [first, end).
ComparisonEntry comparisonEntryOf(const Session& s, const std::string& selection, std::size_t first = 0);

// Compiles `program` for `selection` (options.devices is replaced), runs it `repeats` times (the
// first verified against host), measures the devices' peaks, and returns the entry. A failure
// to compile or run is returned in entry.error; Error(Cancelled) is rethrown. `report` gets this
// selection's progress (0..1); `cancel` stops it between units of work.
ComparisonEntry measureSelection(const Program& program, SessionOptions options, const std::string& selection,
                                 int repeats, const Progress::Callback& report = {}, std::atomic<bool>* cancel = nullptr);

// The selections worth comparing on these devices: "host", each compiling device alone, and each
// compiling device with openblas when openblas is there.
std::vector<std::string> comparisonSelections(const std::vector<DeviceInfo>& found);

}  // namespace ks
