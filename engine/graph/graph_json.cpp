// JSON form of the e-graph, for session files that reopen without the program or a device.
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/core/scalar_json.h"
#include "engine/graph/graph.h"

namespace ks {

namespace {
std::vector<uint32_t> ids(const std::vector<ClassId>& v) {
  std::vector<uint32_t> r;
  for (auto c : v) r.push_back(c.v);
  return r;
}
std::vector<ClassId> classIds(const nlohmann::json& j) {
  std::vector<ClassId> r;
  for (auto& v : j) r.push_back(ClassId(v.get<uint32_t>()));
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

Graph Graph::fromJson(const std::string& text) {
  Graph g;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    const int version = j.value("version", 1);
    if (version < 1 || version > 2) throw Error(ErrorCode::Parse, "graph JSON version " + std::to_string(version) + " is not supported (1 or 2)");
    auto dt = [](const nlohmann::json& v) {
      auto t = parseDType(v.get<std::string>());
      if (!t) throw Error(ErrorCode::Parse, "unknown dtype '" + v.get<std::string>() + "' in graph JSON");
      return *t;
    };
    for (auto& lj : j.value("leaves", nlohmann::json::array())) {
      LeafInfo l;
      l.name = lj.at("name").get<std::string>();
      l.kind = static_cast<LeafKind>(lj.at("kind").get<int>());
      l.dtype = dt(lj.at("dtype"));
      l.shape = lj.at("shape").get<Shape>();
      if (lj.contains("data")) {
        auto t = std::make_shared<HostTensor>(l.dtype, l.shape);
        const auto vals = lj["data"].get<std::vector<double>>();
        if (static_cast<int64_t>(vals.size()) != t->numel()) throw Error(ErrorCode::Parse, "constant data size mismatch");
        for (std::size_t i = 0; i < vals.size(); ++i) t->setDouble(static_cast<int64_t>(i), vals[i]);
        l.data = t;
      }
      g.leaves_.push_back(std::move(l));
    }
    g.leafClasses_ = classIds(j.value("leaf_classes", nlohmann::json::array()));
    for (auto& nj : j.at("nodes")) {
      Node n;
      const std::string kind = nj.at("kind").get<std::string>();
      bool found = false;
      for (int k = 0; k < kNumNodeKinds; ++k)
        if (nodeKindName(static_cast<NodeKind>(k)) == kind) {
          n.kind = static_cast<NodeKind>(k);
          found = true;
        }
      if (!found) throw Error(ErrorCode::Parse, "unknown node kind '" + kind + "' in graph JSON");
      n.op = nj.value("op", uint8_t{0});
      if (nj.contains("dtype")) n.dtype = dt(nj["dtype"]);
      if (nj.contains("in")) n.in = classIds(nj["in"]);
      if (nj.contains("attr")) n.attr = nj["attr"].get<std::vector<int64_t>>();
      if (nj.contains("value")) n.value = scalarFromJson(nj["value"]);
      if (n.kind == NodeKind::Const) n.dtype = n.value.dtype();
      n.ref = nj.value("ref", 0u);
      n.device = nj.value("device", 0u);
      if (nj.contains("out")) n.out = classIds(nj["out"]);
      n.timeNs = nj.value("time_ns", 0.0);
      g.nodes_.push_back({std::move(n), ClassId(nj.at("class").get<uint32_t>())});
    }
    for (auto& cj : j.at("classes")) {
      EClass c;
      for (auto& v : cj.at("nodes")) {
        const uint32_t id = v.get<uint32_t>();
        if (id >= g.nodes_.size()) throw Error(ErrorCode::Parse, "node id out of range in graph JSON");
        c.nodes.push_back(NodeId(id));
      }
      const uint32_t self = static_cast<uint32_t>(g.classes_.size());
      const uint32_t parent = cj.value("parent", self);
      // A parent of smaller id keeps find acyclic and the root the smallest id of its class.
      if (parent > self) throw Error(ErrorCode::Parse, "class " + std::to_string(self) + " has a parent of larger id in graph JSON");
      if (parent == self && c.nodes.empty()) throw Error(ErrorCode::Parse, "empty class in graph JSON");
      if (parent != self && !c.nodes.empty()) throw Error(ErrorCode::Parse, "merged class " + std::to_string(self) + " lists nodes in graph JSON");
      if (parent != self) ++g.merged_;
      c.shape = cj.at("shape").get<Shape>();
      c.dtype = dt(cj.at("dtype"));
      g.classes_.push_back(std::move(c));
      g.parent_.push_back(ClassId(parent));
    }
    for (const NodeData& nd : g.nodes_) {
      if (nd.cls.v >= g.classes_.size()) throw Error(ErrorCode::Parse, "class id out of range in graph JSON");
      for (ClassId c : nd.node.in)
        if (c.v >= g.classes_.size()) throw Error(ErrorCode::Parse, "operand class out of range in graph JSON");
      if (nd.node.kind == NodeKind::Leaf && nd.node.ref >= g.leaves_.size())
        throw Error(ErrorCode::Parse, "leaf index out of range in graph JSON");
    }
    for (NodeData& nd : g.nodes_) nd.cls = g.find(nd.cls);
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
    throw Error(ErrorCode::Parse, std::string("graph JSON: ") + e.what());
  }
  return g;
}

}  // namespace ks
