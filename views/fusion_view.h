// The Fusion view: every kernelizer run of the compile (each candidate term, before and after AOT
// matching) to choose from, opening on the run the plan's kernels come from; the chosen run's
// steps as a table, stepped with buttons, a slider or the arrow keys; the kernels after the
// current step drawn as groups of classes with the step's change highlighted; an invariant
// violation shown at its step; and "why not fused" for two classes.
#pragma once
#include <QAbstractTableModel>
#include <QWidget>
#include <memory>

#include "engine/kernelizer/fusion_trace.h"
#include "engine/viz/picture.h"
#include "views/session_view.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QTableView;
class QToolButton;

namespace ks {

class GraphView;

// One row per fusion step: index, action, rule, reason, phase. The errorStep row is red.
class FusionStepModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Index, Action, Rule, Reason, Phase, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void setTrace(const FusionTrace* trace);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
  // The row the violation is shown on (-1 when the kernelizer finished).
  int errorRow() const;

 private:
  const FusionTrace* trace_ = nullptr;
};

class FusionView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit FusionView(SessionContext* context, QWidget* parent = nullptr);

  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection& s) override;

  // Shows a session's kernelizer runs, opening on the plan's (CompileTrace::shownRun).
  void showTrace(std::shared_ptr<const Session> session);
  // Shows run `run` of the session (clamped); the steps open on its final state.
  void showRun(int run);
  int currentRun() const { return run_; }  // -1 when there is none
  int runCount() const;
  QComboBox* runBox() const { return runs_; }

  int stepCount() const;
  int currentStep() const { return step_; }  // -1 when there are no steps
  void setStep(int step);                    // clamps; draws the state after that step
  void first() { setStep(0); }
  void prev() { setStep(step_ - 1); }
  void next() { setStep(step_ + 1); }
  void last() { setStep(stepCount() - 1); }

  // "Why not fused": asks the query worker why classes a and b are apart; the answer panel is
  // filled and `explained` emitted when it answers.
  void explain(uint32_t a, uint32_t b);
  void jumpToExplained();

  GraphView* graphView() const { return graph_; }
  QTableView* stepTable() const { return table_; }
  const FusionStepModel* stepModel() const { return model_; }
  QLabel* banner() const { return banner_; }
  QLabel* answer() const { return answer_; }
  QSlider* slider() const { return slider_; }
  int drawnKernelCount() const;  // clusters in the model drawn now
  // Every step's nodes in one picture (asked of the query worker when a trace is shown; null
  // until it answers): the graph draws each step in its layout, so no node moves between steps.
  const std::shared_ptr<const viz::Picture>& frame() const { return frame_; }

 signals:
  void explained(const Separation& separation);

 protected:
  void keyPressEvent(QKeyEvent* e) override;
  bool eventFilter(QObject* watched, QEvent* e) override;

 private:
  bool stepKey(int key);
  void redraw();
  void draw(viz::Picture picture);
  bool selectClass(uint32_t cls, bool reveal = true);
  void showExplanation(uint32_t a, uint32_t b, const Separation& sep);
  void onNodeSelected(int node);
  void fillClassCombos();
  void requestFrame();
  void fillRunBox();
  const Graph* shownGraph() const;

  SessionContext* context_;
  std::shared_ptr<const Session> session_;
  int run_ = -1;
  const FusionTrace* trace_ = nullptr;
  // The shown run's graph when its term's forms differ from the e-graph's structural nodes.
  std::shared_ptr<const Graph> runGraph_;
  FusionStepModel* model_;
  QComboBox* runs_;
  QTableView* table_;
  QToolButton* firstBtn_;
  QToolButton* prevBtn_;
  QToolButton* nextBtn_;
  QToolButton* lastBtn_;
  QSlider* slider_;
  QLabel* stepLabel_;
  QLabel* banner_;
  GraphView* graph_;
  QComboBox* classA_;
  QComboBox* classB_;
  QLabel* answer_;
  QPushButton* jump_;
  int step_ = -1;
  int explainedStep_ = -1;
  bool updating_ = false;
  std::optional<uint32_t> selectedClass_;
  std::shared_ptr<const viz::Picture> frame_;
};

}  // namespace ks
