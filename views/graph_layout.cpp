// layoutGraph through libgvc's dot layout (cgraph built directly, no DOT text round trip), and
// the node sizes it is given.
#include "views/graph_layout.h"

#include <QFont>
#include <QFontMetricsF>
#include <QStringList>
#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "engine/viz/layout_cost.h"

#ifdef KS_WITH_GRAPHVIZ
#include <graphviz/gvc.h>
#endif

namespace ks {

namespace {
// Fonts as the node items paint them (graph_items.cpp): 9 pt, the first line bold.
struct LabelMetrics {
  QFontMetricsF plain, bold;
  LabelMetrics() : plain(font(false)), bold(font(true)) {}
  static QFont font(bool isBold) {
    QFont f;
    f.setPointSizeF(9);
    f.setBold(isBold);
    return f;
  }
  QSizeF size(const QString& label) const {
    const QStringList lines = label.split('\n');
    double w = 0, h = 0;
    for (int i = 0; i < lines.size(); ++i) {
      const QFontMetricsF& fm = i == 0 ? bold : plain;
      w = std::max(w, fm.horizontalAdvance(lines[i]));
      h += fm.height();
    }
    return QSizeF(std::max(40.0, w + 16), std::max(24.0, h + 10));
  }
};
}  // namespace

LayoutInput layoutInputOf(const viz::Picture& p) {
  LayoutInput in;
  const LabelMetrics metrics;
  in.sizes.reserve(p.nodes.size());
  in.cluster.reserve(p.nodes.size());
  for (const viz::Node& n : p.nodes) {
    in.sizes.push_back(metrics.size(QString::fromStdString(n.label)));
    in.cluster.push_back(n.cluster);
  }
  in.clusterCount = static_cast<int>(p.clusters.size());
  in.edges.reserve(p.edges.size());
  for (const viz::Edge& e : p.edges) in.edges.push_back({e.from, e.to, e.count});
  return in;
}

#ifndef KS_WITH_GRAPHVIZ
GraphLayout layoutGraph(const LayoutInput&) {
  throw Error(ErrorCode::Unsupported, "graph layout needs Graphviz; this build has KS_WITH_GRAPHVIZ=OFF");
}
#else

namespace {

// cgraph's setters take char* in Graphviz 2.42; they do not modify the strings.
void set(void* obj, const char* name, const std::string& value) {
  agsafeset(obj, const_cast<char*>(name), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

std::string inches(double points) { return std::to_string(points / 72.0); }

// One context for the whole process, created on the layout thread on first use.
GVC_t* context() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

}  // namespace

GraphLayout layoutGraph(const LayoutInput& m) {
  const int nNodes = static_cast<int>(m.sizes.size());
  if (nNodes > kMaxLayoutNodes || static_cast<int>(m.edges.size()) > kMaxLayoutEdges) {
    throw Error(ErrorCode::Usage, "graph too large to lay out (" + std::to_string(nNodes) + " nodes, " +
                                      std::to_string(m.edges.size()) + " edges); show it collapsed");
  }
  GraphLayout out;
  out.nodeRects.resize(nNodes);
  out.clusterRects.resize(static_cast<std::size_t>(std::max(0, m.clusterCount)));
  if (nNodes == 0) return out;

  GVC_t* gvc = context();
  Agraph_t* g = agopen(const_cast<char*>("G"), Agdirected, nullptr);
  set(g, "rankdir", "TB");
  set(g, "nodesep", "0.25");
  set(g, "ranksep", "0.35");
  // Crossing minimization dominates dot's time on big graphs; fewer passes look nearly as good.
  if (nNodes > 150) set(g, "mclimit", "0.3");
  std::vector<Agraph_t*> subgraphs(out.clusterRects.size(), nullptr);
  std::vector<Agnode_t*> nodes(nNodes);
  for (int i = 0; i < nNodes; ++i) {
    const int cluster = i < static_cast<int>(m.cluster.size()) ? m.cluster[i] : -1;
    Agraph_t* parent = g;
    if (cluster >= 0 && cluster < static_cast<int>(subgraphs.size())) {
      Agraph_t*& sg = subgraphs[cluster];
      if (!sg) {
        std::string name = "cluster_" + std::to_string(cluster);
        sg = agsubg(g, const_cast<char*>(name.c_str()), 1);
        // The title is drawn by the view; this reserves room for one line of it.
        set(sg, "label", "X");
        set(sg, "fontsize", "11");
        set(sg, "margin", "6");
      }
      parent = sg;
    }
    std::string name = "n" + std::to_string(i);
    Agnode_t* an = agnode(parent, const_cast<char*>(name.c_str()), 1);
    set(an, "shape", "box");
    set(an, "fixedsize", "true");
    set(an, "label", "");
    set(an, "width", inches(m.sizes[i].width()));
    set(an, "height", inches(m.sizes[i].height()));
    nodes[i] = an;
  }
  std::vector<Agedge_t*> edges(m.edges.size(), nullptr);
  for (std::size_t e = 0; e < m.edges.size(); ++e) {
    const LayoutInput::Edge& me = m.edges[e];
    if (me.from < 0 || me.to < 0 || me.from >= nNodes || me.to >= nNodes) continue;
    std::string name = "e" + std::to_string(e);
    edges[e] = agedge(g, nodes[me.from], nodes[me.to], const_cast<char*>(name.c_str()), 1);
    if (me.count > 1) set(edges[e], "penwidth", std::to_string(std::min(4.0, 1.0 + me.count / 8.0)));
  }

  // A graph whose ranks would take dot minutes is laid out by neato, in a fraction of a second.
  std::vector<std::pair<int, int>> spans;
  spans.reserve(m.edges.size());
  for (const LayoutInput::Edge& me : m.edges) spans.push_back({me.from, me.to});
  const char* engine = viz::layoutEngineFor(nNodes, spans);
  const bool ranked = std::string(engine) == "dot";
  if (!ranked) {
    set(g, "overlap", "false");
    set(g, "splines", "line");
  }
  if (gvLayout(gvc, g, engine) != 0) {
    agclose(g);
    throw Error(ErrorCode::Internal, std::string("Graphviz ") + engine + " layout failed");
  }
  const boxf bb = GD_bb(g);
  const double top = bb.UR.y;
  auto flip = [top](pointf p) { return QPointF(p.x, top - p.y); };
  out.bounds = QRectF(QPointF(bb.LL.x, 0), QPointF(bb.UR.x, top - bb.LL.y));
  for (int i = 0; i < nNodes; ++i) {
    const pointf c = ND_coord(nodes[i]);
    const double w = ND_width(nodes[i]) * 72.0, h = ND_height(nodes[i]) * 72.0;
    out.nodeRects[i] = QRectF(c.x - w / 2, top - c.y - h / 2, w, h);
  }
  for (std::size_t c = 0; c < subgraphs.size() && ranked; ++c) {
    if (!subgraphs[c]) continue;
    const boxf cb = GD_bb(subgraphs[c]);
    out.clusterRects[c] = QRectF(flip(cb.LL), flip(cb.UR)).normalized();
  }
  // neato does not place clusters: a cluster is drawn around where its members landed.
  for (int i = 0; i < nNodes && !ranked; ++i) {
    const int c = i < static_cast<int>(m.cluster.size()) ? m.cluster[i] : -1;
    if (c < 0 || c >= static_cast<int>(out.clusterRects.size())) continue;
    const QRectF r = out.nodeRects[i].adjusted(-6, -20, 6, 6);
    out.clusterRects[c] = out.clusterRects[c].isNull() ? r : out.clusterRects[c].united(r);
  }
  for (std::size_t e = 0; e < edges.size(); ++e) {
    if (!edges[e] || !ED_spl(edges[e]) || ED_spl(edges[e])->size == 0) continue;
    const bezier& bz = ED_spl(edges[e])->list[0];
    if (bz.size < 1) continue;
    GraphLayout::EdgePath ep;
    ep.edge = static_cast<int>(e);
    ep.path.moveTo(flip(bz.list[0]));
    for (int k = 1; k + 2 < bz.size; k += 3) ep.path.cubicTo(flip(bz.list[k]), flip(bz.list[k + 1]), flip(bz.list[k + 2]));
    if (bz.eflag) {
      ep.hasArrow = true;
      ep.arrowBase = flip(bz.list[bz.size - 1]);
      ep.arrowTip = flip(bz.ep);
    }
    out.edges.push_back(std::move(ep));
  }
  gvFreeLayout(gvc, g);
  agclose(g);
  return out;
}

#endif

}  // namespace ks
