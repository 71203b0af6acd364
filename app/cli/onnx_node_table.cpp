// The ONNX node table of `print --onnx-nodes` (see onnx_node_table.h).
#include "app/cli/onnx_node_table.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ks::cli {
namespace {

std::string joined(const std::vector<std::string>& parts, const char* sep) {
  if (parts.empty()) return "-";  // a Constant has no inputs: a dash keeps the columns readable
  std::string r;
  for (std::size_t i = 0; i < parts.size(); ++i) r += (i ? sep : "") + (parts[i].empty() ? std::string("-") : parts[i]);
  return r;
}

std::string typesText(const OnnxNodeInfo& n) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < n.outputs.size(); ++k)
    parts.push_back(n.outputs[k].empty() ? "" : std::string(dtypeName(n.outputDTypes[k])) + shapeStr(n.outputShapes[k]));
  return joined(parts, " ");
}

std::string classesText(const std::vector<ClassId>& cs) {
  std::string r;
  for (ClassId c : cs) r += (r.empty() ? "%" : " %") + std::to_string(c.v);
  return r.empty() ? "-" : r;
}

}  // namespace

std::string onnxNodeTableText(const Program& p) {
  const auto classes = onnxNodeClasses(p.onnxNodes, p.places, p.graph);
  std::vector<std::vector<std::string>> rows{{"name", "op type", "inputs", "outputs", "shape", "classes"}};
  for (std::size_t i = 0; i < p.onnxNodes.size(); ++i) {
    const OnnxNodeInfo& n = p.onnxNodes[i];
    rows.push_back({n.name, n.opType, joined(n.inputs, ","), joined(n.outputs, ","), typesText(n), classesText(classes[i])});
  }
  // Aligned columns; the last one (classes) is left ragged since it is the longest and last.
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c + 1 < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) line += c + 1 < r.size() ? r[c] + std::string(width[c] - r[c].size() + 2, ' ') : r[c];
    out += line + "\n";
  }
  return out;
}

std::string onnxNodeTableJson(const Program& p) {
  const auto classes = onnxNodeClasses(p.onnxNodes, p.places, p.graph);
  nlohmann::json j = nlohmann::json::array();
  for (std::size_t i = 0; i < p.onnxNodes.size(); ++i) {
    const OnnxNodeInfo& n = p.onnxNodes[i];
    nlohmann::json shapes = nlohmann::json::array();
    for (std::size_t k = 0; k < n.outputs.size(); ++k)
      shapes.push_back(n.outputs[k].empty() ? nlohmann::json(nullptr)
                                            : nlohmann::json{{"dtype", std::string(dtypeName(n.outputDTypes[k]))}, {"shape", n.outputShapes[k]}});
    std::vector<uint32_t> ids;
    for (ClassId c : classes[i]) ids.push_back(c.v);
    j.push_back({{"name", n.name}, {"op_type", n.opType}, {"inputs", n.inputs}, {"outputs", n.outputs},
                 {"shapes", std::move(shapes)}, {"classes", ids}});
  }
  return j.dump(1) + "\n";
}

}  // namespace ks::cli
