// GraphView: layout requests, composition of the overview and expanded groups, interaction, export.
#include "views/graph_view.h"

#include <QFile>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QTextStream>
#include <QWheelEvent>
#include <algorithm>

#include "views/graph_items.h"
#include "views/layout_worker.h"

namespace ks {

namespace {
constexpr double kGroupPad = 10;
constexpr double kGroupTitle = 18;
}  // namespace

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent), scene_(new QGraphicsScene(this)) {
  setScene(scene_);
  setRenderHint(QPainter::Antialiasing);
  setRenderHint(QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setBackgroundBrush(QColor("#fcfcfd"));
  setFocusPolicy(Qt::StrongFocus);
  connect(scene_, &QGraphicsScene::selectionChanged, this, &GraphView::onSceneSelection);

  findEdit_ = new QLineEdit(this);
  findEdit_->setPlaceholderText(tr("Find (Enter: next, Esc: close)"));
  findEdit_->setClearButtonEnabled(true);
  findEdit_->setFixedWidth(260);
  findEdit_->hide();
  connect(findEdit_, &QLineEdit::textChanged, this, [this](const QString& t) { find(t); });
  connect(findEdit_, &QLineEdit::returnPressed, this, &GraphView::findNext);

  statusLabel_ = new QLabel(this);
  statusLabel_->setStyleSheet("QLabel { background: rgba(255,255,255,220); color: #343a40; padding: 3px 6px;"
                              " border: 1px solid #dee2e6; border-radius: 3px; }");
  statusLabel_->hide();
  positionOverlays();
}

GraphView::~GraphView() {
  for (auto& j : jobs_) j->cancel();
  // The scene (a child) is destroyed after this body and emits selectionChanged while clearing a
  // selected item: it must not reach this half-destroyed view.
  scene_->disconnect(this);
}

void GraphView::clear() {
  ++generation_;
  for (auto& j : jobs_) j->cancel();
  jobs_.clear();
  inFlight_ = 0;
  scene_->clear();
  matches_.clear();
  full_ = GraphModel();
  overview_ = GraphModel();
  visible_ = GraphModel();
  overviewLayout_.reset();
  expanded_.clear();
  collapsed_ = false;
  hidden_ = 0;
  setStatus(QString());
}

bool GraphView::isBusy() const { return inFlight_ > 0; }

void GraphView::setModel(GraphModel model) {
  clear();
  timer_.start();
  full_ = std::move(model);
  collapsed_ = !full_.groups.empty() && static_cast<int>(full_.nodes.size()) > kCollapseThreshold;
  groupSize_.assign(full_.groups.size(), 0);
  for (int i = 0; i < static_cast<int>(full_.nodes.size()); ++i) {
    const int g = full_.groupOfNode(i);
    if (g >= 0) ++groupSize_[g];
  }
  fitAfterLayout_ = true;
  relayoutOverview();
}

void GraphView::relayoutOverview() {
  const int n = static_cast<int>(full_.nodes.size());
  overviewNodeOf_.assign(n, -1);
  overviewGroupOf_.clear();
  overviewFullNode_.clear();
  overview_ = GraphModel();
  overview_.clusters = full_.clusters;
  if (!collapsed_) {
    overview_.nodes = full_.nodes;
    overview_.edges = full_.edges;
    for (int i = 0; i < n; ++i) {
      overviewNodeOf_[i] = i;
      overviewGroupOf_.push_back(-1);
      overviewFullNode_.push_back(i);
    }
  } else {
    std::vector<int> groupNode(full_.groups.size(), -1);
    for (int i = 0; i < n; ++i) {
      const int g = full_.groupOfNode(i);
      if (g < 0) {
        overviewNodeOf_[i] = static_cast<int>(overview_.nodes.size());
        overview_.nodes.push_back(full_.nodes[i]);
        overviewGroupOf_.push_back(-1);
        overviewFullNode_.push_back(i);
        continue;
      }
      if (groupNode[g] < 0) {
        groupNode[g] = static_cast<int>(overview_.nodes.size());
        GraphModel::Node gn;
        const GraphModel::Group& grp = full_.groups[g];
        gn.style = GraphModel::Style::Group;
        gn.key = static_cast<uint32_t>(g);
        auto it = expanded_.find(g);
        if (it != expanded_.end()) {
          gn.label = grp.label;
          gn.width = it->second->bounds.width() + 2 * kGroupPad;
          gn.height = it->second->bounds.height() + kGroupPad + kGroupTitle;
        } else {
          gn.label = grp.label + QString("\n%1 nodes").arg(groupSize_[g]);
          gn.width = std::max(110.0, 7.0 * grp.label.size() + 20);
          gn.height = 38;
        }
        gn.tooltip = (grp.tooltip.isEmpty() ? grp.label : grp.tooltip) +
                     QString("\n%1 nodes; double-click to %2").arg(groupSize_[g]).arg(it != expanded_.end() ? "collapse" : "expand");
        overview_.nodes.push_back(gn);
        overviewGroupOf_.push_back(g);
        overviewFullNode_.push_back(-1);
      }
      overviewNodeOf_[i] = groupNode[g];
      overview_.nodes[groupNode[g]].cluster = -1;
    }
    std::map<std::pair<int, int>, int> merged;
    for (const GraphModel::Edge& e : full_.edges) {
      const int a = overviewNodeOf_[e.from], b = overviewNodeOf_[e.to];
      if (a == b || e.weak) continue;
      merged[{a, b}] += e.count;
    }
    for (const auto& [ab, count] : merged) overview_.edges.push_back({ab.first, ab.second, count, QString(), false});
  }
  const quint64 gen = generation_;
  ++inFlight_;
  emit layoutStarted();
  jobs_.push_back(LayoutWorker::instance().request(overview_, this, [this, gen](const LayoutResult& r) {
    if (gen != generation_) return;
    --inFlight_;
    if (!r.layout) {
      setStatus(tr("Layout failed: %1").arg(r.error));
      emit layoutFailed(r.error);
      return;
    }
    overviewLayout_ = r.layout;
    compose();
    emit layoutFinished(timer_.nsecsElapsed() / 1e6);
  }));
}

GraphModel GraphView::groupModel(int group, std::vector<int>* memberOf) const {
  GraphModel sub;
  std::vector<int> subIndex(full_.nodes.size(), -1);
  std::map<int, int> clusterMap;
  for (int i = 0; i < static_cast<int>(full_.nodes.size()); ++i) {
    if (full_.groupOfNode(i) != group) continue;
    subIndex[i] = static_cast<int>(sub.nodes.size());
    GraphModel::Node node = full_.nodes[i];
    auto [it, inserted] = clusterMap.emplace(node.cluster, static_cast<int>(sub.clusters.size()));
    if (inserted) sub.clusters.push_back(full_.clusters[node.cluster]);
    node.cluster = it->second;
    sub.nodes.push_back(node);
    if (memberOf) memberOf->push_back(i);
  }
  for (const GraphModel::Edge& e : full_.edges) {
    if (subIndex[e.from] >= 0 && subIndex[e.to] >= 0) sub.edges.push_back({subIndex[e.from], subIndex[e.to], e.count, e.label});
  }
  return sub;
}

void GraphView::expandGroup(int group) {
  if (!collapsed_ || group < 0 || group >= static_cast<int>(full_.groups.size()) || expanded_.count(group)) return;
  const quint64 gen = generation_;
  ++inFlight_;
  emit layoutStarted();
  timer_.start();
  jobs_.push_back(LayoutWorker::instance().request(groupModel(group, nullptr), this, [this, gen, group](const LayoutResult& r) {
    if (gen != generation_) return;
    --inFlight_;
    if (!r.layout) {
      setStatus(tr("Layout of group failed: %1").arg(r.error));
      emit layoutFailed(r.error);
      return;
    }
    expanded_[group] = r.layout;
    fitAfterLayout_ = false;
    relayoutOverview();
  }));
}

void GraphView::collapseGroup(int group) {
  if (!expanded_.erase(group)) return;
  timer_.start();
  fitAfterLayout_ = false;
  relayoutOverview();
}

void GraphView::compose() {
  scene_->clear();
  matches_.clear();
  matchIndex_ = -1;
  visible_ = GraphModel();
  visible_.clusters = full_.clusters;
  const GraphLayout& L = *overviewLayout_;
  std::vector<int> visibleOfOverview(overview_.nodes.size(), -1);
  std::vector<int> visibleOfFull(full_.nodes.size(), -1);
  hidden_ = 0;

  auto addNode = [&](const QRectF& r, const GraphModel::Node& node, GraphItemRef ref) {
    scene_->addItem(new GraphNodeItem(r, node, ref));
    visible_.nodes.push_back(node);
    return static_cast<int>(visible_.nodes.size()) - 1;
  };

  for (int i = 0; i < static_cast<int>(overview_.nodes.size()); ++i) {
    const int g = overviewGroupOf_[i];
    const QRectF rect = L.nodeRects[i];
    if (g < 0) {
      const int f = overviewFullNode_[i];
      visibleOfOverview[i] = visibleOfFull[f] = addNode(rect, full_.nodes[f], {f, -1, full_.nodes[f].cluster});
      continue;
    }
    auto it = expanded_.find(g);
    if (it == expanded_.end()) {
      GraphModel::Node gn = overview_.nodes[i];
      gn.cluster = -1;
      visibleOfOverview[i] = addNode(rect, gn, {-1, g, -1});
      hidden_ += groupSize_[g];
      continue;
    }
    // An expanded group: a frame holding its own, separately computed layout.
    const GraphLayout& sub = *it->second;
    scene_->addItem(new GraphClusterItem(rect, full_.groups[g].label + tr("  (double-click to collapse)"), false, true, {-1, g, -1}));
    const QPointF offset = rect.topLeft() + QPointF(kGroupPad, kGroupTitle) - sub.bounds.topLeft();
    std::vector<int> members;
    const GraphModel subModel = groupModel(g, &members);
    for (std::size_t c = 0; c < subModel.clusters.size(); ++c) {
      if (sub.clusterRects[c].isNull()) continue;
      scene_->addItem(new GraphClusterItem(sub.clusterRects[c].translated(offset), subModel.clusters[c].label,
                                           subModel.clusters[c].highlighted, false, {-1, g, -1}));
    }
    for (std::size_t k = 0; k < members.size(); ++k) {
      const int f = members[k];
      visibleOfFull[f] = addNode(sub.nodeRects[k].translated(offset), full_.nodes[f], {f, g, full_.nodes[f].cluster});
    }
    for (const GraphLayout::EdgePath& ep : sub.edges) {
      const GraphModel::Edge& e = subModel.edges[ep.edge];
      scene_->addItem(new GraphEdgeItem(ep.path.translated(offset), ep.hasArrow, ep.arrowBase + offset, ep.arrowTip + offset, e.count));
      visible_.edges.push_back({visibleOfFull[members[e.from]], visibleOfFull[members[e.to]], e.count, e.label});
    }
    // The overview edges of this group attach to its frame: keep a visible index for them.
    GraphModel::Node frame = overview_.nodes[i];
    frame.cluster = -1;
    visible_.nodes.push_back(frame);
    visibleOfOverview[i] = static_cast<int>(visible_.nodes.size()) - 1;
  }
  // Clusters of ungrouped nodes (the whole e-graph when it is not collapsed).
  for (std::size_t c = 0; c < L.clusterRects.size() && c < overview_.clusters.size(); ++c) {
    if (L.clusterRects[c].isNull()) continue;
    scene_->addItem(new GraphClusterItem(L.clusterRects[c], overview_.clusters[c].label, overview_.clusters[c].highlighted,
                                         false, {-1, -1, static_cast<int>(c)}));
  }
  for (const GraphLayout::EdgePath& ep : L.edges) {
    const GraphModel::Edge& e = overview_.edges[ep.edge];
    scene_->addItem(new GraphEdgeItem(ep.path, ep.hasArrow, ep.arrowBase, ep.arrowTip, e.count));
    visible_.edges.push_back({visibleOfOverview[e.from], visibleOfOverview[e.to], e.count, e.label});
  }
  scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-20, -20, 20, 20));
  if (fitAfterLayout_) fitReadable();

  QString s;
  if (collapsed_) {
    s = tr("%1 nodes in %2 groups; %3 nodes hidden in %4 collapsed groups (double-click a group to expand)")
            .arg(full_.nodes.size())
            .arg(full_.groups.size())
            .arg(hidden_)
            .arg(full_.groups.size() - expanded_.size());
  } else {
    s = tr("%1 nodes, %2 edges").arg(full_.nodes.size()).arg(full_.edges.size());
  }
  setStatus(s);
}

