// Groups of an imported ONNX model's e-graph by the name scopes of its nodes (PyTorch names a node
// "/layer3/layer3.1/conv2/Conv": its classes go to group "/layer3/layer3.1/conv2"), so a collapsed
// overview reads as the model's modules instead of class-id ranges.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/program/provenance.h"
#include "engine/viz/picture.h"

namespace ks::viz {

// The scope of every class (indexed by class id) at most `depth` parts deep ("/layer3" at depth 1,
// "" for the top level), from the ONNX node of its first place. A class with no node (a device
// copy, a merged id, a .ks class) takes the scope of the next class in `order` that has one, else
// of the last before it. Empty when no class names an ONNX node.
std::vector<std::string> classScopes(const std::vector<std::vector<SourcePlace>>& places, const std::vector<uint32_t>& order,
                                     int depth);

// Sets p.groups and each cluster's group: one group per scope, in `order` of first appearance, as
// deep as keeps them at most `maxGroups`. Returns false and leaves `p` as it was when the classes
// name no ONNX node or give fewer than two scopes (then id ranges group them).
bool groupByNodeScope(const Graph& g, const std::vector<std::vector<SourcePlace>>& places, const std::vector<uint32_t>& order,
                      Picture& p, int maxGroups);

}  // namespace ks::viz
