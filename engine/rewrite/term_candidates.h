// Candidate terms of a saturated e-graph: the cheapest term under a static cost and a few diverse
// runners-up, each to be kernelized and measured so that extraction, not the static cost, picks.
#pragma once
#include <cstddef>
#include <vector>

#include "engine/rewrite/term.h"

namespace ks {

// One candidate: the choice (a node for each class it reaches) and its static DAG cost.
struct TermCandidate {
  TermChoice choice;
  double staticNs = 0;         // each chosen node reachable from the outputs once
  std::size_t differ = 0;      // reachable classes whose node differs from the first candidate's
};

// Up to `max` terms, the cheapest first. Each runner-up comes from a term choice in which a node
// the earlier tries chose k times costs penalty^k times more, so it takes a different form where
// one is not much dearer; a term equal to an earlier one (same nodes reachable from the outputs)
// is dropped (2 * max tries in all), so fewer than `max` may come back.
std::vector<TermCandidate> candidateTerms(const Graph& g, const NodeCost& cost, const std::vector<ClassId>& outputs,
                                          std::size_t max, double penalty = 4.0);

// The nodes of choice `t` reachable from `outputs`, by class id (invalid for classes not reached).
std::vector<NodeId> reachableChoice(const Graph& g, const TermChoice& t, const std::vector<ClassId>& outputs);

}  // namespace ks
