// The e-graph: hashconsed e-nodes grouped into e-classes of equal value, with the shape and
// dtype of every class. It knows nothing about devices or kernels beyond their node kinds.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
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
  std::vector<NodeId> nodes;  // nodes[0] is the structural node that created the class
  Shape shape;
  DType dtype = DType::F32;
};

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

  std::size_t classCount() const { return classes_.size(); }
  std::size_t nodeCount() const { return nodes_.size(); }
  const EClass& eclass(ClassId c) const { return classes_.at(c.v); }
  const Node& node(NodeId n) const { return nodes_.at(n.v).node; }
  ClassId classOf(NodeId n) const { return nodes_.at(n.v).cls; }
  const Node& structural(ClassId c) const { return node(eclass(c).nodes.front()); }
  const Shape& shape(ClassId c) const { return eclass(c).shape; }
  DType dtype(ClassId c) const { return eclass(c).dtype; }
  bool isLeaf(ClassId c) const { return structural(c).kind == NodeKind::Leaf; }
  bool isConst(ClassId c) const { return structural(c).kind == NodeKind::Const; }

  const std::vector<LeafInfo>& leaves() const { return leaves_; }
  const LeafInfo& leaf(uint32_t index) const { return leaves_.at(index); }
  ClassId leafClass(uint32_t index) const { return leafClasses_.at(index); }

  // Classes reachable from `outputs` in dependency order (operands first). Follows the operands
  // of every node of a class when followAlternatives, otherwise of the structural node only.
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

  std::vector<NodeData> nodes_;
  std::vector<EClass> classes_;
  std::unordered_map<Node, NodeId, NodeHash> hashcons_;
  std::vector<LeafInfo> leaves_;
  std::vector<ClassId> leafClasses_;
};

}  // namespace ks
