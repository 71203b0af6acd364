// Bounded verification against the host (see host_check.h).
#include "engine/session/host_check.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/tolerance.h"
#include "engine/eval/host_executor.h"
#include "engine/session/magnitude.h"
#include "engine/session/point_evaluator.h"

namespace ks {

int64_t reductionTerms(const Graph& g, ClassId c) {
  int64_t t = 1;
  for (ClassId k : g.topoOrder({c})) {
    const Node& n = g.structural(k);
    if (n.kind != NodeKind::Reduce) continue;
    int64_t r = 1;
    for (int64_t a : n.attr) r *= g.shape(n.in[0])[a];
    t = std::max(t, r);
  }
  return t;
}

namespace {
using Terms = std::vector<int64_t>;  // reductionTerms per result

HostCheck fullCheck(const Graph& g, const std::vector<ClassId>& results, const std::vector<HostTensor>& leaves,
                    const std::vector<HostTensor>& values, const Terms& terms, const MagnitudeGraph* mag) {
  HostCheck h;
  const std::vector<HostTensor> reference = HostExecutor::run(g, results, leaves);
  std::vector<HostTensor> magnitude;
  if (mag) magnitude = HostExecutor::run(mag->graph, mag->results, leaves);
  for (std::size_t i = 0; i < values.size(); ++i) {
    h.mismatch.push_back(mag ? compareWithMagnitude(values[i], reference[i], magnitude[i], terms[i])
                             : compareWithTolerance(values[i], reference[i], terms[i]));
    h.maxAbsError.push_back(maxAbsDifference(values[i], reference[i]));
    h.checked += values[i].numel();
  }
  h.total = h.checked;
  return h;
}

// One element of the run's value and of the reference as 1-element tensors of the result's dtype,
// so the tolerance is exactly compareWithTolerance's.
std::string compareElement(const HostTensor& got, int64_t i, KVal want, int64_t terms, double& maxAbs,
                           const KVal* magnitude = nullptr) {
  HostTensor a(got.dtype(), {1}), b(got.dtype(), {1}), m(got.dtype(), {1});
  if (isFloat(got.dtype())) {
    a.setDouble(0, got.getDouble(i));
    b.setDouble(0, want.f);
  } else {
    a.setInt(0, got.getInt(i));
    b.setInt(0, want.i);
  }
  maxAbs = std::max(maxAbs, maxAbsDifference(a, b));
  if (magnitude && isFloat(got.dtype())) m.setDouble(0, magnitude->f);
  const std::string bad = magnitude && isFloat(got.dtype()) ? compareWithMagnitude(a, b, m, terms) : compareWithTolerance(a, b, terms);
  return bad.empty() ? bad : "element " + std::to_string(i) + bad.substr(bad.find(':'));
}

HostCheck sampledCheck(const Graph& g, const std::vector<ClassId>& results, const std::vector<HostTensor>& leaves,
                       const std::vector<HostTensor>& values, const Terms& terms, const VerifyBudget& budget,
                       double work, const MagnitudeGraph* mag) {
  HostCheck h;
  h.mode = VerifyMode::Sampled;
  char est[64];
  std::snprintf(est, sizeof est, "%.3g", work);
  h.reason = std::string("the host oracle would take ~") + est + " element operations (budget " +
             std::to_string(static_cast<int64_t>(budget.hostWork)) + ")";
  PointEvaluator points(g, leaves, budget.pointVisits);
  std::optional<PointEvaluator> magPoints;
  if (mag) magPoints.emplace(mag->graph, leaves, budget.pointVisits);
  for (std::size_t r = 0; r < values.size(); ++r) {
    h.total += values[r].numel();
    h.mismatch.emplace_back();
    h.maxAbsError.push_back(0);
  }
  try {
    for (std::size_t r = 0; r < values.size(); ++r) {
      for (int64_t i : sampleIndices(values[r].numel(), budget.samples)) {
        KVal m0{};
        if (magPoints) m0 = magPoints->at(mag->results[r], i);
        const std::string m = compareElement(values[r], i, points.at(results[r], i), terms[r], h.maxAbsError[r], magPoints ? &m0 : nullptr);
        ++h.checked;
        if (!m.empty() && h.mismatch[r].empty()) h.mismatch[r] = m;
      }
    }
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Cancelled && e.code() != ErrorCode::Unsupported) throw;
    h.reason += "; " + e.message();
    if (h.checked == 0) h.mode = VerifyMode::Skipped;
  }
  return h;
}
}  // namespace

HostCheck checkAgainstHost(const Graph& oracle, const Graph& compiled, const std::vector<ClassId>& results,
                           const std::vector<HostTensor>& leaves, const std::vector<HostTensor>& values,
                           const VerifyBudget& budget, bool magnitudeBound) {
  Terms terms;
  for (ClassId c : results) terms.push_back(std::max(reductionTerms(oracle, c), reductionTerms(compiled, c)));
  const double work = hostOracleWork(oracle, results);
  std::optional<MagnitudeGraph> mag;
  if (magnitudeBound) mag = magnitudeGraph(oracle, results);
  const MagnitudeGraph* m = mag ? &*mag : nullptr;
  // The magnitudes cost the oracle's work once more, within the budget's slack (it is an estimate
  // of seconds, not a count to keep exactly).
  if (work <= budget.hostWork) return fullCheck(oracle, results, leaves, values, terms, m);
  return sampledCheck(oracle, results, leaves, values, terms, budget, work, m);
}

}  // namespace ks
