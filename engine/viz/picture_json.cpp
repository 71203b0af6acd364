// toJson: the picture and its visible part as one JSON object.
#include "engine/viz/picture_json.h"

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/viz/collapse.h"

namespace ks::viz {

namespace {
using nlohmann::json;

json subjectJson(const Subject& s) { return {{"kind", subjectKindName(s.kind)}, {"id", s.id}}; }

json refOr(const std::string& id, bool present) { return present ? json(id) : json(nullptr); }

json nodesJson(const Picture& p) {
  json nodes = json::array();
  for (const Node& n : p.nodes) {
    const bool inCluster = n.cluster >= 0 && n.cluster < static_cast<int>(p.clusters.size());
    nodes.push_back({{"id", n.id},
                     {"label", n.label},
                     {"tooltip", n.tooltip},
                     {"style", styleName(n.style)},
                     {"cluster", refOr(inCluster ? p.clusters[n.cluster].id : std::string(), inCluster)},
                     {"subject", subjectJson(n.subject)},
                     {"highlighted", n.highlighted}});
  }
  return nodes;
}

json edgesJson(const Picture& p) {
  json edges = json::array();
  for (const Edge& e : p.edges)
    edges.push_back({{"from", p.nodes[e.from].id},
                     {"to", p.nodes[e.to].id},
                     {"count", e.count},
                     {"label", e.label},
                     {"weak", e.weak},
                     {"memory", e.memory}});
  return edges;
}
}  // namespace

std::string toJson(const Picture& full, const std::set<int>& openGroups, int indent) {
  const CollapsedView view = collapse(full, openGroups);
  json clusters = json::array();
  for (const Cluster& c : full.clusters) {
    const bool inGroup = c.group >= 0 && c.group < static_cast<int>(full.groups.size());
    clusters.push_back({{"id", c.id},
                        {"label", c.label},
                        {"tooltip", c.tooltip},
                        {"group", refOr(inGroup ? full.groups[c.group].id : std::string(), inGroup)},
                        {"subject", subjectJson(c.subject)},
                        {"highlighted", c.highlighted}});
  }
  json groups = json::array();
  for (std::size_t g = 0; g < full.groups.size(); ++g)
    groups.push_back({{"id", full.groups[g].id},
                      {"label", full.groups[g].label},
                      {"tooltip", full.groups[g].tooltip},
                      {"open", view.open.count(static_cast<int>(g)) > 0}});
  json visible = {{"nodes", nodesJson(view.visible)}, {"edges", edgesJson(view.visible)}, {"hidden", view.hidden}};
  json out = {{"format", "kernelscope-picture"},
              {"version", 1},
              {"picture", full.name},
              {"title", full.title},
              {"collapsed", view.collapsed},
              {"nodes", nodesJson(full)},
              {"edges", edgesJson(full)},
              {"clusters", clusters},
              {"groups", groups},
              {"visible", visible}};
  return out.dump(indent);
}

std::set<int> groupsNamed(const Picture& p, const std::string& list) {
  std::set<int> out;
  std::size_t at = 0;
  while (at <= list.size() && !list.empty()) {
    const std::size_t comma = list.find(',', at);
    const std::string id = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (id == "all") {
      for (int g = 0; g < static_cast<int>(p.groups.size()); ++g) out.insert(g);
    } else if (!id.empty()) {
      int found = -1;
      for (int g = 0; g < static_cast<int>(p.groups.size()) && found < 0; ++g)
        if (p.groups[g].id == id) found = g;
      if (found < 0) throw Error(ErrorCode::Usage, "the " + p.name + " picture has no group '" + id + "'");
      out.insert(found);
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

}  // namespace ks::viz
