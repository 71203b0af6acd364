// The Plan view: the execution plan's ordered launches and copies, the plan as a graph (launches
// grouped per device, copies between them, joined by the buffers they pass), its memory (peak per
// pool and what buffer reuse saved), and a timeline of the last run with one lane per device.
#pragma once
#include <QWidget>
#include <memory>

#include "engine/plan/timing_gap.h"
#include "views/session_view.h"

class QGraphicsScene;
class QSplitter;
class QGraphicsView;
class QLabel;
class QStandardItemModel;
class QTableView;

namespace ks {

class GraphView;

class PlanView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit PlanView(SessionContext* context, QWidget* parent = nullptr);

  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection& s) override;
  void comparisonChanged(const SessionSnapshot& s) override;
  // Marks the plan steps the other session's plan lacks or runs differently.
  void sessionsDiffed(const SessionPair& p) override;

  QTableView* table() const { return table_; }
  QStandardItemModel* model() const { return model_; }
  QLabel* memoryLabel() const { return memory_; }
  QGraphicsScene* timeline() const { return scene_; }
  int timelineBars() const { return bars_; }
  int timelineLanes() const { return lanes_; }
  GraphView* graphView() const { return graph_; }
  const TimingGap& gap() const { return gap_; }

 private:
  void buildTimeline();
  void showMeasured();
  void onRowSelected(int row);
  SessionContext* context_;
  std::shared_ptr<const Session> session_;
  QStandardItemModel* model_;
  QTableView* table_;
  QLabel* memory_;
  QGraphicsScene* scene_;
  QGraphicsView* timelineView_;
  GraphView* graph_;
  int bars_ = 0, lanes_ = 0;
  TimingGap gap_;
  bool updating_ = false;
};

}  // namespace ks