int GraphView::nodeItemCount() const {
  int n = 0;
  for (QGraphicsItem* it : scene_->items())
    if (it->type() == GraphNodeItem::Type) ++n;
  return n;
}
int GraphView::edgeItemCount() const {
  int n = 0;
  for (QGraphicsItem* it : scene_->items())
    if (it->type() == GraphEdgeItem::Type) ++n;
  return n;
}
int GraphView::clusterItemCount() const {
  int n = 0;
  for (QGraphicsItem* it : scene_->items())
    if (it->type() == GraphClusterItem::Type) ++n;
  return n;
}

void GraphView::setStatus(const QString& s) {
  status_ = s;
  statusLabel_->setText(s);
  statusLabel_->setVisible(!s.isEmpty());
  statusLabel_->adjustSize();
  positionOverlays();
  emit statusChanged(s);
}

void GraphView::onSceneSelection() {
  const QList<QGraphicsItem*> sel = scene_->selectedItems();
  if (sel.isEmpty()) return;
  QGraphicsItem* it = sel.front();
  if (it->type() == GraphNodeItem::Type) {
    const GraphItemRef& r = static_cast<GraphNodeItem*>(it)->ref();
    if (r.node >= 0) emit nodeSelected(r.node);
    else if (r.group >= 0) emit groupSelected(r.group);
  } else if (it->type() == GraphClusterItem::Type) {
    const GraphItemRef& r = static_cast<GraphClusterItem*>(it)->ref();
    if (r.cluster >= 0) emit clusterSelected(r.cluster);
    else if (r.group >= 0) emit groupSelected(r.group);
  }
}

