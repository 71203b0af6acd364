// How much work Graphviz's dot layout would do on a graph, before it is asked to.
//
// dot replaces every edge spanning k ranks by a chain of k-1 virtual nodes and then runs network
// simplex over all of them to place x coordinates; that phase grows much faster than the node
// count. A collapsed overview whose groups link far-apart parts of a program (131 groups, 514
// edges, 164 ranks) made dot run for minutes. Callers check the span first and lay such graphs out
// with neato (a force-directed layout that has no ranks) instead.
#pragma once

#include <utility>
#include <vector>

namespace ks::viz {

// Virtual nodes dot would add: the sum over edges of (rank span - 1), with ranks by longest path
// after reversing the edges that close a cycle (as dot does). Self-loops and bad ids are ignored.
long dotVirtualNodes(int nodeCount, const std::vector<std::pair<int, int>>& edges);

// Past this many virtual nodes dot takes seconds to minutes; below it, well under a second here.
inline constexpr long kMaxDotVirtualNodes = 6000;

// The Graphviz layout engine for a graph: "dot" (ranked, the readable one) or "neato".
const char* layoutEngineFor(int nodeCount, const std::vector<std::pair<int, int>>& edges);

}  // namespace ks::viz
