// The ONNX node table's derived views (see onnx_node_info.h).
#include "engine/program/onnx_node_info.h"

#include <algorithm>
#include <unordered_map>

#include "engine/program/provenance.h"

namespace ks {

std::vector<std::vector<ClassId>> onnxNodeClasses(const std::vector<OnnxNodeInfo>& nodes, const Provenance& places,
                                                  const Graph& g) {
  std::vector<std::vector<ClassId>> r(nodes.size());
  // By name, since provenance keeps the node's name and not its index; one pass over the places.
  std::unordered_map<std::string, std::size_t> byName;
  for (std::size_t i = 0; i < nodes.size(); ++i) byName.emplace(nodes[i].name, i);
  const auto& byClass = places.byClass();
  for (std::size_t id = 0; id < byClass.size() && id < g.classCount(); ++id)
    for (const SourcePlace& p : byClass[id]) {
      auto it = p.node.empty() ? byName.end() : byName.find(p.node);
      if (it != byName.end()) r[it->second].push_back(g.find(ClassId(static_cast<uint32_t>(id))));
    }
  for (auto& cs : r) {
    std::sort(cs.begin(), cs.end(), [](ClassId a, ClassId b) { return a.v < b.v; });
    cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
  }
  return r;
}

std::string onnxNameScope(const std::string& nodeName) {
  const std::size_t slash = nodeName.rfind('/');
  return slash == std::string::npos || slash == 0 ? std::string() : nodeName.substr(0, slash);
}

}  // namespace ks
