// nodeMeasures: plan steps read the run's step timings; e-nodes the run step that executed them,
// else the Kernel entry the autotuner timed.
#include "engine/viz/node_measures.h"

#include <algorithm>
#include <unordered_map>

namespace ks::viz {

std::string_view metricTitle(Metric m) {
  switch (m) {
    case Metric::Time: return "measured time";
    case Metric::GBs: return "GB/s";
    case Metric::GFlops: return "GFLOP/s";
    case Metric::PeakPct: return "% of peak";
    case Metric::None: break;
  }
  return "none";
}

namespace {
double peakPct(const std::string& device, double gbps, double gflops, const MeasureSources& in) {
  const std::vector<DeviceInfo>& list = in.peaks ? *in.peaks : in.devices;
  auto it = std::find_if(list.begin(), list.end(), [&](const DeviceInfo& d) { return d.name == device; });
  if (it == list.end() || (it->peakGBs <= 0 && it->peakGflops <= 0)) return -1;
  double pct = 0;
  if (it->peakGBs > 0) pct = std::max(pct, 100.0 * gbps / it->peakGBs);
  if (it->peakGflops > 0) pct = std::max(pct, 100.0 * gflops / it->peakGflops);
  return pct;
}

Measure ofStep(const StepTiming& t, const MeasureSources& in) {
  Measure m;
  m.ns = t.ns;
  m.gbps = t.gbps;
  m.gflops = t.gflops;
  m.peakPct = peakPct(t.device, t.gbps, t.gflops, in);
  m.fromRun = true;
  return m;
}

std::optional<Measure> ofEntry(const ks::Node& n, const MeasureSources& in) {
  if (n.kind != NodeKind::Kernel || n.ref >= in.entries.size()) return std::nullopt;
  const KernelEntry& e = in.entries[n.ref];
  if (e.timeNs <= 0) return std::nullopt;
  Measure m;
  m.ns = e.timeNs;
  m.gflops = e.flops / e.timeNs;  // flop per ns = GFLOP/s
  m.gbps = static_cast<double>(e.bytes) / e.timeNs;
  const std::string device = e.device < in.devices.size() ? in.devices[e.device].name : std::string();
  m.peakPct = peakPct(device, m.gbps, m.gflops, in);
  return m;
}
}  // namespace

std::vector<std::optional<Measure>> nodeMeasures(const Picture& p, const MeasureSources& in) {
  const bool haveRun = in.run && in.run->steps.size() == in.plan.steps.size();
  std::unordered_map<uint32_t, std::size_t> stepOfNode;  // e-node -> plan step that ran it
  for (std::size_t i = 0; i < in.plan.steps.size(); ++i)
    if (in.plan.steps[i].node.valid()) stepOfNode.emplace(in.plan.steps[i].node.v, i);
  std::vector<std::optional<Measure>> out(p.nodes.size());
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const Subject s = p.nodes[i].subject;
    if (s.kind == SubjectKind::PlanStep && haveRun && s.id < in.run->steps.size()) {
      out[i] = ofStep(in.run->steps[s.id], in);
    } else if (s.kind == SubjectKind::ENode && s.id < in.graph.nodeCount()) {
      auto it = stepOfNode.find(s.id);
      if (haveRun && it != stepOfNode.end()) out[i] = ofStep(in.run->steps[it->second], in);
      else out[i] = ofEntry(in.graph.node(NodeId(s.id)), in);
    }
  }
  return out;
}

std::optional<double> metricValue(const Measure& m, Metric metric) {
  switch (metric) {
    case Metric::Time: return m.ns;
    case Metric::GBs: return m.gbps;
    case Metric::GFlops: return m.gflops;
    case Metric::PeakPct: return m.peakPct >= 0 ? std::optional<double>(m.peakPct) : std::nullopt;
    case Metric::None: break;
  }
  return std::nullopt;
}

}  // namespace ks::viz
