// The e-graph: hashconsed e-nodes grouped into e-classes of equal value, with the shape and
// dtype of every class, and a union-find over class ids so that classes can merge. It knows
// nothing about devices or kernels beyond their node kinds.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine/core/host_tensor.h"
#include "engine/core/shape.h"
#include "engine/graph/node.h"

namespace ks {

enum class LeafKind : uint8_t { Input, Param, Constant };

// What a Leaf node stands for. Constants carry their data, which is part of the cache key;
// parameters and inputs are bound at run time.
struct LeafInfo {
  std::string name;
  LeafKind kind = LeafKind::Input;
  DType dtype = DType::F32;
  Shape shape;
  std::shared_ptr<const HostTensor> data;  // Constant only
};

struct EClass {
  // nodes[0] is the structural node (see the invariants below). Empty for a class merged into
  // another.
  std::vector<NodeId> nodes;
  Shape shape;
  DType dtype = DType::F32;
};

// Invariants (kept by merge and rebuild, checked by checkInvariants):
// - find(c) is the canonical id of c's class; the root of a merge is the smaller id. Every id a
//   builder returned stays valid: eclass/shape/dtype/structural canonicalise through find.
// - The structural node (nodes[0]) of a canonical class is the node the pipeline compiles: the
//   node that created the class, or the one chooseStructural picked from a rewritten class.
//   Walks through structural nodes never cycle: operands of a creating node had smaller ids and
//   find never raises an id, and a chosen term is acyclic (checked when chosen). Walks through
//   all nodes of a class can cycle (`x*1` merged into x's class has x as operand) and are guarded.
// - Merged classes have equal shape and dtype (merge throws otherwise, naming the reason).
// - After rebuild: every node's operands are canonical, the hashcons holds each distinct node
//   once, and classes holding equal nodes are one class (congruence closure).
class Graph {
 public:
  // Adds a structural node: validates operands, infers shape and dtype, hashconses (an equal
  // node returns its existing class). Throws ks::Error naming the op and the shapes/dtypes.
  ClassId add(Node n);
  ClassId addLeaf(LeafInfo leaf);
  ClassId addConst(Scalar v);
  // Adds an equivalent node (Kernel alternative) to an existing class.
  NodeId addAlternative(ClassId c, Node n);
  // Lists an existing node in one more class too: a fused kernel that stores several classes is
  // a producer of each of them.
  void attachNode(ClassId c, NodeId n);
  // A ToDevice class of x on a device (hashconsed).
  ClassId addToDevice(ClassId x, uint32_t device, double timeNs);
  void setTime(NodeId n, double timeNs) { nodes_[n.v].node.timeNs = timeNs; }

  // Canonical id of c's class (c itself unless c was merged).
  ClassId find(ClassId c) const;
  bool isCanonical(ClassId c) const { return parent_.at(c.v) == c; }
  std::vector<ClassId> canonicalClasses() const;  // ascending
  // Makes a and b one class. Throws Error(Invariant) naming `why` (the rule) when their shapes or
  // dtypes differ: such a merge is a bug of the rule. Returns false if they were one class
  // already. Nodes equal only through the merge join by rebuild().
  bool merge(ClassId a, ClassId b, const std::string& why);
  // Congruence closure: canonicalises every node's operands, rebuilds the hashcons and merges
  // classes whose nodes became equal, until nothing changes. Returns the number of merges.
  std::size_t rebuild();
  bool needsRebuild() const { return dirty_; }
  // Makes each listed node n of class c its structural node (a term chosen among rewritten
  // forms). Throws Error(Invariant) when n is not a structural node of c or the structural nodes
  // would then form a cycle; the graph is then left as it was.
  void chooseStructural(const std::vector<std::pair<ClassId, NodeId>>& choices);
  // Throws Error(Invariant) describing the first broken invariant (see the class comment).
  void checkInvariants() const;

  // Class ids ever handed out (canonical or merged): ids are dense, so loops over 0..classCount()
  // visit merged ids too; skip those with !isCanonical.
  std::size_t classCount() const { return classes_.size(); }
  std::size_t canonicalClassCount() const { return classes_.size() - merged_; }
  std::size_t nodeCount() const { return nodes_.size(); }
  const EClass& eclass(ClassId c) const { return classes_.at(find(c).v); }
  const Node& node(NodeId n) const { return nodes_.at(n.v).node; }
  ClassId classOf(NodeId n) const { return find(nodes_.at(n.v).cls); }
  const Node& structural(ClassId c) const { return node(eclass(c).nodes.front()); }
  const Shape& shape(ClassId c) const { return eclass(c).shape; }
  DType dtype(ClassId c) const { return eclass(c).dtype; }
  bool isLeaf(ClassId c) const { return structural(c).kind == NodeKind::Leaf; }
  // A class holding a Const node: a scalar that Binary/Where broadcast implicitly.
  bool isConst(ClassId c) const;

  const std::vector<LeafInfo>& leaves() const { return leaves_; }
  const LeafInfo& leaf(uint32_t index) const { return leaves_.at(index); }
  ClassId leafClass(uint32_t index) const { return leafClasses_.at(index); }

  // Canonical classes reachable from `outputs` in dependency order (operands first). Follows the
  // operands of every node of a class when followAlternatives, otherwise of the structural node
  // only. With followAlternatives a cycle is cut where the walk meets a class it is inside of
  // (the order is then a DFS postorder, every reachable class once).
  // Stops at (includes but does not expand) classes in stopAt; never leaves `allowed` if given.
  std::vector<ClassId> topoOrder(const std::vector<ClassId>& outputs, bool followAlternatives = false,
                                 const std::unordered_set<ClassId>* stopAt = nullptr,
                                 const std::unordered_set<ClassId>* allowed = nullptr) const;

  // Structural key of the graph: node kinds, attributes, constant values and data, shapes,
  // dtypes and the requested outputs. Same program -> same key. Ignores measured times.
  uint64_t cacheKey(const std::vector<ClassId>& outputs) const;

  // "%3 = add(%1, %2) : f32[2, 3]" per class, alternatives indented under it.
  std::string dump() const;
  // The whole graph (nodes, classes, leaves with constant data) as JSON, and back. fromJson
  // throws ks::Error(Parse) naming what is wrong.
  std::string toJson() const;
  static Graph fromJson(const std::string& text);

 private:
  struct NodeData {
    Node node;
    ClassId cls;
  };
  void infer(const Node& n, Shape& shape, DType& dtype) const;
  ClassId newClass(Node n, Shape shape, DType dtype);
  void canonicalize(Node& n) const;
  std::string structuralCycle() const;  // "" or the classes of a cycle through structural nodes
  ClassId findCompress(ClassId c);

  std::vector<NodeData> nodes_;
  std::vector<EClass> classes_;
  std::vector<ClassId> parent_;  // union-find; parent_[c] <= c
  std::size_t merged_ = 0;       // classes that are not canonical
  bool dirty_ = false;           // merged since the last rebuild
  std::unordered_map<Node, NodeId, NodeHash> hashcons_;
  std::vector<LeafInfo> leaves_;
  std::vector<ClassId> leafClasses_;
};

}  // namespace ks
