// The magnitude of a float expression: the same expression evaluated on absolute values (each
// leaf and constant by its absolute value, a subtraction as an addition, a negation dropped,
// every other float result by its absolute value), so that a sum that cancels near zero still
// has the size of its terms. The bound a reassociated term is checked by.
#pragma once
#include <vector>

#include "engine/graph/graph.h"

namespace ks {

struct MagnitudeGraph {
  Graph graph;                   // the program's graph (same ids, leaves in order) plus the magnitude classes
  std::vector<ClassId> results;  // the magnitude class of each result (the result itself when not float)
};

// For `results` of `g`, a graph without merged classes or Kernel nodes (the program as built).
// Conditions, comparisons and integer values keep their real values.
MagnitudeGraph magnitudeGraph(const Graph& g, const std::vector<ClassId>& results);

}  // namespace ks
