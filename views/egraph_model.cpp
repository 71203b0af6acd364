// buildEGraphModel: classes become clusters, e-nodes become boxes, consecutive classes groups.
#include "views/egraph_model.h"

#include <QStringList>
#include <algorithm>
#include <map>
#include <unordered_set>

#include "views/graph_view.h"

namespace ks {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }

QString costText(double ns) {
  if (ns >= 1e6) return QString::number(ns / 1e6, 'f', 2) + " ms";
  if (ns >= 1e3) return QString::number(ns / 1e3, 'f', 1) + " us";
  return QString::number(ns, 'f', 0) + " ns";
}

// "%12": the class id as the dump prints it (built by hand: a doubled percent sign before a
// placeholder number would confuse QString::arg).
QString cid(uint32_t c) { return "%" + QString::number(c); }

QString classType(const Graph& g, ClassId c) {
  return qs(std::string(dtypeName(g.dtype(c))) + shapeStr(g.shape(c)));
}
}  // namespace

QString enodeLabel(const Graph& g, NodeId id, const ExtractionChoice* extraction) {
  const Node& n = g.node(id);
  QString op = qs(n.label());
  if (n.kind == NodeKind::Leaf) {
    const LeafInfo& leaf = g.leaf(n.ref);
    const char* kind = leaf.kind == LeafKind::Input ? "input" : leaf.kind == LeafKind::Param ? "param" : "const";
    op = QString("%1 %2").arg(kind, qs(leaf.name));
  }
  QString label = op + "\n" + classType(g, g.classOf(id));
  if (extraction) {
    auto it = extraction->nodeCostNs.find(id.v);
    if (it != extraction->nodeCostNs.end()) label += "\ncost " + costText(it->second);
  }
  return label;
}

GraphModel buildEGraphModel(const Graph& g, const EGraphModelOptions& options) {
  GraphModel m;
  const std::size_t nClasses = g.classCount();
  std::unordered_set<uint32_t> outputs;
  for (ClassId c : options.outputs) outputs.insert(c.v);
  const ExtractionChoice* ex = options.extraction && !options.extraction->empty() ? options.extraction : nullptr;

  std::vector<int> nodeIndex(g.nodeCount(), -1);
  m.clusters.reserve(nClasses);
  for (uint32_t c = 0; c < nClasses; ++c) {
    const EClass& ec = g.eclass(ClassId(c));
    GraphModel::Cluster cl;
    cl.key = c;
    cl.label = QString("%1  %2").arg(cid(c), classType(g, ClassId(c)));
    cl.tooltip = QString("e-class %1: %2, %3 e-node(s)").arg(cid(c), classType(g, ClassId(c)), QString::number(ec.nodes.size()));
    cl.highlighted = outputs.count(c) > 0;
    if (cl.highlighted) cl.label += "  (output)";
    m.clusters.push_back(cl);
    for (NodeId nid : ec.nodes) {
      const Node& n = g.node(nid);
      GraphModel::Node gn;
      gn.key = nid.v;
      gn.cluster = static_cast<int>(c);
      gn.label = enodeLabel(g, nid, ex);
      QStringList operands;
      for (ClassId in : n.in) operands << cid(in.v);
      gn.tooltip = QString("e-node #%1 in class %2\n%3\n%4").arg(QString::number(nid.v), cid(c), qs(n.label()), classType(g, ClassId(c)));
      if (!operands.isEmpty()) gn.tooltip += "\noperands: " + operands.join(", ");
      if (n.kind == NodeKind::Leaf) gn.style = GraphModel::Style::Leaf;
      else if (n.kind == NodeKind::ToDevice) gn.style = GraphModel::Style::Copy;
      else if (nid != ec.nodes.front()) gn.style = GraphModel::Style::Alternative;
      if (outputs.count(c) && nid == ec.nodes.front()) gn.style = GraphModel::Style::Output;
      if (ex) {
        auto it = ex->chosenNode.find(c);
        if (it != ex->chosenNode.end() && it->second == nid.v) {
          gn.style = GraphModel::Style::Chosen;
          gn.tooltip += "\nchosen by extraction";
        } else if (ec.nodes.size() > 1) {
          gn.style = GraphModel::Style::Alternative;
        }
        auto ct = ex->nodeCostNs.find(nid.v);
        if (ct != ex->nodeCostNs.end()) gn.tooltip += "\ncost " + costText(ct->second);
      }
      nodeIndex[nid.v] = static_cast<int>(m.nodes.size());
      m.nodes.push_back(gn);
    }
  }
  // Data flows down: operand class (its first node) -> consuming e-node.
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    const Node& n = g.node(NodeId(m.nodes[i].key));
    for (ClassId in : n.in) {
      const int from = nodeIndex[g.eclass(in).nodes.front().v];
      if (from >= 0) m.edges.push_back({from, static_cast<int>(i), 1, QString(), g.isConst(in)});
    }
  }
  m.sizeNodesFromLabels();

  // Classes are created operands-first, so consecutive id ranges are a topological chunking.
  if (static_cast<int>(m.nodes.size()) > GraphView::kCollapseThreshold && options.maxGroups > 0) {
    const std::size_t per = (nClasses + options.maxGroups - 1) / options.maxGroups;
    for (std::size_t start = 0; start < nClasses; start += per) {
      const std::size_t end = std::min(nClasses, start + per) - 1;
      std::map<QString, int> ops;
      for (std::size_t c = start; c <= end; ++c) {
        m.clusters[c].group = static_cast<int>(m.groups.size());
        const Node& s = g.structural(ClassId(static_cast<uint32_t>(c)));
        ops[qs(std::string(nodeKindName(s.kind)))]++;
      }
      GraphModel::Group grp;
      grp.label = QString("classes %1–%2").arg(cid(static_cast<uint32_t>(start)), cid(static_cast<uint32_t>(end)));
      QStringList parts;
      for (const auto& [k, v] : ops) parts << QString("%1 %2").arg(QString::number(v), k);
      grp.tooltip = grp.label + "\n" + parts.join(", ");
      m.groups.push_back(grp);
    }
  }
  return m;
}

}  // namespace ks

#include "views/session_view.h"

namespace ks {

ExtractionChoice extractionChoiceOf(const Extraction& e) {
  ExtractionChoice c;
  for (const ClassDecision& d : e.decisions) {
    if (d.chosen.valid()) c.chosenNode[d.cls.v] = d.chosen.v;
    for (const AlternativeCost& a : d.alternatives)
      if (a.valid) c.nodeCostNs[a.node.v] = a.treeNs;
    if (!d.why.empty()) c.reason[d.cls.v] = d.why;
  }
  return c;
}

}  // namespace ks
