// Union-find over e-classes: merging classes, congruence closure (rebuild) and the invariants
// that keep walks through structural nodes acyclic.
#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "engine/graph/graph.h"

namespace ks {

namespace {
std::string describeClass(const Graph& g, ClassId c) {
  return "%" + std::to_string(c.v) + " " + std::string(dtypeName(g.dtype(c))) + shapeStr(g.shape(c));
}
}  // namespace

ClassId Graph::find(ClassId c) const {
  while (parent_.at(c.v) != c) c = parent_[c.v];
  return c;
}

ClassId Graph::findCompress(ClassId c) {
  const ClassId root = find(c);
  while (parent_[c.v] != root) {
    const ClassId next = parent_[c.v];
    parent_[c.v] = root;
    c = next;
  }
  return root;
}

std::vector<ClassId> Graph::canonicalClasses() const {
  std::vector<ClassId> r;
  r.reserve(canonicalClassCount());
  for (uint32_t i = 0; i < classes_.size(); ++i)
    if (parent_[i].v == i) r.push_back(ClassId(i));
  return r;
}

bool Graph::isConst(ClassId c) const {
  for (NodeId n : eclass(c).nodes)
    if (node(n).kind == NodeKind::Const) return true;
  return false;
}

void Graph::canonicalize(Node& n) const {
  for (ClassId& c : n.in)
    if (c.valid() && c.v < parent_.size()) c = find(c);
  for (ClassId& c : n.out)
    if (c.valid() && c.v < parent_.size()) c = find(c);
}

bool Graph::merge(ClassId a, ClassId b, const std::string& why) {
  ClassId ra = findCompress(a), rb = findCompress(b);
  if (ra == rb) return false;
  if (shape(ra) != shape(rb) || dtype(ra) != dtype(rb))
    throw Error(ErrorCode::Invariant, "'" + why + "' merges classes of different shape or dtype: " + describeClass(*this, ra) +
                                         " and " + describeClass(*this, rb));
  if (rb.v < ra.v) std::swap(ra, rb);
  // The smaller id stays the root: its creating node keeps nodes[0] (see the class comment).
  parent_[rb.v] = ra;
  auto& into = classes_[ra.v].nodes;
  auto& from = classes_[rb.v].nodes;
  into.insert(into.end(), from.begin(), from.end());
  from.clear();
  ++merged_;
  dirty_ = true;
  return true;
}

std::size_t Graph::rebuild() {
  std::size_t merges = 0;
  for (bool again = true; again;) {
    again = false;
    hashcons_.clear();
    std::vector<std::pair<ClassId, ClassId>> pending;
    for (uint32_t ci = 0; ci < classes_.size(); ++ci) {
      auto& nodes = classes_[ci].nodes;  // empty unless canonical
      std::vector<NodeId> kept;
      for (NodeId nid : nodes) {
        Node& n = nodes_[nid.v].node;
        canonicalize(n);
        auto [it, inserted] = hashcons_.emplace(n, nid);
        // A node listed in several classes (attachNode: a kernel storing each of them) is kept.
        if (inserted || it->second == nid) {
          kept.push_back(nid);
          continue;
        }
        // An equal node exists: the two classes are one (congruence); this copy is dropped.
        const ClassId other = find(nodes_[it->second.v].cls);
        if (other.v != ci) pending.push_back({other, ClassId(ci)});
      }
      nodes = std::move(kept);
    }
    for (auto [x, y] : pending)
      if (merge(x, y, "congruence")) {
        ++merges;
        again = true;
      }
  }
  for (NodeData& nd : nodes_) nd.cls = findCompress(nd.cls);
  dirty_ = false;
  return merges;
}

std::string Graph::structuralCycle() const {
  // Iterative three-colour DFS over structural nodes, from every canonical class.
  std::vector<uint8_t> state(classes_.size(), 0);
  for (uint32_t start = 0; start < classes_.size(); ++start) {
    if (parent_[start].v != start || state[start]) continue;
    std::vector<std::pair<ClassId, std::size_t>> stack{{ClassId(start), 0}};
    state[start] = 1;
    while (!stack.empty()) {
      auto& [c, next] = stack.back();
      const auto& in = node(classes_[c.v].nodes.front()).in;
      if (next == in.size()) {
        state[c.v] = 2;
        stack.pop_back();
        continue;
      }
      const ClassId d = find(in[next++]);
      if (state[d.v] == 1) {
        std::string path;
        for (auto& [k, unused] : stack) path += "%" + std::to_string(k.v) + " ";
        return path + "%" + std::to_string(d.v);
      }
      if (state[d.v] == 0) {
        state[d.v] = 1;
        stack.push_back({d, 0});
      }
    }
  }
  return "";
}

void Graph::chooseStructural(const std::vector<std::pair<ClassId, NodeId>>& choices) {
  const std::vector<EClass> before = classes_;
  for (auto [c, n] : choices) {
    auto& nodes = classes_.at(find(c).v).nodes;
    auto it = std::find(nodes.begin(), nodes.end(), n);
    if (it == nodes.end() || !node(n).isStructural()) {
      classes_ = before;
      throw Error(ErrorCode::Invariant, "node " + std::to_string(n.v) + " is not a structural node of %" + std::to_string(find(c).v));
    }
    std::iter_swap(nodes.begin(), it);
  }
  if (const std::string cycle = structuralCycle(); !cycle.empty()) {
    classes_ = before;
    throw Error(ErrorCode::Invariant, "the chosen nodes make structural nodes cycle: " + cycle);
  }
}

void Graph::checkInvariants() const {
  auto fail = [](const std::string& what) { throw Error(ErrorCode::Invariant, "e-graph invariant: " + what); };
  for (uint32_t ci = 0; ci < classes_.size(); ++ci) {
    const ClassId c(ci);
    if (parent_[ci].v > ci) fail("%" + std::to_string(ci) + " has a parent of larger id");
    if (!isCanonical(c)) {
      if (!classes_[ci].nodes.empty()) fail("merged class %" + std::to_string(ci) + " still holds nodes");
      continue;
    }
    if (classes_[ci].nodes.empty()) fail("class %" + std::to_string(ci) + " has no node");
    for (NodeId nid : classes_[ci].nodes)
      if (node(nid).kind != NodeKind::Kernel && classOf(nid) != c) fail("node " + std::to_string(nid.v) + " is listed in %" + std::to_string(ci) + " but belongs elsewhere");
    if (dirty_) continue;
    for (NodeId nid : classes_[ci].nodes) {
      const Node& n = node(nid);
      for (ClassId o : n.in)
        if (!isCanonical(o)) fail("node " + std::to_string(nid.v) + " has a merged operand after rebuild");
      auto it = hashcons_.find(n);
      if (it == hashcons_.end() || it->second != nid) fail("node " + std::to_string(nid.v) + " is not the hashcons entry");
    }
  }
  if (const std::string cycle = structuralCycle(); !cycle.empty()) fail("structural nodes cycle: " + cycle);
}

}  // namespace ks
