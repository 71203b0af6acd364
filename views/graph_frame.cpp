// GraphFrame: lookups by node id into one layout.
#include "views/graph_frame.h"

#include <QLineF>

namespace ks {

namespace {
constexpr double kClusterPad = 8;
constexpr double kClusterTitle = 20;
}  // namespace

GraphFrame::GraphFrame(std::shared_ptr<const viz::Picture> picture, std::shared_ptr<const GraphLayout> layout)
    : picture_(std::move(picture)), layout_(std::move(layout)) {
  for (int i = 0; i < int(picture_->nodes.size()); ++i) nodeAt_.emplace(picture_->nodes[i].id, i);
  for (const GraphLayout::EdgePath& ep : layout_->edges) {
    const viz::Edge& e = picture_->edges.at(ep.edge);
    pathOf_.emplace(std::make_pair(e.from, e.to), &ep);
  }
}

int GraphFrame::indexOf(const std::string& id) const {
  auto it = nodeAt_.find(id);
  return it == nodeAt_.end() ? -1 : it->second;
}

bool GraphFrame::holds(const viz::Picture& p) const {
  for (const viz::Node& n : p.nodes)
    if (indexOf(n.id) < 0) return false;
  return true;
}

QRectF GraphFrame::nodeRect(const viz::Node& n) const {
  const int i = indexOf(n.id);
  return i < 0 ? QRectF() : layout_->nodeRects.at(i);
}

QRectF GraphFrame::clusterRect(const viz::Picture& p, int cluster) const {
  QRectF box;
  for (const viz::Node& n : p.nodes)
    if (n.cluster == cluster) box = box.isNull() ? nodeRect(n) : box.united(nodeRect(n));
  return box.isNull() ? box : box.adjusted(-kClusterPad, -kClusterTitle, kClusterPad, kClusterPad);
}

GraphLayout::EdgePath GraphFrame::edgePath(const viz::Picture& p, const viz::Edge& e) const {
  const int from = indexOf(p.nodes.at(e.from).id), to = indexOf(p.nodes.at(e.to).id);
  if (auto it = pathOf_.find({from, to}); it != pathOf_.end()) return *it->second;
  // Not an edge of the frame: from the bottom of one box to the top of the other.
  GraphLayout::EdgePath ep;
  const QRectF a = nodeRect(p.nodes.at(e.from)), b = nodeRect(p.nodes.at(e.to));
  const QPointF start(a.center().x(), a.bottom()), tip(b.center().x(), b.top());
  QLineF line(start, tip);
  const double len = line.length();
  ep.arrowTip = tip;
  ep.arrowBase = len > 8 ? line.pointAt((len - 8) / len) : start;
  ep.hasArrow = len > 8;
  ep.path.moveTo(start);
  ep.path.lineTo(ep.arrowBase);
  return ep;
}

}  // namespace ks
