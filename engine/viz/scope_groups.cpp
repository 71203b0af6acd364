// Groups by ONNX name scope (see scope_groups.h).
#include "engine/viz/scope_groups.h"

#include <algorithm>
#include <map>
#include <optional>

#include "engine/program/onnx_node_info.h"

namespace ks::viz {
namespace {

// "/layer3/layer3.1/conv2" cut to its first `depth` parts; node names are paths from the root.
std::string truncatedScope(const std::string& scope, int depth) {
  std::size_t at = 0;
  for (int d = 0; d < depth; ++d) {
    at = scope.find('/', at + 1);
    if (at == std::string::npos) return scope;
  }
  return depth <= 0 ? std::string() : scope.substr(0, at);
}

int scopeDepth(const std::string& scope) { return static_cast<int>(std::count(scope.begin(), scope.end(), '/')); }

std::optional<std::string> ownScope(const std::vector<SourcePlace>& places) {
  for (const SourcePlace& q : places)
    if (!q.node.empty()) return onnxNameScope(q.node);
  return std::nullopt;
}

}  // namespace

std::vector<std::string> classScopes(const std::vector<std::vector<SourcePlace>>& places, const std::vector<uint32_t>& order,
                                     int depth) {
  std::vector<std::optional<std::string>> own(places.size());
  bool any = false;
  for (std::size_t c = 0; c < places.size(); ++c) {
    own[c] = ownScope(places[c]);
    if (own[c]) own[c] = truncatedScope(*own[c], depth), any = true;
  }
  if (!any) return {};
  // Backwards first: a leaf or copy sorted right before its consumer belongs to that consumer.
  std::vector<std::string> r(places.size());
  std::optional<std::string> next;
  std::vector<bool> filled(places.size(), false);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (*it >= places.size()) continue;
    if (own[*it]) next = own[*it];
    if (next) r[*it] = *next, filled[*it] = true;
  }
  std::optional<std::string> last;  // the classes after the last named one: with the one before
  for (uint32_t c : order)
    if (c < places.size()) {
      if (own[c]) last = own[c];
      if (!filled[c] && last) r[c] = *last;
    }
  return r;
}

bool groupByNodeScope(const Graph& g, const std::vector<std::vector<SourcePlace>>& places, const std::vector<uint32_t>& order,
                      Picture& p, int maxGroups) {
  if (places.size() != p.clusters.size()) return false;
  std::vector<std::string> scopes = classScopes(places, order, 1 << 20);
  if (scopes.empty()) return false;
  int depth = 0;
  for (const std::string& s : scopes) depth = std::max(depth, scopeDepth(s));
  // The deepest scopes that still fit: ResNet-18 has ~70 module scopes, a larger model folds
  // its modules into their parents ("/layer3/layer3.1") until at most maxGroups remain.
  std::map<std::string, int> index;
  for (;; --depth) {
    scopes = classScopes(places, order, depth);
    index.clear();
    for (const std::string& s : scopes) index.emplace(s, 0);
    if (static_cast<int>(index.size()) <= maxGroups || depth == 0) break;
  }
  if (index.size() < 2 || static_cast<int>(index.size()) > maxGroups) return false;
  index.clear();
  std::vector<std::map<std::string, int>> ops;
  for (uint32_t c : order) {
    auto [it, added] = index.emplace(scopes[c], static_cast<int>(index.size()));
    if (added) {
      Group grp;
      grp.id = "g" + std::to_string(it->second);
      grp.label = scopes[c].empty() ? "/" : scopes[c];
      p.groups.push_back(grp);
      ops.emplace_back();
    }
    p.clusters[c].group = it->second;
    ops[it->second][std::string(nodeKindName(g.structural(ClassId(c)).kind))]++;
  }
  for (std::size_t i = 0; i < p.groups.size(); ++i) {
    std::string parts;
    for (const auto& [k, v] : ops[i]) parts += (parts.empty() ? "" : ", ") + std::to_string(v) + " " + k;
    p.groups[i].tooltip = "scope " + p.groups[i].label + "\n" + parts;
  }
  return true;
}

}  // namespace ks::viz
