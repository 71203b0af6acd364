// JSON of a Picture: the whole picture (nodes, edges, clusters, groups with their ids) and what a
// view of it shows with the given groups open. `export --format json` writes this.
#pragma once
#include <set>
#include <string>

#include "engine/viz/picture.h"

namespace ks::viz {

// Edges and cluster/group references name node, cluster and group ids (not indices).
std::string toJson(const Picture& full, const std::set<int>& openGroups = {}, int indent = 1);

// Group indices from a comma list of group ids ("g0,g3") or "all". Throws ks::Error(Usage)
// naming an id the picture does not have.
std::set<int> groupsNamed(const Picture& p, const std::string& list);

}  // namespace ks::viz
