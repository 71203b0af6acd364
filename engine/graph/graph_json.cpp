// JSON form of the e-graph, for session files that reopen without the program or a device.
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/core/json_read.h"
#include "engine/core/scalar_json.h"
#include "engine/graph/graph.h"

namespace ks {

namespace {
std::vector<uint32_t> ids(const std::vector<ClassId>& v) {
  std::vector<uint32_t> r;
  for (auto c : v) r.push_back(c.v);
  return r;
}
std::vector<ClassId> classIds(const std::vector<uint32_t>& v) {
  std::vector<ClassId> r;
  for (uint32_t c : v) r.push_back(ClassId(c));
  return r;
}
}  // namespace

std::string Graph::toJson() const {
  nlohmann::json j;
  // Version 2 adds "parent" to merged classes (absent: canonical); version 1 files load as is.
  j["version"] = 2;
  for (const LeafInfo& l : leaves_) {
    nlohmann::json lj = {{"name", l.name}, {"kind", static_cast<int>(l.kind)}, {"dtype", dtypeName(l.dtype)}, {"shape", l.shape}};
    if (l.data) {
      std::vector<double> vals;
      for (int64_t i = 0; i < l.data->numel(); ++i) vals.push_back(l.data->getDouble(i));
      lj["data"] = vals;
    }
    j["leaves"].push_back(lj);
  }
  j["leaf_classes"] = ids(leafClasses_);
  for (const NodeData& nd : nodes_) {
    const Node& n = nd.node;
    nlohmann::json nj = {{"kind", nodeKindName(n.kind)}, {"class", nd.cls.v}};
    if (n.op) nj["op"] = n.op;
    if (n.kind == NodeKind::Cast || n.kind == NodeKind::Bitcast || n.kind == NodeKind::Leaf) nj["dtype"] = dtypeName(n.dtype);
    if (!n.in.empty()) nj["in"] = ids(n.in);
    if (!n.attr.empty()) nj["attr"] = n.attr;
    if (n.kind == NodeKind::Const || n.kind == NodeKind::Pad) nj["value"] = scalarToJson(n.value);
    if (n.ref) nj["ref"] = n.ref;
    if (n.device) nj["device"] = n.device;
    if (!n.out.empty()) nj["out"] = ids(n.out);
    if (n.timeNs) nj["time_ns"] = n.timeNs;
    j["nodes"].push_back(nj);
  }
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    const EClass& c = classes_[i];
    std::vector<uint32_t> ns;
    for (NodeId n : c.nodes) ns.push_back(n.v);
    nlohmann::json cj = {{"nodes", ns}, {"shape", c.shape}, {"dtype", dtypeName(c.dtype)}};
    if (parent_[i].v != i) cj["parent"] = parent_[i].v;
    j["classes"].push_back(std::move(cj));
  }
  return j.dump();
}

namespace {
DType dtypeAt(const nlohmann::json& j, const char* key) {
  const std::string name = jsonGet<std::string>(j, key);
  const auto t = parseDType(name);
  if (!t) {
    JsonPath at(key);
    throw Error(ErrorCode::Parse, "unknown dtype '" + name + "'");
  }
  return *t;
}

// A shape read from a file: dimensions >= 0 whose element count an int64 holds.
void checkShape(const char* key, const Shape& s) {
  JsonPath at(key);
  int64_t count = 1;
  for (std::size_t d = 0; d < s.size(); ++d) {
    JsonPath ad(d);
    if (s[d] < 0) throw Error(ErrorCode::Parse, "expected a dimension >= 0, found " + std::to_string(s[d]));
    if (__builtin_mul_overflow(count, s[d], &count))
      throw Error(ErrorCode::Parse, "expected a shape of at most 2^63 elements, found " + shapeStr(s));
  }
}

LeafInfo leafFrom(const nlohmann::json& lj) {
  LeafInfo l;
  l.name = jsonGet<std::string>(lj, "name");
  l.kind = static_cast<LeafKind>(jsonGet<uint8_t>(lj, "kind"));
  if (static_cast<int>(l.kind) > static_cast<int>(LeafKind::Constant)) {
    JsonPath at("kind");
    throw Error(ErrorCode::Parse, "expected a leaf kind 0..2 (input, param, constant), found " + std::to_string(static_cast<int>(l.kind)));
  }
  l.dtype = dtypeAt(lj, "dtype");
  l.shape = jsonGet<Shape>(lj, "shape");
  checkShape("shape", l.shape);
  if (!lj.contains("data")) return l;
  // The count is checked before anything is allocated: a file can claim any shape.
  int64_t count = 1;
  for (Dim d : l.shape)
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) {
      JsonPath at("shape");
      throw Error(ErrorCode::Parse, "expected dimensions >= 0, found " + shapeStr(l.shape));
    }
  const std::vector<double> vals = jsonGet<std::vector<double>>(lj, "data");
  if (static_cast<int64_t>(vals.size()) != count) {
    JsonPath at("data");
    throw Error(ErrorCode::Parse, "expected " + std::to_string(count) + " values for the shape " + shapeStr(l.shape));
  }
  auto t = std::make_shared<HostTensor>(l.dtype, l.shape);
  for (std::size_t i = 0; i < vals.size(); ++i) t->setDouble(static_cast<int64_t>(i), vals[i]);
  l.data = t;
  return l;
}

