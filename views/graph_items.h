// The QGraphicsItems of a graph view: nodes, edges and cluster frames, each painting itself
// with level of detail (text only when it is readable at the current zoom).
#pragma once
#include <QColor>
#include <QGraphicsItem>
#include <QPainterPath>

#include "engine/session/diff_marks.h"
#include "engine/viz/picture.h"

namespace ks {

// What a node item stands for: a node of the full picture, or a collapsed/expanded group.
struct GraphItemRef {
  int node = -1;   // full-picture node index
  int group = -1;  // group index (for group boxes and frames)
  int cluster = -1;
};

// What the "colour by" overlay paints on a node in place of its style's fill. Only brushes and
// the badge change: the node's rectangle stays where the layout put it.
struct NodeOverlay {
  bool on = false;        // an overlay metric is chosen
  bool measured = false;  // else the node is drawn grey and hatched
  QColor fill;
  QString value;  // the badge's text ("12.3 us"); empty: no badge
  bool operator==(const NodeOverlay&) const = default;
};

class GraphNodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 1 };
  GraphNodeItem(const QRectF& rect, const viz::Node& node, GraphItemRef ref);
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  const GraphItemRef& ref() const { return ref_; }
  const QString& label() const { return label_; }
  const QString& id() const { return id_; }  // the picture's node id
  void setMatched(bool m);
  bool matched() const { return matched_; }
  void setOverlay(const NodeOverlay& o);
  const NodeOverlay& overlay() const { return overlay_; }
  // Added, removed or changed in a compared session: a tinted fill, a coloured border and a tag.
  void setDiffMark(DiffMark m);
  DiffMark diffMark() const { return diffMark_; }
  static QColor diffBorder(DiffMark m);
  static QColor diffFill(DiffMark m);
  // The colour its box is filled with now (the find highlight, the overlay, or its style's).
  QColor fillColor() const;
  const QRectF& rect() const { return rect_; }  // where the layout put it

 private:
  QRectF badgeRect() const;
  void paintBadge(QPainter* p) const;
  QRectF rect_;
  QString label_;
  QString id_;
  viz::Style style_;
  bool highlighted_;
  bool matched_ = false;
  void paintDiffTag(QPainter* p) const;
  NodeOverlay overlay_;
  DiffMark diffMark_ = DiffMark::Same;
  GraphItemRef ref_;
};

class GraphEdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 2 };
  // `from` and `to` are the ids of the nodes (or group boxes and frames) it joins.
  GraphEdgeItem(const QPainterPath& path, bool hasArrow, QPointF arrowBase, QPointF arrowTip, const viz::Edge& edge,
                QString from, QString to);
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  static QColor color();
  const QString& from() const { return from_; }
  const QString& to() const { return to_; }
  int count() const { return count_; }

 private:
  QPainterPath path_;
  QPolygonF arrow_;
  int count_;
  bool memory_;
  QString from_, to_;
  QRectF bounds_;
};

class GraphClusterItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };
  // A frame with a title: a cluster, or an expanded group (isGroup; `id` is then the group's id).
  GraphClusterItem(const QRectF& rect, const QString& title, bool highlighted, bool isGroup, GraphItemRef ref,
                   QString id = {});
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  const GraphItemRef& ref() const { return ref_; }
  bool isGroup() const { return isGroup_; }
  const QString& id() const { return id_; }

 private:
  QRectF rect_;
  QString title_;
  QString id_;
  bool highlighted_;
  bool isGroup_;
  GraphItemRef ref_;
};

}  // namespace ks
