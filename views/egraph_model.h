// Turns an e-graph (and, once extraction ran, its choices) into a GraphModel: one cluster per
// e-class holding its e-nodes, edges from operand classes to the nodes that use them, and groups
// of consecutive classes so large graphs open collapsed.
#pragma once
#include <unordered_map>
#include <vector>

#include "engine/graph/graph.h"
#include "views/graph_model.h"

namespace ks {

// What extraction decided, as the e-graph view needs it. Filled from the Session when it lands;
// empty before extraction.
struct ExtractionChoice {
  std::unordered_map<uint32_t, uint32_t> chosenNode;  // class id -> chosen node id
  std::unordered_map<uint32_t, double> nodeCostNs;    // node id -> its cost (alternatives too)
  std::unordered_map<uint32_t, std::string> reason;   // class id -> why this one (optional)
  bool empty() const { return chosenNode.empty(); }
};

struct EGraphModelOptions {
  // At most this many groups; a graph with more classes than kCollapseThreshold nodes is grouped.
  int maxGroups = 150;
  const ExtractionChoice* extraction = nullptr;
  std::vector<ClassId> outputs;  // drawn as outputs
};

// Node keys are e-node ids; cluster keys are class ids. Node sizes are set.
GraphModel buildEGraphModel(const Graph& g, const EGraphModelOptions& options);

// The e-node's label in the view: op on the first line, shape and dtype (and cost) below.
QString enodeLabel(const Graph& g, NodeId n, const ExtractionChoice* extraction);

}  // namespace ks
