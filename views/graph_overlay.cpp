// GraphOverlay: per-node values of the chosen metric, their scale, and the items painted by it.
#include "views/graph_overlay.h"

#include <QGraphicsItem>

namespace ks {

std::optional<double> GraphOverlay::valueOf(int node) const {
  if (metric_ == viz::Metric::None || node < 0 || node >= int(measures_.size()) || !measures_[node]) return std::nullopt;
  return viz::metricValue(*measures_[node], metric_);
}

HeatScale GraphOverlay::scale() const {
  std::vector<double> values;
  for (int i = 0; i < int(measures_.size()); ++i)
    if (auto v = valueOf(i)) values.push_back(*v);
  return HeatScale::over(values);
}

int GraphOverlay::measuredCount() const {
  int n = 0;
  for (int i = 0; i < int(measures_.size()); ++i) n += valueOf(i).has_value();
  return n;
}

NodeOverlay GraphOverlay::overlayOf(int node, const HeatScale& scale) const {
  NodeOverlay o;
  if (metric_ == viz::Metric::None) return o;  // off: the style's own fill
  o.on = true;
  const std::optional<double> v = valueOf(node);
  o.measured = v.has_value();
  o.fill = v ? scale.colorOf(*v) : HeatScale::unmeasured();
  if (v && showValues_) o.value = formatMetric(metric_, *v);
  return o;
}

void GraphOverlay::apply(const QList<QGraphicsItem*>& items) const {
  const HeatScale s = scale();
  for (QGraphicsItem* it : items) {
    if (it->type() != GraphNodeItem::Type) continue;
    auto* node = static_cast<GraphNodeItem*>(it);
    node->setOverlay(overlayOf(node->ref().node, s));
  }
}

}  // namespace ks