Node nodeFrom(const nlohmann::json& nj) {
  Node n;
  const std::string kind = jsonGet<std::string>(nj, "kind");
  bool found = false;
  for (int k = 0; k < kNumNodeKinds; ++k)
    if (nodeKindName(static_cast<NodeKind>(k)) == kind) {
      n.kind = static_cast<NodeKind>(k);
      found = true;
    }
  if (!found) {
    JsonPath at("kind");
    throw Error(ErrorCode::Parse, "unknown node kind '" + kind + "'");
  }
  n.op = jsonGet<uint8_t>(nj, "op", 0);
  if (nj.contains("dtype")) n.dtype = dtypeAt(nj, "dtype");
  n.in = classIds(jsonGet<std::vector<uint32_t>>(nj, "in", {}));
  n.attr = jsonGet<std::vector<int64_t>>(nj, "attr", {});
  if (nj.contains("value")) {
    JsonPath at("value");
    n.value = scalarFromJson(nj["value"]);
  }
  if (n.kind == NodeKind::Const) n.dtype = n.value.dtype();
  n.ref = jsonGet<uint32_t>(nj, "ref", 0);
  n.device = jsonGet<uint32_t>(nj, "device", 0);
  n.out = classIds(jsonGet<std::vector<uint32_t>>(nj, "out", {}));
  n.timeNs = jsonGet<double>(nj, "time_ns", 0.0);
  return n;
}

// The operand count and op code a node kind takes, checked before anything reads them (labels,
// shape inference, the kernelizer index `in` and name `op` without checking).
void checkNodeForm(const Node& n) {
  static constexpr int kArity[kNumNodeKinds] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 1, 1, -1};
  const int arity = kArity[static_cast<int>(n.kind)];
  if (arity >= 0 && n.in.size() != static_cast<std::size_t>(arity)) {
    JsonPath at("in");
    throw Error(ErrorCode::Parse, "expected " + std::to_string(arity) + " operands for a " + std::string(nodeKindName(n.kind)) +
                                      " node, found " + std::to_string(n.in.size()));
  }
  const int ops = n.kind == NodeKind::Unary ? kNumUnaryOps : n.kind == NodeKind::Binary ? kNumBinaryOps
                : n.kind == NodeKind::Reduce ? 4 : 1;
  if (n.op >= ops) {
    JsonPath at("op");
    throw Error(ErrorCode::Parse, "expected " + (ops == 1 ? "no op code (0) for a " + std::string(nodeKindName(n.kind)) + " node"
                                                          : "an op code 0.." + std::to_string(ops - 1) + " for a " +
                                                                std::string(nodeKindName(n.kind)) + " node") +
                                      ", found " + std::to_string(n.op));
  }
}

// `v` indexes a list of `n` things (`what`); `key` is its place inside the current value.
void inRange(const std::string& key, uint64_t v, std::size_t n, const char* what) {
  if (v < n) return;
  JsonPath at(key);
  throw Error(ErrorCode::Parse, std::string("expected ") + what + " (" + std::to_string(n) + " in the graph), found " + std::to_string(v));
}
}  // namespace

