// The "why this plan" panel of one e-class: explain-plan's numbers (the chosen producer and its
// measured time, the runner-up and its time, the plan's DAG cost without the chosen producer).
#pragma once
#include <QWidget>

#include "engine/session/plan_explanation.h"

class QLabel;
class QTreeWidget;

namespace ks {

class PlanWhyPanel : public QWidget {
  Q_OBJECT
 public:
  enum Row { Chosen, RunnerUp, Without, RowCount };
  enum Column { What, Producer, OwnMs, TreeMs, ColumnCount };
  explicit PlanWhyPanel(QWidget* parent = nullptr);

  // Shows what the engine answered for a class.
  void showExplanation(const PlanExplanation& e);
  // Shows a line instead of numbers: the question is being answered, or has no answer.
  void showMessage(const QString& text);
  void clear();

  QLabel* header() const { return header_; }
  QTreeWidget* table() const { return table_; }

 private:
  QLabel* header_;
  QTreeWidget* table_;
};

// Milliseconds with three decimals, as `explain-plan` prints them.
QString planMs(double ns);

}  // namespace ks
