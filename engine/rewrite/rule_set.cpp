// The rule families put together, and the selection by mode and switches.
#include "engine/rewrite/rule_set.h"

#include <algorithm>
#include <set>

#include "engine/core/error.h"

namespace ks {

const char* rewriteModeName(RewriteMode m) {
  switch (m) {
    case RewriteMode::None: return "none";
    case RewriteMode::Default: return "default";
    case RewriteMode::Aggressive: return "aggressive";
  }
  return "?";
}

std::optional<RewriteMode> parseRewriteMode(const std::string& s) {
  for (RewriteMode m : {RewriteMode::None, RewriteMode::Default, RewriteMode::Aggressive})
    if (s == rewriteModeName(m)) return m;
  return std::nullopt;
}

std::vector<Rule> allRules() {
  std::vector<Rule> all;
  for (auto family : {movementRules(), layoutRules(), matmulRules(), algebraRules()})
    for (Rule& r : family) all.push_back(std::move(r));
  return all;
}

std::vector<Rule> selectRules(const RuleSelection& s) {
  std::vector<Rule> all = allRules();
  auto known = [&](const std::string& name) {
    for (int f = 0; f < kNumRuleFamilies; ++f)
      if (name == ruleFamilyName(static_cast<RuleFamily>(f))) return true;
    return std::any_of(all.begin(), all.end(), [&](const Rule& r) { return r.name == name; });
  };
  for (const auto* list : {&s.off, &s.on})
    for (const std::string& name : *list)
      if (!known(name)) {
        std::string names;
        for (const Rule& r : all) names += (names.empty() ? "" : ", ") + r.name;
        throw Error(ErrorCode::Usage, "unknown rewrite rule or family '" + name + "' (families: movement, layout, matmul, algebra; rules: " + names + ")");
      }
  auto listed = [](const std::vector<std::string>& list, const Rule& r) {
    return std::find(list.begin(), list.end(), r.name) != list.end() ||
           std::find(list.begin(), list.end(), ruleFamilyName(r.family)) != list.end();
  };
  std::vector<Rule> chosen;
  if (s.mode == RewriteMode::None) return chosen;
  for (Rule& r : all) {
    const bool byMode = s.mode == RewriteMode::Aggressive || r.onByDefault;
    if ((byMode || listed(s.on, r)) && !listed(s.off, r)) chosen.push_back(std::move(r));
  }
  return chosen;
}

std::string ruleSetKey(const std::vector<Rule>& rules) {
  std::string key;
  for (const Rule& r : rules) key += r.name + ";";
  return key;
}

bool anyInexactMerge(const RewriteReport& report) {
  std::set<std::string> inexact;
  for (const Rule& r : allRules())
    if (!r.exact) inexact.insert(r.name);
  for (const RewriteStep& s : report.steps)
    if (inexact.count(s.rule)) return true;
  return false;
}

}  // namespace ks
