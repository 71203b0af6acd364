// The e-graph as a Picture: one cluster per e-class holding its e-nodes, edges from operand
// classes to the e-nodes that use them, the extraction's choice and costs when there is one, and
// groups so that large graphs open collapsed. Every label, tooltip and style comes from the
// graph and the extraction, through the small describe functions below.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/plan/extractor.h"
#include "engine/program/provenance.h"
#include "engine/rewrite/runner.h"
#include "engine/viz/picture.h"

namespace ks::viz {

struct EGraphPictureOptions {
  const Extraction* extraction = nullptr;  // null or empty before extraction
  std::vector<ClassId> outputs;            // drawn as outputs
  int maxGroups = 150;                     // groups of a graph too large to open whole
  const Provenance* places = nullptr;      // where classes came from: named in their tooltips
  // The rewrite stage's merges: an e-node a rule added names the rule and the round (null: none).
  const std::vector<RewriteStep>* rewrites = nullptr;
};

// Node ids "n<e-node id>" (subject ENode), cluster ids "c<class id>" (subject EClass), group ids "g<i>".
Picture egraphPicture(const Graph& g, const EGraphPictureOptions& options);

// What the extraction decided, indexed for drawing.
struct ExtractionIndex {
  std::unordered_map<uint32_t, uint32_t> chosen;  // class -> chosen e-node
  std::unordered_map<uint32_t, double> costNs;    // e-node -> tree cost (alternatives too)
  std::unordered_map<uint32_t, std::string> why;  // class -> the reason, when given
  explicit ExtractionIndex(const Extraction* e = nullptr);
  bool empty() const { return chosen.empty(); }
};

// "input x", "reduce sum [1]": the op of an e-node as its label's first line.
std::string enodeOp(const Graph& g, NodeId n);
// "f32[2, 3]": a class's dtype and shape.
std::string classType(const Graph& g, ClassId c);
// The e-node's label: its op, its class's type and, once extracted, its cost.
std::string enodeLabel(const Graph& g, NodeId n, const ExtractionIndex& ex);

}  // namespace ks::viz
