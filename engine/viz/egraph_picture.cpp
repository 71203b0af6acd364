// egraphPicture: classes become clusters, e-nodes boxes, ONNX name scopes or consecutive classes groups.
#include "engine/viz/egraph_picture.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "engine/viz/scope_groups.h"

namespace ks::viz {

ExtractionIndex::ExtractionIndex(const Extraction* e) {
  if (!e) return;
  for (const ClassDecision& d : e->decisions) {
    if (d.chosen.valid()) chosen[d.cls.v] = d.chosen.v;
    for (const AlternativeCost& a : d.alternatives)
      if (a.valid) costNs[a.node.v] = a.treeNs;
    if (!d.why.empty()) why[d.cls.v] = d.why;
  }
}

std::string enodeOp(const Graph& g, NodeId id) {
  const ks::Node& n = g.node(id);
  if (n.kind != NodeKind::Leaf) return n.label();
  const LeafInfo& leaf = g.leaf(n.ref);
  const char* kind = leaf.kind == LeafKind::Input ? "input" : leaf.kind == LeafKind::Param ? "param" : "const";
  return std::string(kind) + " " + leaf.name;
}

std::string classType(const Graph& g, ClassId c) { return std::string(dtypeName(g.dtype(c))) + shapeStr(g.shape(c)); }

std::string enodeLabel(const Graph& g, NodeId id, const ExtractionIndex& ex) {
  std::string label = enodeOp(g, id) + "\n" + classType(g, g.classOf(id));
  if (auto it = ex.costNs.find(id.v); it != ex.costNs.end()) label += "\ncost " + durationText(it->second);
  return label;
}

namespace {

std::string enodeTooltip(const Graph& g, NodeId id, bool chosen, const ExtractionIndex& ex) {
  const ks::Node& n = g.node(id);
  const ClassId c = g.classOf(id);
  std::string t = "e-node #" + std::to_string(id.v) + " in class " + classRef(c.v) + "\n" + n.label() + "\n" + classType(g, c);
  std::string operands;
  for (ClassId in : n.in) operands += (operands.empty() ? "" : ", ") + classRef(in.v);
  if (!operands.empty()) t += "\noperands: " + operands;
  if (chosen) t += "\nchosen by extraction";
  if (auto it = ex.costNs.find(id.v); it != ex.costNs.end()) t += "\ncost " + durationText(it->second);
  return t;
}

Style enodeStyle(const Graph& g, NodeId id, bool isOutput, const ExtractionIndex& ex) {
  const ks::Node& n = g.node(id);
  const ClassId c = g.classOf(id);
  const EClass& ec = g.eclass(c);
  Style s = Style::Plain;
  if (n.kind == NodeKind::Leaf) s = Style::Leaf;
  else if (n.kind == NodeKind::ToDevice) s = Style::Copy;
  else if (id != ec.nodes.front()) s = Style::Alternative;
  if (isOutput && id == ec.nodes.front()) s = Style::Output;
  if (ex.empty()) return s;
  auto it = ex.chosen.find(c.v);
  if (it != ex.chosen.end() && it->second == id.v) return Style::Chosen;
  return ec.nodes.size() > 1 ? Style::Alternative : s;
}

Cluster classCluster(const Graph& g, uint32_t c, bool isOutput, const std::vector<SourcePlace>* places) {
  Cluster cl;
  cl.id = "c" + std::to_string(c);
  cl.subject = {SubjectKind::EClass, c};
  cl.label = classRef(c) + "  " + classType(g, ClassId(c)) + (isOutput ? "  (output)" : "");
  cl.tooltip = "e-class " + classRef(c) + ": " + classType(g, ClassId(c)) + ", " +
               std::to_string(g.eclass(ClassId(c)).nodes.size()) + " e-node(s)";
  if (places && !places->empty()) cl.tooltip += "\nfrom " + placesText(*places);
  cl.highlighted = isOutput;
  return cl;
}

// Classes are created operands-first, so consecutive ids are a topological chunking. Leaves
// (inputs, parameters) are created first of all and device copies last (by the memory stage):
// in id order each would sit far from its consumers with an edge across the whole picture, a
// fan that also makes dot's layout slow. Each is placed with its first consumer instead.
struct ChunkOrder {
  std::vector<uint32_t> order;
  std::vector<bool> floating;  // placed by its first consumer (sorted right before it)
};
ChunkOrder chunkOrder(const Graph& g) {
  const uint32_t n = static_cast<uint32_t>(g.classCount());
  std::vector<uint32_t> position(n);
  for (uint32_t c = 0; c < n; ++c) position[c] = c;
  std::vector<bool> leaf(n);
  for (uint32_t c = 0; c < n; ++c) {
    const NodeKind k = g.structural(ClassId(c)).kind;
    leaf[c] = k == NodeKind::Leaf || k == NodeKind::Const || k == NodeKind::ToDevice;
  }
  std::vector<uint32_t> firstUse(n, UINT32_MAX);
  for (uint32_t c = 0; c < n; ++c)
    for (NodeId node : g.eclass(ClassId(c)).nodes)
      for (ClassId in : g.node(node).in)
        if (in.v < n) firstUse[in.v] = std::min(firstUse[in.v], c);
  for (uint32_t c = 0; c < n; ++c)
    if (leaf[c] && firstUse[c] != UINT32_MAX) position[c] = firstUse[c];
  std::vector<uint32_t> order(n);
  for (uint32_t c = 0; c < n; ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return position[a] != position[b] ? position[a] < position[b] : leaf[a] > leaf[b];
  });
  return {order, leaf};
}

void groupClasses(const Graph& g, Picture& p, int maxGroups, const std::vector<std::vector<SourcePlace>>& places) {
  const std::size_t nClasses = p.clusters.size();
  if (static_cast<int>(p.nodes.size()) <= kCollapseThreshold || maxGroups <= 0 || nClasses == 0) return;
  const ChunkOrder chunks = chunkOrder(g);
  const std::vector<uint32_t>& order = chunks.order;
  // An imported model's own structure (its modules) names groups better than id ranges do.
  if (groupByNodeScope(g, places, order, p, maxGroups)) return;
  const std::size_t per = (nClasses + static_cast<std::size_t>(maxGroups) - 1) / static_cast<std::size_t>(maxGroups);
  for (std::size_t start = 0, end = 0; start < nClasses; start = end) {
    end = std::min(nClasses, start + per);
    // A group never ends on a placed leaf: it stays with its consumer, sorted right after it.
    while (end < nClasses && chunks.floating[order[end - 1]]) ++end;
    std::map<std::string, int> ops;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (std::size_t i = start; i < end; ++i) {
      const uint32_t c = order[i];
      p.clusters[c].group = static_cast<int>(p.groups.size());
      const NodeKind kind = g.structural(ClassId(c)).kind;
      ops[std::string(nodeKindName(kind))]++;
      if (kind != NodeKind::Leaf && kind != NodeKind::Const) {
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
    }
    Group grp;
    grp.id = "g" + std::to_string(p.groups.size());
    grp.label = lo == UINT32_MAX ? "leaves" : "classes " + classRef(lo) + "\u2013" + classRef(hi);
    std::string parts;
    for (const auto& [k, v] : ops) parts += (parts.empty() ? "" : ", ") + std::to_string(v) + " " + k;
    grp.tooltip = grp.label + "\n" + parts;
    p.groups.push_back(grp);
  }
}

}  // namespace

Picture egraphPicture(const Graph& g, const EGraphPictureOptions& options) {
  Picture p;
  p.name = "egraph";
  const ExtractionIndex ex(options.extraction);
  std::unordered_set<uint32_t> outputs;
  for (ClassId c : options.outputs) outputs.insert(c.v);
  std::vector<int> nodeIndex(g.nodeCount(), -1);
  std::unordered_map<uint32_t, const RewriteStep*> addedBy;  // e-node -> the merge that added it
  if (options.rewrites)
    for (const RewriteStep& st : *options.rewrites)
      for (uint32_t n = st.firstNode; n < st.endNode; ++n) addedBy[n] = &st;
  p.clusters.reserve(g.classCount());
  // Ids of merged classes, listed with the class they joined (drawn as that one cluster).
  std::map<uint32_t, std::string> mergedInto;
  for (uint32_t c = 0; c < g.classCount(); ++c)
    if (!g.isCanonical(ClassId(c))) mergedInto[g.find(ClassId(c)).v] += " " + classRef(c);
  const std::vector<std::vector<SourcePlace>> places =
      options.places ? options.places->byCanonicalClass(g) : std::vector<std::vector<SourcePlace>>{};
  for (uint32_t c = 0; c < g.classCount(); ++c) {
    const bool isOutput = outputs.count(c) > 0 || outputs.count(g.find(ClassId(c)).v) > 0;
    p.clusters.push_back(classCluster(g, c, isOutput, c < places.size() && g.isCanonical(ClassId(c)) ? &places[c] : nullptr));
    if (!g.isCanonical(ClassId(c))) {
      // Kept so clusters stay indexed by class id; it has no nodes of its own.
      p.clusters.back().label = classRef(c) + " merged into " + classRef(g.find(ClassId(c)).v);
      continue;
    }
    if (auto it = mergedInto.find(c); it != mergedInto.end()) {
      p.clusters.back().label += "  (merged:" + it->second + ")";
      p.clusters.back().tooltip += "\nmerged classes:" + it->second;
    }
    for (NodeId nid : g.eclass(ClassId(c)).nodes) {
      const auto added = addedBy.find(nid.v);
      // A kernel storing several classes is listed in each: drawn in each, the id says which.
      const bool own = g.classOf(nid).v == c;
      Node n;
      n.id = "n" + std::to_string(nid.v) + (own ? "" : "@c" + std::to_string(c));
      n.subject = {SubjectKind::ENode, nid.v};
      n.cluster = static_cast<int>(c);
      n.label = enodeLabel(g, nid, ex);
      n.style = enodeStyle(g, nid, isOutput, ex);
      n.tooltip = enodeTooltip(g, nid, n.style == Style::Chosen, ex);
      if (added != addedBy.end()) {
        const RewriteStep& st = *added->second;
        n.label += "\n+" + st.rule + " r" + std::to_string(st.round);
        n.tooltip += "\nadded by rule " + st.rule + " in round " + std::to_string(st.round) + " (its match in " +
                     classRef(st.root.v) + ", merged with " + classRef(st.added.v) + ")";
      }
      if (own) nodeIndex[nid.v] = static_cast<int>(p.nodes.size());
      p.nodes.push_back(std::move(n));
    }
  }
  // Data flows down: operand class (its first node) -> consuming e-node.
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    for (ClassId in : g.node(NodeId(p.nodes[i].subject.id)).in) {
      const int from = nodeIndex[g.eclass(in).nodes.front().v];
      if (from < 0) continue;
      Edge e;
      e.from = from;
      e.to = static_cast<int>(i);
      e.weak = g.isConst(in);
      p.edges.push_back(e);
    }
  }
  groupClasses(g, p, options.maxGroups, places);
  return p;
}

}  // namespace ks::viz