int GraphView::find(const QString& text) {
  for (GraphNodeItem* m : matches_) m->setMatched(false);
  matches_.clear();
  matchIndex_ = -1;
  if (text.isEmpty()) return 0;
  for (QGraphicsItem* it : scene_->items(Qt::AscendingOrder)) {
    if (it->type() != GraphNodeItem::Type) continue;
    auto* ni = static_cast<GraphNodeItem*>(it);
    bool hit = ni->label().contains(text, Qt::CaseInsensitive) || ni->toolTip().contains(text, Qt::CaseInsensitive);
    if (!hit && ni->ref().node < 0 && ni->ref().group >= 0) {
      // A collapsed group matches when any member does.
      for (int i = 0; i < static_cast<int>(full_.nodes.size()) && !hit; ++i)
        if (full_.groupOfNode(i) == ni->ref().group)
          hit = full_.nodes[i].label.contains(text, Qt::CaseInsensitive) || full_.nodes[i].tooltip.contains(text, Qt::CaseInsensitive);
    }
    if (hit) matches_.push_back(ni);
  }
  std::sort(matches_.begin(), matches_.end(), [](GraphNodeItem* a, GraphNodeItem* b) {
    const QPointF pa = a->boundingRect().center(), pb = b->boundingRect().center();
    return pa.y() != pb.y() ? pa.y() < pb.y() : pa.x() < pb.x();
  });
  for (GraphNodeItem* m : matches_) m->setMatched(true);
  if (!matches_.empty()) findNext();
  setStatus(matches_.empty() ? tr("no match for '%1'").arg(text) : tr("%1 matches for '%2'").arg(QString::number(matches_.size()), text));
  return static_cast<int>(matches_.size());
}

