// diff --json: the two sessions, matched classes, per-kernel times, plan changes, decisions.
#include "engine/session/session_diff_json.h"

#include <cstdio>

namespace ks {

namespace {
using json = nlohmann::json;

json us(const std::optional<double>& ns) { return ns ? json(*ns / 1000) : json(nullptr); }
json textOrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::string hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

json sideJson(const DiffSide& s) {
  return {{"file", s.file},           {"program", s.program},     {"devices", s.devices},
          {"tune", s.tune},           {"classes", s.classes},     {"kernels", s.kernels},
          {"plan_steps", s.steps},    {"predicted_us", s.predictedNs / 1000}, {"run_us", us(s.runNs)},
          {"times", s.timesFromRun ? "run" : "tuned"}};
}

const char* kernelStatus(const DiffKernel& k) {
  if (!k.nsB) return "only_a";
  if (!k.nsA) return "only_b";
  return k.changed() ? "changed" : "same";
}

json kernelJson(const DiffKernel& k) {
  json j = {{"name", k.name()},
            {"kind", k.gemm ? "gemm" : "fused"},
            {"hash", hex(k.hash)},
            {"status", kernelStatus(k)},
            {"name_a", textOrNull(k.nameA)},
            {"name_b", textOrNull(k.nameB)},
            {"time_a_us", us(k.nsA)},
            {"time_b_us", us(k.nsB)},
            {"delta_us", k.nsA && k.nsB ? json((*k.nsB - *k.nsA) / 1000) : json(nullptr)},
            {"device_a", textOrNull(k.deviceA)},
            {"device_b", textOrNull(k.deviceB)},
            {"schedule_a", textOrNull(k.scheduleA)},
            {"schedule_b", textOrNull(k.scheduleB)},
            {"compiled_a", k.compiledA},
            {"compiled_b", k.compiledB}};
  return j;
}

json stepJson(const DiffStep& s) {
  return {{"index", s.index}, {"label", s.label}, {"kind", s.kind}, {"device", s.device},
          {"schedule", textOrNull(s.schedule)}, {"time_us", s.ns / 1000}};
}

json planJson(const PlanDiff& p) {
  json j = {{"only_a", json::array()}, {"only_b", json::array()}, {"changed", json::array()}, {"same", p.same}};
  for (const DiffStep& s : p.onlyA) j["only_a"].push_back(stepJson(s));
  for (const DiffStep& s : p.onlyB) j["only_b"].push_back(stepJson(s));
  for (const DiffStepChange& c : p.changed) j["changed"].push_back({{"a", stepJson(c.a)}, {"b", stepJson(c.b)}, {"what", c.what}});
  return j;
}

json fusionStepJson(const std::optional<DiffFusionStep>& s) {
  if (!s) return nullptr;
  return {{"index", s->index}, {"action", s->action}, {"class", s->cls}, {"node", s->node}, {"rule", s->rule}, {"reason", s->reason}};
}

json decisionsJson(const SessionDiff& d) {
  const FusionDecisionDiff& f = d.fusion;
  json fusion = {{"steps_a", f.stepsA}, {"steps_b", f.stepsB}, {"only_a", f.onlyA}, {"only_b", f.onlyB},
                 {"first_difference", f.firstDifference < 0 ? json(nullptr) : json(f.firstDifference)},
                 {"a", fusionStepJson(f.a)}, {"b", fusionStepJson(f.b)}};
  json plan = json::array();
  for (const DiffChoice& c : d.choices)
    plan.push_back({{"class_a", c.classA}, {"class_b", c.classB}, {"node", c.node}, {"chosen_a", c.chosenA},
                    {"chosen_b", c.chosenB}, {"why_a", c.whyA}, {"why_b", c.whyB}});
  return {{"fusion", fusion}, {"plan", plan}};
}
}  // namespace

json sessionDiffJson(const SessionDiff& d) {
  json j;
  j["a"] = sideJson(d.a);
  j["b"] = sideJson(d.b);
  j["classes"] = {{"matched", d.matchedClasses}, {"only_a", d.onlyAClasses}, {"only_b", d.onlyBClasses}};
  j["kernels"] = json::array();
  for (const DiffKernel& k : d.kernels) j["kernels"].push_back(kernelJson(k));
  j["plan"] = planJson(d.plan);
  j["decisions"] = decisionsJson(d);
  return j;
}

}  // namespace ks
