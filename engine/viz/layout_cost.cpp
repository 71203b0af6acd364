#include "engine/viz/layout_cost.h"

#include <algorithm>
#include <cstdlib>

namespace ks::viz {

namespace {

// Marks the edges a depth-first search meets as back edges (those close a cycle); iterative, so
// a long chain cannot overflow the stack.
std::vector<bool> backEdges(int n, const std::vector<std::pair<int, int>>& edges,
                            const std::vector<std::vector<int>>& out) {
  std::vector<bool> back(edges.size(), false);
  std::vector<char> state(static_cast<std::size_t>(n), 0);  // 0 new, 1 on the stack, 2 done
  std::vector<std::pair<int, std::size_t>> stack;
  for (int root = 0; root < n; ++root) {
    if (state[root]) continue;
    state[root] = 1;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == out[v].size()) {
        state[v] = 2;
        stack.pop_back();
        continue;
      }
      const int e = out[v][next++];
      const int w = edges[e].second;
      if (state[w] == 1) back[e] = true;
      else if (state[w] == 0) {
        state[w] = 1;
        stack.push_back({w, 0});
      }
    }
  }
  return back;
}

}  // namespace

long dotVirtualNodes(int n, const std::vector<std::pair<int, int>>& edges) {
  if (n <= 0) return 0;
  auto valid = [n](const std::pair<int, int>& e) {
    return e.first >= 0 && e.second >= 0 && e.first < n && e.second < n && e.first != e.second;
  };
  std::vector<std::vector<int>> out(static_cast<std::size_t>(n));
  for (std::size_t e = 0; e < edges.size(); ++e)
    if (valid(edges[e])) out[edges[e].first].push_back(static_cast<int>(e));
  const std::vector<bool> back = backEdges(n, edges, out);

  // Longest-path ranks over the acyclic orientation (Kahn's order).
  std::vector<std::vector<int>> succ(static_cast<std::size_t>(n));
  std::vector<int> indegree(static_cast<std::size_t>(n), 0);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    if (!valid(edges[e])) continue;
    auto [a, b] = edges[e];
    if (back[e]) std::swap(a, b);
    succ[a].push_back(b);
    ++indegree[b];
  }
  std::vector<int> rank(static_cast<std::size_t>(n), 0), ready;
  for (int v = 0; v < n; ++v)
    if (indegree[v] == 0) ready.push_back(v);
  while (!ready.empty()) {
    const int v = ready.back();
    ready.pop_back();
    for (int w : succ[v]) {
      rank[w] = std::max(rank[w], rank[v] + 1);
      if (--indegree[w] == 0) ready.push_back(w);
    }
  }
  long virtualNodes = 0;
  for (const auto& e : edges)
    if (valid(e)) virtualNodes += std::max(0, std::abs(rank[e.second] - rank[e.first]) - 1);
  return virtualNodes;
}

const char* layoutEngineFor(int nodeCount, const std::vector<std::pair<int, int>>& edges) {
  return dotVirtualNodes(nodeCount, edges) > kMaxDotVirtualNodes ? "neato" : "dot";
}

}  // namespace ks::viz