// Every id is checked here (errors name the JSON pointer): the rest of the engine indexes without checking.
Graph Graph::fromJson(const std::string& text) {
  const bool outermost = JsonPath::current().empty();
  Graph g;
  try {
    const nlohmann::json j = parseJson(text);
    if (!j.is_object()) throw Error(ErrorCode::Parse, "expected an object");
    const int version = jsonGet<int>(j, "version", 1);
    if (version < 1 || version > 2) {
      JsonPath at("version");
      throw Error(ErrorCode::Parse, "graph JSON version " + std::to_string(version) + " is not supported (1 or 2)");
    }
    jsonEach(j, "leaves", [&](const nlohmann::json& lj) { g.leaves_.push_back(leafFrom(lj)); });
    g.leafClasses_ = classIds(jsonGet<std::vector<uint32_t>>(j, "leaf_classes", {}));
    {
      JsonPath at("nodes");
      if (!j.contains("nodes")) throw Error(ErrorCode::Parse, "missing (expected the list of nodes)");
    }
    jsonEach(j, "nodes", [&](const nlohmann::json& nj) { g.nodes_.push_back({nodeFrom(nj), ClassId(jsonGet<uint32_t>(nj, "class"))}); });
    jsonEach(j, "classes", [&](const nlohmann::json& cj) {
      EClass c;
      for (uint32_t id : jsonGet<std::vector<uint32_t>>(cj, "nodes")) c.nodes.push_back(NodeId(id));
      {
        JsonPath at("nodes");
        for (std::size_t k = 0; k < c.nodes.size(); ++k) inRange(std::to_string(k), c.nodes[k].v, g.nodes_.size(), "a node");
      }
      const uint32_t self = static_cast<uint32_t>(g.classes_.size());
      const uint32_t parent = jsonGet<uint32_t>(cj, "parent", self);
      // A parent of smaller id keeps find acyclic and the root the smallest id of its class.
      if (parent > self) throw Error(ErrorCode::Parse, "class " + std::to_string(self) + " has a parent of larger id");
      if (parent == self && c.nodes.empty()) throw Error(ErrorCode::Parse, "expected at least one node in a class");
      if (parent != self && !c.nodes.empty()) throw Error(ErrorCode::Parse, "merged class " + std::to_string(self) + " lists nodes");
      if (parent != self) ++g.merged_;
      c.shape = jsonGet<Shape>(cj, "shape");
      checkShape("shape", c.shape);
      c.dtype = dtypeAt(cj, "dtype");
      g.classes_.push_back(std::move(c));
      g.parent_.push_back(ClassId(parent));
    });
    const std::size_t nc = g.classes_.size();
    for (std::size_t i = 0; i < g.nodes_.size(); ++i) {
      JsonPath nodes("nodes"), at(i);
      const NodeData& nd = g.nodes_[i];
      inRange("class", nd.cls.v, nc, "a class");
      for (std::size_t k = 0; k < nd.node.in.size(); ++k) inRange("in/" + std::to_string(k), nd.node.in[k].v, nc, "a class");
      for (std::size_t k = 0; k < nd.node.out.size(); ++k) inRange("out/" + std::to_string(k), nd.node.out[k].v, nc, "a class");
      if (nd.node.kind == NodeKind::Leaf) inRange("ref", nd.node.ref, g.leaves_.size(), "a leaf");
      checkNodeForm(nd.node);
    }
    for (std::size_t i = 0; i < g.leafClasses_.size(); ++i) inRange("leaf_classes/" + std::to_string(i), g.leafClasses_[i].v, nc, "a class");
    for (NodeData& nd : g.nodes_) nd.cls = g.find(nd.cls);
    // Every node computes its class's shape and dtype: views, the kernelizer and lowering take a
    // class's shape for each of its nodes.
    for (std::size_t i = 0; i < g.nodes_.size(); ++i) {
      const NodeData& nd = g.nodes_[i];
      if (nd.node.kind == NodeKind::Kernel) continue;  // a kernel's classes are its outputs
      JsonPath nodes("nodes"), at(i);
      Shape shape;
      DType dtype = DType::F32;
      try {
        g.infer(nd.node, shape, dtype);
      } catch (const Error& e) {
        throw Error(ErrorCode::Parse, "a '" + e.op() + "' node: " + e.message());
      }
      const EClass& c = g.classes_[nd.cls.v];
      if (shape != c.shape || dtype != c.dtype)
        throw Error(ErrorCode::Parse, "its operands give " + std::string(dtypeName(dtype)) + shapeStr(shape) + ", but its class %" +
                                          std::to_string(nd.cls.v) + " is " + std::string(dtypeName(c.dtype)) + shapeStr(c.shape));
    }
    // Listed nodes first, in class order, as rebuild fills the hashcons; then the copies a
    // rebuild dropped (they canonicalise to a listed node).
    for (const EClass& c : g.classes_)
      for (NodeId n : c.nodes) g.hashcons_.emplace(g.nodes_[n.v].node, n);
    for (std::size_t i = 0; i < g.nodes_.size(); ++i) g.hashcons_.emplace(g.nodes_[i].node, NodeId(static_cast<uint32_t>(i)));
    try {
      g.checkInvariants();
    } catch (const Error& e) {
      throw Error(ErrorCode::Parse, "graph JSON: " + e.message());
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::Parse, readErrorText(e.what(), outermost));
  } catch (const Error& e) {
    throw Error(ErrorCode::Parse, readErrorText(e.message(), outermost));
  }
  return g;
}

}  // namespace ks
