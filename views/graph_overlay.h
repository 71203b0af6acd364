// GraphOverlay: the "colour by" state of one graph view -- what was measured for each node of
// its full picture, the metric chosen, whether values are shown -- and how that paints the node
// items. It only sets brushes and badges, so switching metrics never lays anything out again.
#pragma once
#include <QList>
#include <optional>
#include <vector>

#include "views/graph_items.h"
#include "views/heat_scale.h"

class QGraphicsItem;

namespace ks {

class GraphOverlay {
 public:
  // One entry per node of the full picture (viz::nodeMeasures gives exactly that).
  void setMeasures(std::vector<std::optional<viz::Measure>> measures) { measures_ = std::move(measures); }
  void clearMeasures() { measures_.clear(); }
  void setMetric(viz::Metric m) { metric_ = m; }
  void setShowValues(bool on) { showValues_ = on; }
  viz::Metric metric() const { return metric_; }
  bool showValues() const { return showValues_; }

  // The value of the chosen metric for a full-picture node; none when unmeasured.
  std::optional<double> valueOf(int node) const;
  // The scale spans every measured node of the full picture, shown or collapsed, so expanding a
  // group does not recolour the rest.
  HeatScale scale() const;
  int measuredCount() const;
  int nodeCount() const { return int(measures_.size()); }
  NodeOverlay overlayOf(int node, const HeatScale& scale) const;
  // Paints every GraphNodeItem among `items`.
  void apply(const QList<QGraphicsItem*>& items) const;

 private:
  std::vector<std::optional<viz::Measure>> measures_;
  viz::Metric metric_ = viz::Metric::None;
  bool showValues_ = false;
};

}  // namespace ks
