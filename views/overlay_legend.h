// OverlayLegend: the corner key of a graph view's "colour by" overlay -- the metric, its ramp
// from min to max with units, and the swatch of nodes without a measurement.
#pragma once
#include <QWidget>

#include "views/heat_scale.h"

namespace ks {

class OverlayLegend : public QWidget {
  Q_OBJECT
 public:
  explicit OverlayLegend(QWidget* parent = nullptr);
  // Shows the key for `metric` over `scale`; hides itself for Metric::None.
  void setScale(viz::Metric metric, const HeatScale& scale, int measured, int unmeasured);
  // The texts drawn, for tests: "time (log)", "12.3 us", "53.0 ms".
  QString title() const { return title_; }
  QString minText() const { return min_; }
  QString maxText() const { return max_; }

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  QString title_, min_, max_, none_;
};

}  // namespace ks
