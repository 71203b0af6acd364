// Terms of a saturated e-graph: the cheapest e-node of every class under a cost function
// (greedy, bottom-up, egg's Extractor), and a term materialised as a graph of its own.
#pragma once
#include <functional>
#include <vector>

#include "engine/graph/graph.h"

namespace ks {

// Cost of one e-node by itself (> 0); a term's cost is the sum over its nodes, shared operands
// counted per use (a tree cost, as egg's greedy extractor has it).
using NodeCost = std::function<double(const Graph&, NodeId)>;
double nodeCountCost(const Graph&, NodeId);  // 1 per node: the smallest term

// For every canonical class, the structural node (Kernel nodes are left to the plan's
// extraction) of least term cost. Positive costs make the choice acyclic: each chosen node's
// operands have strictly smaller cost than its class.
struct TermChoice {
  std::vector<NodeId> node;  // by class id (canonical ids only); invalid when none was found
  std::vector<double> cost;
};
TermChoice chooseTerm(const Graph& g, const NodeCost& cost);
// Makes the chosen node of every class its structural node (what the kernelizer and the host
// executor read), in place; returns how many classes changed form.
std::size_t adoptTerm(Graph& g, const TermChoice& t);

// The chosen term reachable from `outputs` as a fresh graph: every leaf of g, in order (leaf
// indices stay valid), then one class per chosen class. origin[c] is the e-graph class that
// class c of the term computes.
struct MaterializedTerm {
  Graph graph;
  std::vector<ClassId> outputs;
  std::vector<ClassId> origin;
  std::vector<ClassId> classOf;  // e-graph class id -> term class (invalid if not in the term)
};
MaterializedTerm materialize(const Graph& g, const TermChoice& t, const std::vector<ClassId>& outputs);

}  // namespace ks
