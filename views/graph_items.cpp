// Painting of graph nodes, edges and cluster frames with level of detail.
#include "views/graph_items.h"

#include <QFont>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QtMath>

#include "views/heat_scale.h"

namespace ks {

GraphNodeItem::GraphNodeItem(const QRectF& rect, const viz::Node& node, GraphItemRef ref)
    : rect_(rect),
      label_(QString::fromStdString(node.label)),
      id_(QString::fromStdString(node.id)),
      style_(node.style),
      highlighted_(node.highlighted),
      ref_(ref) {
  setToolTip(node.tooltip.empty() ? label_ : QString::fromStdString(node.tooltip));
  setFlag(ItemIsSelectable);
  setAcceptHoverEvents(true);
  setZValue(2);
}

namespace {
QFont badgeFont() {
  QFont f;
  f.setPointSizeF(8);
  return f;
}
}  // namespace

QRectF GraphNodeItem::boundingRect() const {
  const QRectF r = rect_.adjusted(-6, -8, 3, 3);  // the diff tag overhangs the top-left corner
  return overlay_.value.isEmpty() ? r : r.united(badgeRect().adjusted(-1, -1, 1, 1));
}

// The value badge sits on the node's top-right corner: edges meet a box at the middle of its top
// and bottom sides, so a corner hides none of them.
QRectF GraphNodeItem::badgeRect() const {
  const QFontMetricsF fm(badgeFont());
  const qreal w = fm.horizontalAdvance(overlay_.value) + 8, h = fm.height() + 2;
  return QRectF(rect_.right() - w + 6, rect_.top() - h + 5, w, h);
}

void GraphNodeItem::setOverlay(const NodeOverlay& o) {
  if (o == overlay_) return;
  prepareGeometryChange();  // the badge may widen the bounds; the node itself does not move
  overlay_ = o;
  update();
}

void GraphNodeItem::setDiffMark(DiffMark m) {
  if (m == diffMark_) return;
  diffMark_ = m;
  update();
}

QColor GraphNodeItem::diffBorder(DiffMark m) {
  switch (m) {
    case DiffMark::Added: return QColor("#2f9e44");
    case DiffMark::Removed: return QColor("#e03131");
    case DiffMark::Changed: return QColor("#f08c00");
    case DiffMark::Same: break;
  }
  return QColor();
}

QColor GraphNodeItem::diffFill(DiffMark m) {
  switch (m) {
    case DiffMark::Added: return QColor("#d3f9d8");
    case DiffMark::Removed: return QColor("#ffe3e3");
    case DiffMark::Changed: return QColor("#fff3bf");
    case DiffMark::Same: break;
  }
  return QColor();
}

// "+", "-" or "~" on the top-left corner (the value badge has the top-right one), so the mark
// still reads where colours do not (print, colour blindness).
void GraphNodeItem::paintDiffTag(QPainter* p) const {
  static const char* kTag[] = {"", "+", "\u2212", "~"};
  const QRectF t(rect_.left() - 5, rect_.top() - 7, 14, 14);
  p->setPen(Qt::NoPen);
  p->setBrush(diffBorder(diffMark_));
  p->drawEllipse(t);
  QFont f = p->font();
  f.setPointSizeF(8);
  f.setBold(true);
  p->setFont(f);
  p->setPen(Qt::white);
  p->drawText(t, Qt::AlignCenter, QString::fromUtf8(kTag[static_cast<int>(diffMark_)]));
}

QColor GraphNodeItem::fillColor() const {
  if (matched_) return QColor("#fff9db");
  if (overlay_.on) return overlay_.fill;
  if (diffMark_ != DiffMark::Same) return diffFill(diffMark_);
  return QColor(viz::paletteOf(style_).fill);
}

void GraphNodeItem::paintBadge(QPainter* p) const {
  const QRectF b = badgeRect();
  p->setPen(QPen(QColor("#495057"), 1.0));
  p->setBrush(QColor(255, 255, 255, 240));
  p->drawRoundedRect(b, 3, 3);
  p->setFont(badgeFont());
  p->setPen(QColor("#212529"));
  p->drawText(b, Qt::AlignCenter, overlay_.value);
}

void GraphNodeItem::setMatched(bool m) {
  if (m == matched_) return;
  matched_ = m;
  update();
}

void GraphNodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const qreal lod = option->levelOfDetailFromTransform(p->worldTransform());
  const viz::Palette palette = viz::paletteOf(style_);
  const bool strong = highlighted_ || style_ == viz::Style::Chosen;
  QColor border = highlighted_ ? QColor(viz::kHighlightColor) : QColor(palette.border);
  qreal width = strong ? 2.0 : 1.0;
  if (matched_) {
    border = QColor("#f59f00");
    width = 3.0;
  }
  if (diffMark_ != DiffMark::Same && !matched_) {
    border = diffBorder(diffMark_);
    width = 3.0;
  }
  if (isSelected()) {
    border = QColor("#1c7ed6");
    width = 3.0;
  }
  p->setPen(QPen(border, width));
  const QColor fill = fillColor();
  p->setBrush(fill);
  if (lod < 0.3) {  // far away: a plain block is all that can be seen
    p->drawRect(rect_);
    return;
  }
  if (style_ == viz::Style::Group) {
    // A stack of cards says "there is more inside".
    p->drawRoundedRect(rect_.translated(3, -3), 4, 4);
  }
  p->drawRoundedRect(rect_, 4, 4);
  if (overlay_.on && !overlay_.measured && !matched_) {
    // Hatched grey: "no measurement" must not read as "the lightest value".
    p->setPen(Qt::NoPen);
    p->setBrush(QBrush(QColor("#adb5bd"), Qt::BDiagPattern));
    p->drawRoundedRect(rect_, 4, 4);
  }
  if (!overlay_.value.isEmpty()) paintBadge(p);
  if (diffMark_ != DiffMark::Same) paintDiffTag(p);
  QFont f = p->font();
  f.setPointSizeF(9);
  f.setBold(true);
  p->setFont(f);
  p->setPen(overlay_.on ? HeatScale::textOn(fill) : QColor("#212529"));
  const int nl = label_.indexOf('\n');
  if (lod < 0.7 || nl < 0) {
    p->drawText(rect_, Qt::AlignCenter, nl < 0 ? label_ : label_.left(nl));
    return;
  }
  const QRectF inner = rect_.adjusted(4, 4, -4, -4);
  p->drawText(inner, Qt::AlignHCenter | Qt::AlignTop, label_.left(nl));
  f.setBold(false);
  p->setFont(f);
  const qreal lineH = QFontMetricsF(f).height();
  p->drawText(inner.adjusted(0, lineH, 0, 0), Qt::AlignHCenter | Qt::AlignTop, label_.mid(nl + 1));
}