void GraphView::findNext() {
  if (matches_.empty()) return;
  matchIndex_ = (matchIndex_ + 1) % static_cast<int>(matches_.size());
  centerOn(matches_[matchIndex_]->boundingRect().center());
}

bool GraphView::selectNode(int node) {
  for (QGraphicsItem* it : scene_->items()) {
    if (it->type() != GraphNodeItem::Type) continue;
    auto* ni = static_cast<GraphNodeItem*>(it);
    if (ni->ref().node != node) continue;
    scene_->clearSelection();
    ni->setSelected(true);
    centerOn(ni->boundingRect().center());
    return true;
  }
  return false;
}

bool GraphView::selectKey(uint32_t key) {
  for (int i = 0; i < static_cast<int>(full_.nodes.size()); ++i)
    if (full_.nodes[i].key == key) return selectNode(i);
  return false;
}

void GraphView::zoomBy(double factor) {
  const double current = transform().m11();
  const double next = std::clamp(current * factor, 0.02, 8.0);
  scale(next / current, next / current);
}

void GraphView::fit() {
  if (scene_->items().isEmpty()) return;
  fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
  // A tiny graph should not be blown up to giant boxes.
  if (transform().m11() > 1.5) {
    resetTransform();
    scale(1.5, 1.5);
    centerOn(scene_->sceneRect().center());
  }
}

