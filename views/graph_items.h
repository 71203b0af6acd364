// The QGraphicsItems of a graph view: nodes, edges and cluster frames, each painting itself
// with level of detail (text only when it is readable at the current zoom).
#pragma once
#include <QGraphicsItem>
#include <QPainterPath>

#include "views/graph_model.h"

namespace ks {

// What a node item stands for: a node of the full model, or a collapsed/expanded group.
struct GraphItemRef {
  int node = -1;   // full-model node index
  int group = -1;  // group index (for group boxes and frames)
  int cluster = -1;
};

class GraphNodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 1 };
  GraphNodeItem(const QRectF& rect, const GraphModel::Node& node, GraphItemRef ref);
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  const GraphItemRef& ref() const { return ref_; }
  const QString& label() const { return label_; }
  void setMatched(bool m);
  bool matched() const { return matched_; }

 private:
  QRectF rect_;
  QString label_;
  GraphModel::Style style_;
  bool highlighted_;
  bool matched_ = false;
  GraphItemRef ref_;
};

class GraphEdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 2 };
  GraphEdgeItem(const QPainterPath& path, bool hasArrow, QPointF arrowBase, QPointF arrowTip, int count);
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  static QColor color();

 private:
  QPainterPath path_;
  QPolygonF arrow_;
  int count_;
  QRectF bounds_;
};

class GraphClusterItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };
  // A frame with a title: an e-class cluster, or an expanded group (isGroup).
  GraphClusterItem(const QRectF& rect, const QString& title, bool highlighted, bool isGroup, GraphItemRef ref);
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  const GraphItemRef& ref() const { return ref_; }
  bool isGroup() const { return isGroup_; }

 private:
  QRectF rect_;
  QString title_;
  bool highlighted_;
  bool isGroup_;
  GraphItemRef ref_;
};

}  // namespace ks
