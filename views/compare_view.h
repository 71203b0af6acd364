// The Compare view: the shown session (A) beside another (B) — a saved session, or the program
// compiled under other options. Per-kernel time deltas and plan-step changes as tables, the
// decisions that differ, and B's plan and e-graph with added and changed nodes marked (the main
// E-graph and Plan views mark A's removed and changed ones). Everything shown is the engine's
// SessionDiff; the view computes none of it.
#pragma once
#include <QWidget>
#include <memory>

#include "views/session_view.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace ks {

class DiffKernelsModel;
class DiffStepsModel;
class GraphView;

class CompareView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit CompareView(SessionContext* context, QWidget* parent = nullptr);

  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection&) override {}
  void sessionsDiffed(const SessionPair& p) override;

  const DiffKernelsModel* kernelsModel() const { return kernels_; }
  const DiffStepsModel* stepsModel() const { return steps_; }
  QTableView* kernelsTable() const { return kernelsTable_; }
  QSortFilterProxyModel* kernelsShown() const { return kernelsProxy_; }
  QLabel* summary() const { return summary_; }
  QLabel* decisions() const { return decisions_; }
  GraphView* planB() const { return planB_; }
  GraphView* egraphB() const { return egraphB_; }
  QTabWidget* tabs() const { return tabs_; }
  // Hides kernels the same in both (on by default: the changes are what a diff is for).
  void setChangedOnly(bool on);
  const SessionPair& pair() const { return pair_; }

 signals:
  // "Compare with…" was clicked: the window asks what to compare with.
  void compareRequested();

 private:
  void showDiff();
  void showSummary();
  void showDecisions();
  void clearDiff(const QString& text);
  QTableView* makeTable(QWidget* parent);

  SessionContext* context_;
  SessionPair pair_;
  QLabel* summary_;
  QPushButton* compareBtn_;
  QCheckBox* changedOnly_;
  QTabWidget* tabs_;
  DiffKernelsModel* kernels_;
  QSortFilterProxyModel* kernelsProxy_;
  QTableView* kernelsTable_;
  DiffStepsModel* steps_;
  QTableView* stepsTable_;
  QLabel* decisions_;
  GraphView* planB_;
  GraphView* egraphB_;
};

}  // namespace ks
