// Which rules run: the families together, chosen by mode with per-rule and per-family switches.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/rewrite/rule.h"
#include "engine/rewrite/runner.h"

namespace ks {

// none: no rewriting. default: every rule that is on by default (exact ones and the bounded
// reassociations). aggressive: every rule, the ones off by default (x - x -> 0) too.
enum class RewriteMode : uint8_t { None, Default, Aggressive };
const char* rewriteModeName(RewriteMode m);
std::optional<RewriteMode> parseRewriteMode(const std::string& s);

struct RuleSelection {
  RewriteMode mode = RewriteMode::Default;
  std::vector<std::string> off;  // rule or family names switched off
  std::vector<std::string> on;   // rules switched on that the mode leaves off
};

std::vector<Rule> allRules();
// The rules of a selection, in allRules order. Throws Error(Usage) naming an unknown rule or
// family (and listing the known ones).
std::vector<Rule> selectRules(const RuleSelection& s);
// Names of the rules in order: part of the saturation cache key.
std::string ruleSetKey(const std::vector<Rule>& rules);
// Whether a merge of the report came from a rule that is not exact: a term it allowed may sum in
// another order, and is checked against the oracle by magnitude (checkAgainstHost).
bool anyInexactMerge(const RewriteReport& report);

}  // namespace ks
