// The saturation loop: search every rule on the graph as it stood at the start of the round,
// apply the matches, rebuild, and stop on saturation or a limit.
#include "engine/rewrite/runner.h"

#include <chrono>

#include "engine/core/error.h"

namespace ks {

const char* rewriteStopName(RewriteStop s) {
  switch (s) {
    case RewriteStop::Saturated: return "saturated";
    case RewriteStop::IterationLimit: return "iteration limit";
    case RewriteStop::NodeLimit: return "node limit";
    case RewriteStop::TimeLimit: return "time limit";
    case RewriteStop::Cancelled: return "cancelled";
  }
  return "?";
}

namespace {
using Clock = std::chrono::steady_clock;

struct Backoff {
  int bannedUntil = 0;  // first round the rule runs again
  int times = 0;
};

std::vector<Match> search(const Graph& g, const Rule& r) {
  std::vector<Match> found;
  for (ClassId c : g.canonicalClasses())
    for (NodeId n : g.eclass(c).nodes) r.search(g, c, g.node(n), found);
  return found;
}

// Applies one match; returns whether the merge changed anything.
bool apply(Graph& g, const Rule& r, const Match& m, int round, std::vector<RewriteStep>& steps) {
  const uint32_t first = static_cast<uint32_t>(g.nodeCount());
  ClassId added;
  try {
    added = r.apply(g, m);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Invariant) throw;
    throw Error(ErrorCode::Invariant, "rewrite rule '" + r.name + "' built an invalid term: " + std::string(e.what()));
  }
  const ClassId root = g.find(m.root), other = g.find(added);
  if (!g.merge(root, other, r.name)) return false;
  steps.push_back({r.name, round, root, other, first, static_cast<uint32_t>(g.nodeCount())});
  return true;
}
}  // namespace

RewriteReport saturate(Graph& g, const std::vector<Rule>& rules, const RewriteLimits& limits, const Progress& progress) {
  RewriteReport rep;
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  if (g.needsRebuild()) g.rebuild();
  rep.nodesBefore = g.nodeCount();
  rep.classesBefore = g.canonicalClassCount();
  std::vector<Backoff> backoff(rules.size());
  auto stop = [&](RewriteStop s, std::string detail) {
    rep.stop = s;
    rep.stopDetail = std::move(detail);
  };
  stop(RewriteStop::IterationLimit, std::to_string(limits.iterations) + " rounds");
  for (int round = 1; round <= limits.iterations; ++round) {
    if (progress.cancelled()) {
      stop(RewriteStop::Cancelled, "after " + std::to_string(rep.rounds) + " rounds");
      break;
    }
    progress.report(static_cast<double>(round - 1) / limits.iterations, "rewrite round " + std::to_string(round));
    // Search all rules first: every rule sees the graph as the round found it (egg's order).
    std::vector<std::vector<Match>> found(rules.size());
    std::vector<RuleRound> rows(rules.size());
    bool anyBanned = false;
    for (std::size_t i = 0; i < rules.size(); ++i) {
      rows[i].rule = rules[i].name;
      rows[i].round = round;
      if (backoff[i].bannedUntil > round) {
        rows[i].banned = anyBanned = true;
        continue;
      }
      const auto r0 = Clock::now();
      found[i] = search(g, rules[i]);
      rows[i].matches = found[i].size();
      rows[i].ms = std::chrono::duration<double, std::milli>(Clock::now() - r0).count();
      const std::size_t limit = limits.matchLimit << backoff[i].times;
      if (found[i].size() > limit) {
        rows[i].banned = anyBanned = true;
        backoff[i].bannedUntil = round + (limits.banRounds << backoff[i].times);
        ++backoff[i].times;
        found[i].clear();
      }
    }
    bool changed = false, full = false;
    for (std::size_t i = 0; i < rules.size() && !full; ++i) {
      const auto r0 = Clock::now();
      const std::size_t nodes0 = g.nodeCount(), classes0 = g.classCount();
      for (const Match& m : found[i]) {
        if (apply(g, rules[i], m, round, rep.steps)) ++rows[i].merges;
        if (g.nodeCount() >= limits.nodes) {
          full = true;
          break;
        }
      }
      rows[i].nodesAdded = g.nodeCount() - nodes0;
      rows[i].classesAdded = g.classCount() - classes0;
      rows[i].ms += std::chrono::duration<double, std::milli>(Clock::now() - r0).count();
      changed = changed || rows[i].merges || rows[i].nodesAdded;
    }
    g.rebuild();
    rep.rounds = round;
    rep.rules.insert(rep.rules.end(), rows.begin(), rows.end());
    if (full) {
      stop(RewriteStop::NodeLimit, std::to_string(g.nodeCount()) + " e-nodes (limit " + std::to_string(limits.nodes) + ")");
      break;
    }
    if (!changed && !anyBanned) {
      stop(RewriteStop::Saturated, "after " + std::to_string(round) + " rounds");
      break;
    }
    if (elapsed() > limits.seconds) {
      stop(RewriteStop::TimeLimit, std::to_string(elapsed()) + " s (limit " + std::to_string(limits.seconds) + " s)");
      break;
    }
  }
  rep.nodesAfter = g.nodeCount();
  rep.classesAfter = g.canonicalClassCount();
  rep.ms = elapsed() * 1000;
  return rep;
}

}  // namespace ks
