// Extraction: picks one producer (Kernel or ToDevice node, or the leaf itself) for every class
// needed by the outputs, minimising the DAG cost — the measured time of every chosen node counted
// once, however many consumers share it. Records the alternatives of every class and their costs
// so a person can see why the plan was chosen.
#pragma once
#include <functional>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/graph/graph.h"

namespace ks {

struct AlternativeCost {
  NodeId node;
  double ownNs = 0;   // the node's own measured time (a copy between equal pools costs 0)
  double treeNs = 0;  // own + operands' tree costs (what a tree-sum extraction compares)
  bool valid = true;  // false when an operand has no producer on the selected devices
};

struct ClassDecision {
  ClassId cls;
  NodeId chosen;                      // invalid id for leaves
  std::vector<AlternativeCost> alternatives;
  std::string why;                    // "cheapest", "shares a producer: DAG cost 12 us lower", ...
};

struct Extraction {
  std::vector<NodeId> order;                 // chosen producer nodes, dependencies first, each once
  std::unordered_map<ClassId, NodeId> chosen;  // needed class -> producer
  double totalNs = std::numeric_limits<double>::infinity();  // DAG cost
  double greedyTreeNs = 0;                   // DAG cost of the greedy tree-cost choice
  int improvements = 0;                      // local-search moves that lowered the DAG cost
  std::vector<ClassDecision> decisions;      // every needed class with alternatives, in topological order
};

struct ExtractionDevices {
  std::vector<uint32_t> poolOf;  // device index -> memory pool (0 = host memory)
  std::vector<bool> allowed;     // device index -> selected for this plan
  // pool -> its memory is host memory; a copy between two such pools is zero-copy (empty: none)
  std::vector<bool> hostVisible;
  bool zeroCopy(uint32_t from, uint32_t to) const {
    return from < hostVisible.size() && to < hostVisible.size() && hostVisible[from] && hostVisible[to];
  }
};

// Pool where the chosen producer leaves a class's value (leaves: host memory, pool 0).
uint32_t producerPool(const Graph& g, NodeId producer, const ExtractionDevices& d);

// Throws ks::Error when an output has no producer path on the allowed devices. Nodes in `excluded`
// are never chosen (what the plan would cost without them: explain-plan).
Extraction extract(const Graph& g, const std::vector<ClassId>& outputs, const ExtractionDevices& devices,
                   const std::vector<NodeId>& excluded = {});

}  // namespace ks
