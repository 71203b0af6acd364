// explain-plan --json: the same numbers explanationText prints, as one object (times in ms).
#include "engine/session/plan_explanation_json.h"

#include <algorithm>
#include <cmath>

namespace ks {

namespace {
using json = nlohmann::json;

double ms(double ns) { return ns / 1e6; }

json producer(NodeId n, const std::string& label, double ns, double treeNs) {
  return {{"node", n.v}, {"label", label}, {"ms", ms(ns)}, {"tree_ms", ms(treeNs)}};
}

// Infinity has no JSON form: a plan that cannot do without the chosen node is null.
json without(const PlanExplanation& e) {
  if (!std::isfinite(e.withoutNs)) return nullptr;
  return {{"dag_ms", ms(e.withoutNs)},
          {"change_ms", ms(e.withoutNs - e.dagNs)},
          {"change_pct", 100.0 * (e.withoutNs - e.dagNs) / std::max(e.dagNs, 1e-9)},
          {"node", e.withoutChoice.valid() ? json(e.withoutChoice.v) : json(nullptr)},
          {"label", e.withoutLabel.empty() ? json(nullptr) : json(e.withoutLabel)}};
}
}  // namespace

json explanationJson(const Session& s, const PlanExplanation& e) {
  const Graph& g = s.graph();
  return {{"class", e.asked.v},
          {"label", g.structural(e.asked).label()},
          {"dtype", std::string(dtypeName(g.dtype(e.asked)))},
          {"shape", shapeStr(g.shape(e.asked))},
          {"decided", e.decided.v},
          {"inside", e.inside.empty() ? json(nullptr) : json(e.inside)},
          {"chosen", producer(e.chosen, e.chosenLabel, e.chosenNs, e.chosenTreeNs)},
          {"why", e.why},
          {"runner_up", e.runnerUp.valid() ? producer(e.runnerUp, e.runnerUpLabel, e.runnerUpNs, e.runnerUpTreeNs) : json(nullptr)},
          {"alternatives", e.alternatives},
          {"dag_ms", ms(e.dagNs)},
          {"without", without(e)}};
}

}  // namespace ks
