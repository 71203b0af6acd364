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

#include "engine/viz/picture_dot.h"
#include "views/graph_frame.h"
#include "views/graph_items.h"
#include "views/layout_worker.h"
#include "views/overlay_controls.h"
#include "views/overlay_legend.h"

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
  legend_ = new OverlayLegend(this);
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
  full_ = viz::Picture();
  open_.clear();
  view_ = viz::CollapsedView();
  overviewLayout_.reset();
  partLayouts_.clear();
  overlay_.clearMeasures();  // they were of the old picture; the chosen metric stays
  diffMarks_.clear();
  framed_ = false;
  applyOverlay();
  setStatus(QString());
}

bool GraphView::isBusy() const { return inFlight_ > 0 || (framed_ && !frame_ && !frameFailed_); }

void GraphView::setModel(viz::Picture picture) {
  clear();
  timer_.start();
  full_ = std::move(picture);
  fitAfterLayout_ = true;
  relayoutOverview();
}

void GraphView::setModelInFrame(viz::Picture picture, std::shared_ptr<const viz::Picture> frame) {
  if (!frame || (frameFailed_ && frame == framePicture_)) {
    setModel(std::move(picture));
    return;
  }
  if (frame != framePicture_) requestFrameLayout(frame);
  const bool holds = !frame_ || frame_->holds(picture);
  if (!holds || viz::collapse(picture, {}).collapsed) {
    setModel(std::move(picture));
    return;
  }
  // Keeps the transform and the scroll bars: the scene rect stays the frame's.
  clear();
  timer_.start();
  full_ = std::move(picture);
  view_ = viz::collapse(full_, open_);
  framed_ = true;
  if (frame_) composeInFrame();
}

void GraphView::requestFrameLayout(std::shared_ptr<const viz::Picture> frame) {
  if (frameJob_) frameJob_->cancel();
  framePicture_ = frame;
  frame_.reset();
  frameFailed_ = false;
  frameFitted_ = false;
  frameJob_ = LayoutWorker::instance().request(layoutInputOf(*frame), this, [this, frame](const LayoutResult& r) {
    if (frame != framePicture_) return;
    frameJob_.reset();
    if (!r.layout) {
      // Too large or failed: each picture is laid out on its own, as without a frame.
      frameFailed_ = true;
      emit layoutFailed(tr("frame: %1").arg(r.error));
      if (framed_) setModel(viz::Picture(full_));
      return;
    }
    frame_ = std::make_shared<GraphFrame>(frame, r.layout);
    if (!framed_) return;
    if (frame_->holds(full_)) composeInFrame();
    else setModel(viz::Picture(full_));
  });
}

// Like compose(), with every place taken from the frame: no layout runs, so a step draws at once.
void GraphView::composeInFrame() {
  scene_->clear();
  matches_.clear();
  matchIndex_ = -1;
  emit layoutStarted();
  for (int i = 0; i < int(full_.nodes.size()); ++i)
    scene_->addItem(new GraphNodeItem(frame_->nodeRect(full_.nodes[i]), full_.nodes[i], {i, -1, full_.nodes[i].cluster}));
  for (int c = 0; c < int(full_.clusters.size()); ++c) {
    const QRectF box = frame_->clusterRect(full_, c);
    if (box.isNull()) continue;
    const viz::Cluster& cl = full_.clusters[c];
    scene_->addItem(new GraphClusterItem(box, QString::fromStdString(cl.label), cl.highlighted, false, {-1, -1, c}));
  }
  for (const viz::Edge& e : full_.edges) {
    const GraphLayout::EdgePath ep = frame_->edgePath(full_, e);
    scene_->addItem(new GraphEdgeItem(ep.path, ep.hasArrow, ep.arrowBase, ep.arrowTip, e, QString::fromStdString(full_.nodes[e.from].id),
                                      QString::fromStdString(full_.nodes[e.to].id)));
  }
  applyOverlay();
  scene_->setSceneRect(frame_->bounds().adjusted(-40, -40, 40, 40));
  if (!frameFitted_) fitReadable();
  frameFitted_ = true;
  setStatus(statusSummary());
  emit layoutFinished(timer_.nsecsElapsed() / 1e6);
}

