// The Rewrites view: how equality saturation grew the e-graph — one row per rule per round
// (matches, merges, e-nodes and classes added, time), why the runner stopped, and a chart of the
// e-nodes each rule added per round.
#pragma once
#include <QWidget>
#include <memory>

#include "views/session_view.h"

class QChartView;
class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace ks {

class RewriteRowsFilter;
class RewritesModel;

class RewritesView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit RewritesView(SessionContext* context, QWidget* parent = nullptr);

  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection&) override {}
  void ruleAblated(const RuleAblation& a) override;

  RewritesModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  QCheckBox* hideIdleBox() const { return hideIdle_; }
  QLineEdit* ruleFilter() const { return ruleFilter_; }
  QLabel* summary() const { return summary_; }
  QChartView* chart() const { return chart_; }
  QPushButton* recompileButton() const { return recompile_; }
  // The two plans side by side after "Recompile without this rule" ("" before).
  QLabel* comparison() const { return comparison_; }
  // The rule of the selected row ("" when none is selected).
  QString selectedRule() const;

 private:
  void redrawChart();
  void updateButton();
  void updateFilterLabel();
  void recompileWithoutSelected();
  SessionContext* context_;
  std::shared_ptr<const Session> session_;
  RewritesModel* model_;
  RewriteRowsFilter* proxy_;
  QTableView* table_;
  QLabel* summary_;
  QCheckBox* hideIdle_;
  QLineEdit* ruleFilter_;
  QChartView* chart_;
  QPushButton* recompile_;
  QLabel* comparison_;
  QString pendingRule_;  // asked for and not answered yet
};

}  // namespace ks
