// Medians of repeated runs.
#include "engine/plan/steady_state.h"

#include "engine/core/median.h"

namespace ks {

SteadyState steadyStateOf(const std::vector<RunRecord>& runs, int warmups) {
  SteadyState s;
  s.warmups = warmups;
  s.runs = static_cast<int>(runs.size());
  if (runs.empty()) return s;
  std::vector<double> total, kernels, copies;
  for (const RunRecord& r : runs) {
    total.push_back(r.totalNs);
    kernels.push_back(r.kernelNs);
    copies.push_back(r.copyNs);
  }
  s.totalNs = median(total);
  s.kernelNs = median(kernels);
  s.copyNs = median(copies);
  for (std::size_t i = 0; i < runs[0].steps.size(); ++i) {
    StepTiming st = runs[0].steps[i];
    std::vector<double> ns;
    for (const RunRecord& r : runs)
      if (i < r.steps.size()) ns.push_back(r.steps[i].ns);
    const double flops = st.gflops * st.ns, bytes = st.gbps * st.ns;
    st.ns = median(ns);
    st.gflops = st.ns > 0 ? flops / st.ns : 0;
    st.gbps = st.ns > 0 ? bytes / st.ns : 0;
    s.steps.push_back(std::move(st));
  }
  return s;
}

}  // namespace ks
