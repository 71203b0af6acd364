// OverlayControls: one combo entry per viz::Metric, in the enum's order.
#include "views/overlay_controls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include "views/graph_view.h"
#include "views/heat_scale.h"

namespace ks {

OverlayControls::OverlayControls(GraphView* target, QWidget* parent) : QWidget(parent), target_(target) {
  // It floats over the graph: an opaque panel keeps it legible above nodes and edges.
  setAutoFillBackground(true);
  setStyleSheet("ks--OverlayControls { background: rgba(255,255,255,235); border: 1px solid #dee2e6; border-radius: 3px; }");
  setAttribute(Qt::WA_StyledBackground);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(4, 2, 4, 2);
  auto* label = new QLabel(tr("Colour by"), this);
  combo_ = new QComboBox(this);
  for (int m = 0; m < viz::kNumMetrics; ++m) combo_->addItem(metricName(viz::Metric(m)), m);
  combo_->setToolTip(tr("Colour nodes by what the last run (else the autotuner) measured for them; "
                        "darker is more, grey and hatched is not measured"));
  label->setBuddy(combo_);
  values_ = new QCheckBox(tr("Values"), this);
  values_->setToolTip(tr("Show the measured value on each node"));
  values_->setEnabled(false);  // a value needs a metric
  row->addWidget(label);
  row->addWidget(combo_);
  row->addWidget(values_);
  adjustSize();
  connect(combo_, &QComboBox::currentIndexChanged, this, [this](int i) {
    const auto m = viz::Metric(combo_->itemData(i).toInt());
    values_->setEnabled(m != viz::Metric::None);
    target_->setColourBy(m);
  });
  connect(values_, &QCheckBox::toggled, this, [this](bool on) { target_->setShowValues(on); });
}

void OverlayControls::setMetric(viz::Metric m) { combo_->setCurrentIndex(combo_->findData(int(m))); }

void OverlayControls::setShowValues(bool on) { values_->setChecked(on); }

}  // namespace ks