void GraphView::fitReadable() {
  fit();
  // A tall or wide graph fitted whole is a smear: keep boxes readable and start at the top.
  const QRectF r = scene_->sceneRect();
  if (transform().m11() >= 0.45 || r.isEmpty()) return;
  const double s = std::clamp(viewport()->width() / r.width(), 0.45, 1.0);
  resetTransform();
  scale(s, s);
  centerOn(QPointF(r.center().x(), r.top() + viewport()->height() / (2 * s)));
}

void GraphView::wheelEvent(QWheelEvent* e) {
  const double steps = e->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoomBy(std::pow(1.2, steps));
  e->accept();
}

void GraphView::keyPressEvent(QKeyEvent* e) {
  if (e->matches(QKeySequence::Find)) {
    showFindBar();
    return;
  }
  switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(1.25); return;
    case Qt::Key_Minus: zoomBy(0.8); return;
    case Qt::Key_0:
    case Qt::Key_F: fit(); return;
    case Qt::Key_F3: findNext(); return;
    case Qt::Key_Escape:
      findEdit_->hide();
      find(QString());
      return;
    default: break;
  }
  QGraphicsView::keyPressEvent(e);
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* e) {
  for (QGraphicsItem* it : items(e->pos())) {
    if (it->type() == GraphNodeItem::Type) {
      const GraphItemRef& r = static_cast<GraphNodeItem*>(it)->ref();
      if (r.node < 0 && r.group >= 0) {
        expandGroup(r.group);
        return;
      }
      break;
    }
    if (it->type() == GraphClusterItem::Type && static_cast<GraphClusterItem*>(it)->isGroup()) {
      collapseGroup(static_cast<GraphClusterItem*>(it)->ref().group);
      return;
    }
  }
  QGraphicsView::mouseDoubleClickEvent(e);
}

void GraphView::showFindBar() {
  findEdit_->show();
  positionOverlays();
  findEdit_->setFocus();
  findEdit_->selectAll();
}

void GraphView::resizeEvent(QResizeEvent* e) {
  QGraphicsView::resizeEvent(e);
  positionOverlays();
}

void GraphView::positionOverlays() {
  const QRect vp = viewport()->geometry();
  findEdit_->move(vp.right() - findEdit_->width() - 8, vp.top() + 8);
  statusLabel_->move(vp.left() + 6, vp.bottom() - statusLabel_->height() - 6);
}

bool GraphView::exportSvg(const QString& path) const {
  const QRectF r = scene_->sceneRect();
  QSvgGenerator gen;
  gen.setFileName(path);
  gen.setSize(r.size().toSize());
  gen.setViewBox(QRectF(QPointF(0, 0), r.size()));
  gen.setTitle("Kernelscope graph");
  QPainter p;
  if (!p.begin(&gen)) return false;
  scene_->render(&p, QRectF(QPointF(0, 0), r.size()), r);
  return p.end();
}

bool GraphView::exportPng(const QString& path) const {
  const QRectF r = scene_->sceneRect();
  const double scale = std::min(2.0, 8000.0 / std::max(1.0, std::max(r.width(), r.height())));
  QImage img((r.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32);
  img.fill(Qt::white);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  scene_->render(&p, QRectF(QPointF(0, 0), r.size() * scale), r);
  p.end();
  return img.save(path, "PNG");
}

bool GraphView::exportDot(const QString& path) const {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  QTextStream(&f) << visible_.toDot();
  return true;
}

bool GraphView::exportAny(const QString& path) const {
  const QString ext = QFileInfo(path).suffix().toLower();
  if (ext == "svg") return exportSvg(path);
  if (ext == "png") return exportPng(path);
  if (ext == "dot" || ext == "gv") return exportDot(path);
  return false;
}

}  // namespace ks
