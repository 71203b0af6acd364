// DeviceComparison: entries from sessions, the side-by-side rows with speed-ups and % of peak,
// and the CSV both front ends export.
#include "engine/session/device_comparison.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/median.h"
#include "engine/devices/device_peaks.h"

namespace ks {

namespace {
const DeviceInfo* deviceNamed(const std::vector<DeviceInfo>& ds, const std::string& name) {
  for (const DeviceInfo& d : ds)
    if (d.name == name) return &d;
  return nullptr;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string fmt(double v, int prec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}
}  // namespace

std::string comparisonLabel(const StepTiming& s) {
  const std::string suffix = " on " + s.device;
  if (s.label.size() > suffix.size() && s.label.compare(s.label.size() - suffix.size(), suffix.size(), suffix) == 0)
    return s.label.substr(0, s.label.size() - suffix.size());
  return s.label;
}

void DeviceComparison::add(ComparisonEntry e) {
  for (ComparisonEntry& old : entries)
    if (old.selection == e.selection) {
      old = std::move(e);
      return;
    }
  entries.push_back(std::move(e));
}

const ComparisonEntry* DeviceComparison::find(const std::string& selection) const {
  for (const ComparisonEntry& e : entries)
    if (e.selection == selection) return &e;
  return nullptr;
}

int DeviceComparison::baseline(const std::string& selection) const {
  int slowest = -1;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const ComparisonEntry& e = entries[i];
    if (!e.error.empty() || e.run.totalNs <= 0) continue;
    if (!selection.empty() && e.selection == selection) return static_cast<int>(i);
    if (slowest < 0 || e.run.totalNs > entries[slowest].run.totalNs) slowest = static_cast<int>(i);
  }
  return slowest;
}

std::vector<ComparisonRow> DeviceComparison::rows(const std::string& baselineSelection) const {
  std::vector<ComparisonRow> out;
  std::map<std::string, std::size_t> rowOf;
  bool anyCopy = false;
  for (const ComparisonEntry& e : entries)
    for (const StepTiming& st : e.run.steps) {
      if (st.kind == "copy" || st.kind == "zero-copy") {
        anyCopy = true;
        continue;
      }
      const std::string label = comparisonLabel(st);
      if (rowOf.emplace(label, out.size()).second) out.push_back({label, label, st.kind, {}});
    }
  const std::size_t copyRow = out.size();
  if (anyCopy) {
    out.push_back({"copies", "copies", "copy", {}});
  }
  const std::size_t totalRow = out.size();
  out.push_back({"total", "total", "total", {}});
  for (ComparisonRow& r : out) {
    r.cells.assign(entries.size(), ComparisonCell{});
    // "kernel k3" -> the kernel's name, from any entry that knows it (all compile the same program).
    if (r.label.rfind("kernel k", 0) != 0) continue;
    const std::string idx = r.label.substr(8);
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::size_t k = std::stoul(idx);
    for (const ComparisonEntry& e : entries)
      if (k < e.kernelNames.size() && !e.kernelNames[k].empty()) {
        r.name = e.kernelNames[k];
        break;
      }
  }

  for (std::size_t ei = 0; ei < entries.size(); ++ei) {
    const ComparisonEntry& e = entries[ei];
    if (!e.error.empty()) continue;
    for (const StepTiming& st : e.run.steps) {
      const std::size_t ri = st.kind == "copy" || st.kind == "zero-copy" ? copyRow : rowOf.at(comparisonLabel(st));
      ComparisonCell& c = out[ri].cells[ei];
      if (c.present && c.device != st.device && c.device.find(st.device) == std::string::npos) c.device += "+" + st.device;
      if (!c.present) c.device = st.device;
      c.present = true;
      c.ns += st.ns;
      c.flops += st.gflops * st.ns;  // GFLOP/s x ns = FLOP
      c.bytes += st.gbps * st.ns;
    }
    ComparisonCell& t = out[totalRow].cells[ei];
    t.present = true;
    t.ns = e.run.totalNs;
    std::vector<std::string> names;
    for (const DeviceInfo& d : e.devices) names.push_back(d.name);
    for (std::size_t i = 0; i < names.size(); ++i) t.device += (i ? "+" : "") + names[i];
    for (std::size_t ri = 0; ri < totalRow; ++ri)
      if (ri != copyRow || !anyCopy) {
        t.flops += out[ri].cells[ei].flops;
        t.bytes += out[ri].cells[ei].bytes;
      }
  }
  // Rates, % of peak (launches on one known device only), speed-ups.
  const int base = baseline(baselineSelection);
  for (std::size_t ri = 0; ri < out.size(); ++ri) {
    ComparisonRow& r = out[ri];
    for (std::size_t ei = 0; ei < entries.size(); ++ei) {
      ComparisonCell& c = r.cells[ei];
      if (!c.present) continue;
      if (c.ns > 0) {
        c.gflops = c.flops / c.ns;
        c.gbps = c.bytes / c.ns;
      }
      if (r.kind != "copy" && r.kind != "total")
        if (const DeviceInfo* d = deviceNamed(entries[ei].devices, c.device)) {
          if (d->peakGflops > 0) c.peakGflopsPct = 100.0 * c.gflops / d->peakGflops;
          if (d->peakGBs > 0) c.peakGBsPct = 100.0 * c.gbps / d->peakGBs;
        }
    }
    // Against the chosen selection's cell; with no choice, against the slowest selection that
    // ran this row (the host's reference executor has no per-kernel times to compare with).
    double baseNs = 0;
    if (!baselineSelection.empty() && base >= 0 && entries[base].selection == baselineSelection) {
      if (r.cells[base].present) baseNs = r.cells[base].ns;
    } else {
      for (const ComparisonCell& c : r.cells)
        if (c.present) baseNs = std::max(baseNs, c.ns);
    }
    for (ComparisonCell& c : r.cells)
      if (c.present && c.ns > 0 && baseNs > 0) c.speedup = baseNs / c.ns;
  }
  return out;
}

std::string DeviceComparison::csv(const std::string& baselineSelection) const {
  std::ostringstream os;
  os << "kernel,kind";
  for (const ComparisonEntry& e : entries) {
    const std::string s = e.selection;
    for (const char* col : {" time_us", " speedup", " device", " GFLOP/s", " GB/s", " % peak FLOP/s", " % peak GB/s"})
      os << ',' << csvField(s + col);
  }
  os << '\n';
  for (const ComparisonRow& r : rows(baselineSelection)) {
    os << csvField(r.name) << ',' << r.kind;
    for (const ComparisonCell& c : r.cells) {
      if (!c.present) {
        os << ",,,,,,,";
        continue;
      }
      os << ',' << fmt(c.ns / 1e3, 3) << ',' << (c.speedup > 0 ? fmt(c.speedup, 4) : "") << ',' << csvField(c.device) << ','
         << fmt(c.gflops, 3) << ',' << fmt(c.gbps, 3) << ',' << (c.peakGflopsPct > 0 ? fmt(c.peakGflopsPct, 2) : "") << ','
         << (c.peakGBsPct > 0 ? fmt(c.peakGBsPct, 2) : "");
    }
    os << '\n';
  }
  return os.str();
}

ComparisonEntry comparisonEntryOf(const Session& s, const std::string& selection, std::size_t first) {
  ComparisonEntry e;
  e.selection = selection;
  e.devices = s.devices();
  fillPeaks(e.devices);
  e.compileMs = s.trace().compileMs;
  for (const KernelRecord& k : s.trace().kernels) e.kernelNames.push_back(k.name);
  const auto& runs = s.runs();
  if (first >= runs.size()) {
    e.error = "no run";
    return e;
  }
  e.repeats = static_cast<int>(runs.size() - first);
  const RunRecord& r0 = runs[first];
  e.run.devices = r0.devices;
  e.run.peakBytes = r0.peakBytes;
  e.run.verified = r0.verified;
  e.run.verifyPassed = true;
  std::vector<double> totals;
  for (std::size_t i = first; i < runs.size(); ++i) {
    totals.push_back(runs[i].totalNs);
    e.run.verifyPassed = e.run.verifyPassed && runs[i].verifyPassed;
  }
  e.run.totalNs = median(totals);
  for (std::size_t si = 0; si < r0.steps.size(); ++si) {
    StepTiming st = r0.steps[si];
    std::vector<double> ns;
    for (std::size_t i = first; i < runs.size(); ++i)
      if (si < runs[i].steps.size()) ns.push_back(runs[i].steps[si].ns);
    const double flops = st.gflops * st.ns, bytes = st.gbps * st.ns;
    st.ns = median(ns);
    st.gflops = st.ns > 0 ? flops / st.ns : 0;
    st.gbps = st.ns > 0 ? bytes / st.ns : 0;
    e.run.steps.push_back(std::move(st));
  }
  // Outputs are left out (a comparison keeps timings, not values), their verdicts kept above.
  return e;
}

ComparisonEntry measureSelection(const Program& program, SessionOptions options, const std::string& selection,
                                 int repeats, const Progress::Callback& report, std::atomic<bool>* cancel) {
  ComparisonEntry e;
  e.selection = selection;
  repeats = std::max(1, repeats);
  // Compiling takes the first 80% of this selection's progress, the runs the rest.
  auto scaled = [&](double from, double span) {
    return Progress(
        [&report, &selection, from, span](double f, const std::string& what) {
          if (report) report(from + span * f, selection + ": " + what);
        },
        cancel);
  };
  try {
    options.devices = selection;
    const Progress compileProgress = scaled(0.0, 0.8);
    compileProgress.report(0.0, "opening devices");
    Session s(Program(program), options);
    s.runTo(Stage::Planned, compileProgress);
    for (int r = 0; r < repeats; ++r) {
      const Progress runProgress = scaled(0.8 + 0.2 * r / repeats, 0.2 / repeats);
      runProgress.check("the comparison on " + selection);
      s.run({}, r == 0, runProgress);
    }
    e = comparisonEntryOf(s, selection);
  } catch (const Error& err) {
    if (err.code() == ErrorCode::Cancelled) throw;
    e.error = err.what();
  }
  return e;
}

std::vector<std::string> comparisonSelections(const std::vector<DeviceInfo>& found) {
  std::vector<std::string> out;
  bool blas = false;
  for (const DeviceInfo& d : found) blas = blas || d.aotOnly();
  for (const DeviceInfo& d : found)
    if (d.kind == DeviceKind::Host) out.push_back(d.name);
  for (const DeviceInfo& d : found)
    if (d.compiles()) {
      out.push_back(d.name);
      if (blas) out.push_back(d.name + ",openblas");
    }
  return out;
}

}  // namespace ks
