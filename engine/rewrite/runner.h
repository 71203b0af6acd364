// Equality saturation in the manner of egg's Runner: rounds of search-all-then-apply-all, a
// rebuild after each round, limits on rounds, e-nodes and time, per-rule match limits with
// backoff, and always the reason it stopped.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/progress.h"
#include "engine/rewrite/rule.h"

namespace ks {

struct RewriteLimits {
  int iterations = 8;
  std::size_t nodes = 10000;  // e-nodes in the graph
  double seconds = 0.5;
  // A rule finding more matches than this in one round applies none of them and is banned for
  // banRounds rounds; both double each time it is banned again (egg's BackoffScheduler), so
  // associativity and distributivity cannot explode the graph.
  std::size_t matchLimit = 1000;
  int banRounds = 2;
};

enum class RewriteStop : uint8_t { Saturated, IterationLimit, NodeLimit, TimeLimit, Cancelled };
const char* rewriteStopName(RewriteStop s);

// One rule in one round.
struct RuleRound {
  std::string rule;
  int round = 0;            // 1-based
  std::size_t matches = 0;  // found by the search
  std::size_t merges = 0;   // applications that changed which classes are equal
  std::size_t nodesAdded = 0;
  std::size_t classesAdded = 0;  // classes its replacements created (before merging them)
  double ms = 0;
  bool banned = false;      // too many matches: none applied this round
};

// One application that merged two classes: the rule, the round, the classes (canonical at the
// time) and the e-nodes it added, [firstNode, endNode).
struct RewriteStep {
  std::string rule;
  int round = 0;
  ClassId root;   // the class the pattern matched
  ClassId added;  // the class the replacement built
  uint32_t firstNode = 0, endNode = 0;
};

struct RewriteReport {
  RewriteStop stop = RewriteStop::Saturated;
  std::string stopDetail;  // "10000 e-nodes (limit 10000)"
  int rounds = 0;
  std::size_t nodesBefore = 0, nodesAfter = 0;
  std::size_t classesBefore = 0, classesAfter = 0;  // canonical classes
  double ms = 0;
  std::vector<RuleRound> rules;
  std::vector<RewriteStep> steps;
};

// Saturates `g` with `rules` under `limits`. Throws Error(Invariant) naming the rule when a
// replacement cannot be built or merges classes of different shape or dtype; a cancelled run
// stops with RewriteStop::Cancelled, the graph rebuilt and usable.
RewriteReport saturate(Graph& g, const std::vector<Rule>& rules, const RewriteLimits& limits, const Progress& progress = {});

}  // namespace ks
