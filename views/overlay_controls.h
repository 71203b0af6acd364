// OverlayControls: the "Colour by" combo and "Values" check box above a graph view; they set the
// view's overlay and nothing else.
#pragma once
#include <QWidget>

#include "engine/viz/node_measures.h"

class QCheckBox;
class QComboBox;

namespace ks {

class GraphView;

class OverlayControls : public QWidget {
  Q_OBJECT
 public:
  OverlayControls(GraphView* target, QWidget* parent = nullptr);
  void setMetric(viz::Metric m);  // as if chosen in the combo
  void setShowValues(bool on);
  QComboBox* combo() const { return combo_; }
  QCheckBox* valuesBox() const { return values_; }

 private:
  GraphView* target_;
  QComboBox* combo_;
  QCheckBox* values_;
};

}  // namespace ks
