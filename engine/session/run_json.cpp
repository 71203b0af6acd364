// run --json: outputs, kernel counts, plan, timings, memory, what the rewrites did.
#include "engine/session/run_json.h"

#include <cmath>

#include "engine/session/source_links.h"

namespace ks {

namespace {
// JSON has no NaN or infinity: the strings "nan", "inf", "-inf", as in session files.
nlohmann::json number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}
}  // namespace

nlohmann::json outputJson(const OutputValue& o, std::size_t maxValues) {
  nlohmann::json values = nlohmann::json::array();
  const int64_t n = std::min<int64_t>(o.value.numel(), static_cast<int64_t>(maxValues));
  for (int64_t i = 0; i < n; ++i) {
    if (isFloat(o.value.dtype())) {
      values.push_back(number(o.value.getDouble(i)));
    } else {
      values.push_back(o.value.getInt(i));
    }
  }
  nlohmann::json j = {{"name", o.name},
                      {"dtype", dtypeName(o.value.dtype())},
                      {"shape", o.value.shape()},
                      {"values", values},
                      {"min", number(o.min)},
                      {"max", number(o.max)},
                      {"mean", number(o.mean)}};
  if (o.verified) j["verify"] = {{"ok", o.mismatch.empty()}, {"max_abs_error", o.maxAbsError}, {"mismatch", o.mismatch}};
  return j;
}

nlohmann::json planChoiceJson(const PlanChoice& c) {
  nlohmann::json list = nlohmann::json::array();
  const PlanCandidate* kept = c.chosen >= 0 ? &c.candidates.at(static_cast<std::size_t>(c.chosen)) : nullptr;
  for (const PlanCandidate& x : c.candidates) {
    nlohmann::json e = {{"devices", x.devices},
                        {"blas_threads", x.blasThreads},
                        {"variant", x.variant},
                        {"differs", kept && kept != &x ? planDifference(x, *kept) : std::string()},
                        {"predicted_ms", number(x.predictedNs / 1e6)},
                        {"measured_ms", x.measuredNs >= 0 ? nlohmann::json(x.measuredNs / 1e6) : nlohmann::json()},
                        {"runs", x.runs},
                        {"steps", x.plan.steps.size()},
                        {"chosen", x.chosen}};
    if (!x.note.empty()) e["note"] = x.note;
    list.push_back(e);
  }
  return {{"candidates", list},
          {"why", c.candidates.empty() ? "one candidate asked for (--tune none or --plan-candidates 1): the extraction's plan, unmeasured" : c.why},
          {"policy", c.policy}};
}

nlohmann::json runJson(const Session& s, const RunRecord& r, const SteadyState& steady) {
  const CompileTrace& t = s.trace();
  nlohmann::json j;
  j["program"] = s.program().name;
  j["devices"] = r.devices;
  for (const OutputValue& o : r.outputs) j["outputs"].push_back(outputJson(o));
  j["fused_kernels"] = t.kernels.size();
  int launches = 0;
  for (const PlanStep& st : t.plan.steps) launches += st.kind == PlanStep::Kind::Launch;
  j["launches"] = launches;
  nlohmann::json plan = nlohmann::json::array();
  for (std::size_t i = 0; i < t.plan.steps.size(); ++i) {
    const PlanStep& st = t.plan.steps[i];
    nlohmann::json p = {{"kind", st.kind == PlanStep::Kind::Launch ? "launch" : "copy"},
                        {"label", st.label},
                        {"device", s.devices().at(st.device).name},
                        {"zero_copy", st.zeroCopy},
                        {"source_lines", sourceLines(s, classesOfStep(s, i))}};
    if (st.kind == PlanStep::Kind::Launch) {
      const KernelEntry& e = t.entries.at(st.kernel);
      p["kernel"] = e.kind == KernelEntry::Kind::Gemm ? e.gemm.str() : t.kernels.at(e.fused).name;
      if (e.kind == KernelEntry::Kind::Fused) p["schedule"] = e.schedule;
    }
    plan.push_back(p);
  }
  j["plan"] = plan;
  // Steady-state times when they were measured, the cold run's otherwise.
  const bool measured = steady.runs > 0;
  nlohmann::json kernels = nlohmann::json::array();
  for (const StepTiming& st : measured ? steady.steps : r.steps)
    kernels.push_back({{"name", st.label}, {"device", st.device}, {"kind", st.kind}, {"ms", st.ns / 1e6},
                       {"gflops", st.gflops}, {"gbps", st.gbps}, {"resident", st.resident}});
  j["timings_ms"] = {{"total", (measured ? steady.totalNs : r.totalNs) / 1e6},
                     {"compile", t.compileMs},
                     {"kernels", kernels},
                     {"cold", {{"wall", r.totalNs / 1e6}, {"device_kernels", r.kernelNs / 1e6}, {"device_copies", r.copyNs / 1e6}}},
                     {"steady", {{"wall", steady.totalNs / 1e6}, {"device_kernels", steady.kernelNs / 1e6},
                                 {"device_copies", steady.copyNs / 1e6}, {"runs", steady.runs}, {"warmups", steady.warmups}}}};
  j["memory"] = {{"peak_bytes", r.peakBytes}, {"bytes_saved_by_reuse", t.plan.bytesSaved}};
  j["plan_choice"] = planChoiceJson(t.planChoice);
  if (t.rewrite.ran) {
    const RewriteReport& rw = t.rewrite.report;
    j["rewrite"] = {{"mode", t.rewrite.mode},           {"stop", rewriteStopName(rw.stop)},
                    {"rounds", rw.rounds},              {"nodes_before", rw.nodesBefore},
                    {"nodes_after", rw.nodesAfter},     {"classes_before", rw.classesBefore},
                    {"classes_after", rw.classesAfter}, {"merges", rw.steps.size()},
                    {"term_changes", t.rewrite.termChanges}, {"cached", t.rewrite.cached},
                    {"term_ns", t.rewrite.termNs},      {"original_ns", t.rewrite.originalNs}};
    nlohmann::json cands = nlohmann::json::array();
    for (const TermCandidateRecord& c : t.rewrite.candidates)
      cands.push_back({{"source", c.source}, {"static_ns", c.staticNs}, {"differ", c.differ}, {"kernels", c.kernels.size()},
                       {"gemms", c.gemms.size()}, {"plan_kernels", c.planKernels}, {"plan_only", c.planOnly}});
    j["rewrite"]["candidates"] = cands;
    j["rewrite"]["plan_candidate"] = t.rewrite.planCandidate;
  }
  if (r.verified) {
    j["verified"] = r.verifyPassed && r.verifyMode != VerifyMode::Skipped;
    j["verification"] = {{"mode", verifyModeName(r.verifyMode)}, {"checked", r.verifyChecked}, {"total", r.verifyTotal},
                         {"ms", r.verifyNs / 1e6}};
    if (!r.verifyReason.empty()) j["verification"]["reason"] = r.verifyReason;
  }
  return j;
}

}  // namespace ks