void GraphView::relayoutOverview() {
  view_ = viz::collapse(full_, open_);
  LayoutInput input = layoutInputOf(view_.overview);
  // An open group's node is its frame: as large as the layout of its part.
  for (const auto& [g, layout] : partLayouts_) {
    for (std::size_t i = 0; i < view_.overviewGroup.size(); ++i)
      if (view_.overviewGroup[i] == g)
        input.sizes[i] = QSizeF(layout->bounds.width() + 2 * kGroupPad, layout->bounds.height() + kGroupPad + kGroupTitle);
  }
  const quint64 gen = generation_;
  ++inFlight_;
  emit layoutStarted();
  jobs_.push_back(LayoutWorker::instance().request(std::move(input), this, [this, gen](const LayoutResult& r) {
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

void GraphView::expandGroup(int group) {
  if (!isCollapsed() || group < 0 || group >= static_cast<int>(full_.groups.size()) || open_.count(group)) return;
  const quint64 gen = generation_;
  ++inFlight_;
  emit layoutStarted();
  timer_.start();
  LayoutInput input = layoutInputOf(viz::groupPart(full_, group).picture);
  jobs_.push_back(LayoutWorker::instance().request(std::move(input), this, [this, gen, group](const LayoutResult& r) {
    if (gen != generation_) return;
    --inFlight_;
    if (!r.layout) {
      setStatus(tr("Layout of group failed: %1").arg(r.error));
      emit layoutFailed(r.error);
      return;
    }
    partLayouts_[group] = r.layout;
    open_.insert(group);
    fitAfterLayout_ = false;
    relayoutOverview();
  }));
}

void GraphView::collapseGroup(int group) {
  if (!open_.erase(group)) return;
  partLayouts_.erase(group);
  timer_.start();
  fitAfterLayout_ = false;
  relayoutOverview();
}

// The frame of an open group and the cluster frames of its part; where its members go.
void GraphView::composeOpenGroup(int visibleNode, const QRectF& frame, std::vector<QPointF>& offsetOf) {
  const viz::ShownNode& shown = view_.shownNodes[visibleNode];
  const int g = shown.group;
  const GraphLayout& sub = *partLayouts_.at(g);
  const viz::Picture& part = view_.open.at(g).picture;
  scene_->addItem(new GraphClusterItem(frame, QString::fromStdString(full_.groups[g].label) + tr("  (double-click to collapse)"),
                                       false, true, {-1, g, -1}, QString::fromStdString(full_.groups[g].id)));
  offsetOf[g] = frame.topLeft() + QPointF(kGroupPad, kGroupTitle) - sub.bounds.topLeft();
  for (std::size_t c = 0; c < part.clusters.size() && c < sub.clusterRects.size(); ++c) {
    if (sub.clusterRects[c].isNull()) continue;
    scene_->addItem(new GraphClusterItem(sub.clusterRects[c].translated(offsetOf[g]), QString::fromStdString(part.clusters[c].label),
                                         part.clusters[c].highlighted, false, {-1, g, -1}));
  }
}

void GraphView::compose() {
  scene_->clear();
  matches_.clear();
  matchIndex_ = -1;
  const GraphLayout& L = *overviewLayout_;
  const viz::Picture& vis = view_.visible;
  std::vector<QPointF> offsetOf(full_.groups.size());
  for (int i = 0; i < static_cast<int>(vis.nodes.size()); ++i) {
    const viz::ShownNode& s = view_.shownNodes[i];
    if (s.member >= 0) {
      const QRectF r = partLayouts_.at(s.group)->nodeRects[s.member].translated(offsetOf[s.group]);
      scene_->addItem(new GraphNodeItem(r, vis.nodes[i], {s.fullNode, s.group, vis.nodes[i].cluster}));
    } else if (s.group >= 0 && open_.count(s.group)) {
      composeOpenGroup(i, L.nodeRects[s.overviewNode], offsetOf);
    } else {
      viz::Node node = vis.nodes[i];
      if (s.group >= 0) node.tooltip += tr("; double-click to expand").toStdString();
      scene_->addItem(new GraphNodeItem(L.nodeRects[s.overviewNode], node, {s.fullNode, s.group, node.cluster}));
    }
  }
  // Clusters of ungrouped nodes (the whole picture when it is not collapsed).
  for (std::size_t c = 0; c < L.clusterRects.size() && c < view_.overview.clusters.size(); ++c) {
    if (L.clusterRects[c].isNull()) continue;
    const viz::Cluster& cl = view_.overview.clusters[c];
    scene_->addItem(new GraphClusterItem(L.clusterRects[c], QString::fromStdString(cl.label), cl.highlighted, false,
                                         {-1, -1, static_cast<int>(c)}));
  }
  std::vector<const GraphLayout::EdgePath*> overviewPath(view_.overview.edges.size(), nullptr);
  for (const GraphLayout::EdgePath& ep : L.edges) overviewPath[ep.edge] = &ep;
  std::map<int, std::vector<const GraphLayout::EdgePath*>> partPath;
  for (const auto& [g, layout] : partLayouts_) {
    auto& paths = partPath[g];
    paths.assign(view_.open.at(g).picture.edges.size(), nullptr);
    for (const GraphLayout::EdgePath& ep : layout->edges) paths[ep.edge] = &ep;
  }
  for (int e = 0; e < static_cast<int>(vis.edges.size()); ++e) {
    const viz::ShownEdge& se = view_.shownEdges[e];
    const GraphLayout::EdgePath* ep = se.group < 0 ? overviewPath[se.edge] : partPath[se.group][se.edge];
    if (!ep) continue;  // Graphviz drew no spline for it
    const QPointF off = se.group < 0 ? QPointF() : offsetOf[se.group];
    const viz::Edge& edge = vis.edges[e];
    scene_->addItem(new GraphEdgeItem(ep->path.translated(off), ep->hasArrow, ep->arrowBase + off, ep->arrowTip + off, edge,
                                      QString::fromStdString(vis.nodes[edge.from].id), QString::fromStdString(vis.nodes[edge.to].id)));
  }
  applyOverlay();  // before the scene rect, which then includes any value badges
  scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-20, -20, 20, 20));
  if (fitAfterLayout_) fitReadable();
  setStatus(statusSummary());
}

QString GraphView::statusSummary() const {
  if (!isCollapsed()) return tr("%1 nodes, %2 edges").arg(full_.nodes.size()).arg(full_.edges.size());
  return tr("%1 nodes in %2 groups; %3 nodes hidden in %4 collapsed groups (double-click a group to expand)")
      .arg(full_.nodes.size())
      .arg(full_.groups.size())
      .arg(view_.hidden)
      .arg(full_.groups.size() - open_.size());
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

void GraphView::setMeasures(std::vector<std::optional<viz::Measure>> measures) {
  overlay_.setMeasures(std::move(measures));
  applyOverlay();
}

void GraphView::setColourBy(viz::Metric metric) {
  overlay_.setMetric(metric);
  applyOverlay();
}

void GraphView::setShowValues(bool on) {
  overlay_.setShowValues(on);
  applyOverlay();
}

void GraphView::showOverlayControls() {
  if (overlayControls_) return;
  overlayControls_ = new OverlayControls(this, this);
  overlayControls_->show();
  positionOverlays();
}

void GraphView::setDiffMarks(std::vector<DiffMark> marks) {
  diffMarks_ = std::move(marks);
  applyOverlay();
}

int GraphView::markedItemCount(DiffMark m) const {
  int n = 0;
  for (QGraphicsItem* it : scene_->items())
    if (it->type() == GraphNodeItem::Type && static_cast<GraphNodeItem*>(it)->diffMark() == m) ++n;
  return n;
}

void GraphView::applyOverlay() {
  overlay_.apply(scene_->items());
  for (QGraphicsItem* it : scene_->items()) {
    if (it->type() != GraphNodeItem::Type) continue;
    auto* node = static_cast<GraphNodeItem*>(it);
    const int i = node->ref().node;
    node->setDiffMark(i >= 0 && i < int(diffMarks_.size()) ? diffMarks_[i] : DiffMark::Same);
  }
  const int measured = overlay_.measuredCount();
  legend_->setScale(overlay_.metric(), overlay_.scale(), measured, int(full_.nodes.size()) - measured);
  positionOverlays();
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
  // A collapsed group matches when any member does.
  std::vector<bool> groupHit(full_.groups.size(), false);
  if (isCollapsed()) {
    const std::string needle = text.toLower().toStdString();
    auto contains = [&needle](const std::string& hay) {
      return QString::fromStdString(hay).toLower().toStdString().find(needle) != std::string::npos;
    };
    for (int i = 0; i < static_cast<int>(full_.nodes.size()); ++i) {
      const int g = full_.groupOfNode(i);
      if (g >= 0 && !groupHit[g]) groupHit[g] = contains(full_.nodes[i].label) || contains(full_.nodes[i].tooltip);
    }
  }
  for (QGraphicsItem* it : scene_->items(Qt::AscendingOrder)) {
    if (it->type() != GraphNodeItem::Type) continue;
    auto* ni = static_cast<GraphNodeItem*>(it);
    bool hit = ni->label().contains(text, Qt::CaseInsensitive) || ni->toolTip().contains(text, Qt::CaseInsensitive);
    if (!hit && ni->ref().node < 0 && ni->ref().group >= 0) hit = groupHit[ni->ref().group];
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

bool GraphView::selectNode(int node, bool reveal) {
  for (QGraphicsItem* it : scene_->items()) {
    if (it->type() != GraphNodeItem::Type) continue;
    auto* ni = static_cast<GraphNodeItem*>(it);
    if (ni->ref().node != node) continue;
    scene_->clearSelection();
    ni->setSelected(true);
    // A node already in sight stays where the eye has it.
    if (reveal && !viewport()->rect().contains(mapFromScene(ni->boundingRect()).boundingRect()))
      centerOn(ni->boundingRect().center());
    return true;
  }
  return false;
}

bool GraphView::selectId(const std::string& id, bool reveal) {
  const int i = full_.findNode(id);
  return i >= 0 && selectNode(i, reveal);
}

bool GraphView::selectSubject(viz::Subject subject, bool reveal) {
  const int i = full_.findSubject(subject);
  return i >= 0 && selectNode(i, reveal);
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
  // Controls top-left and the key bottom-right: a graph fitted to the view starts at the top
  // centre, so the corners are where it is least in the way.
  if (overlayControls_) overlayControls_->move(vp.left() + 8, vp.top() + 8);
  legend_->move(vp.right() - legend_->width() - 8, vp.bottom() - legend_->height() - 8);
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
  QTextStream(&f) << QString::fromStdString(viz::toDot(view_.visible));
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