QColor GraphEdgeItem::color() { return QColor("#5c6770"); }

GraphEdgeItem::GraphEdgeItem(const QPainterPath& path, bool hasArrow, QPointF base, QPointF tip, const viz::Edge& edge,
                             QString from, QString to)
    : path_(path), count_(edge.count), memory_(edge.memory), from_(std::move(from)), to_(std::move(to)) {
  if (hasArrow) {
    const QLineF l(base, tip);
    const qreal len = std::max<qreal>(l.length(), 1e-3);
    const QPointF dir = (tip - base) / len, normal(-dir.y(), dir.x());
    arrow_ << tip << base + normal * 3.5 << base - normal * 3.5;
    path_.lineTo(base);
  }
  bounds_ = path_.boundingRect().united(arrow_.boundingRect()).adjusted(-4, -4, 4, 4);
  setZValue(1);
  if (count_ > 1) setToolTip(QString("%1 edges").arg(count_));
  else if (!edge.label.empty()) setToolTip(QString::fromStdString(edge.label));
}

QRectF GraphEdgeItem::boundingRect() const { return bounds_; }

void GraphEdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const qreal lod = option->levelOfDetailFromTransform(p->worldTransform());
  const qreal w = count_ > 1 ? std::min(4.0, 1.0 + count_ / 8.0) : 1.0;
  p->setPen(QPen(color(), w, memory_ ? Qt::DashLine : Qt::SolidLine));
  p->setBrush(Qt::NoBrush);
  p->drawPath(path_);
  if (!arrow_.isEmpty() && lod >= 0.3) {
    p->setBrush(color());
    p->drawPolygon(arrow_);
  }
}

GraphClusterItem::GraphClusterItem(const QRectF& rect, const QString& title, bool highlighted, bool isGroup,
                                   GraphItemRef ref, QString id)
    : rect_(rect), title_(title), id_(std::move(id)), highlighted_(highlighted), isGroup_(isGroup), ref_(ref) {
  setToolTip(title);
  setZValue(isGroup ? -1 : 0);
  setFlag(ItemIsSelectable);
}

QRectF GraphClusterItem::boundingRect() const { return rect_.adjusted(-2, -2, 2, 2); }

void GraphClusterItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const qreal lod = option->levelOfDetailFromTransform(p->worldTransform());
  QColor border = isGroup_ ? QColor("#087f5b") : QColor("#adb5bd");
  if (highlighted_) border = QColor(viz::kHighlightColor);
  if (isSelected()) border = QColor("#1c7ed6");
  p->setPen(QPen(border, isSelected() || highlighted_ ? 2.0 : 1.0, isGroup_ ? Qt::DashLine : Qt::SolidLine));
  p->setBrush(isGroup_ ? QColor(230, 252, 245, 90) : QColor(248, 249, 250));
  p->drawRoundedRect(rect_, 6, 6);
  if (lod < 0.5) return;
  QFont f = p->font();
  f.setPointSizeF(8.5);
  p->setFont(f);
  p->setPen(QColor("#495057"));
  p->drawText(rect_.adjusted(6, 2, -6, 0), Qt::AlignLeft | Qt::AlignTop, title_);
}

}  // namespace ks
