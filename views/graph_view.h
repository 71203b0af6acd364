// GraphView: draws a GraphModel laid out by the layout worker. Zoom (wheel, +/-), pan (drag),
// fit (F / 0), find (Ctrl+F), tooltips, selection, export (SVG, PNG, DOT). Large models with
// groups open collapsed: one box per group with its count; expanding a group lays out only its
// members and the (small) overview again, never the whole graph.
#pragma once
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QSet>
#include <QString>
#include <map>
#include <memory>
#include <vector>

#include "views/graph_layout.h"
#include "views/graph_model.h"

class QLineEdit;
class QLabel;

namespace ks {

class LayoutJob;
class GraphNodeItem;

class GraphView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;

  // Models with more nodes than this (and with groups) open collapsed.
  static constexpr int kCollapseThreshold = 400;

  // Shows `model` (node sizes must be set). Layout runs on the layout worker; layoutFinished
  // or layoutFailed follows. A previous layout still running is cancelled and discarded.
  void setModel(GraphModel model);
  void clear();
  const GraphModel& model() const { return full_; }

  bool isCollapsed() const { return collapsed_; }
  bool isExpanded(int group) const { return expanded_.count(group) > 0; }
  void expandGroup(int group);
  void collapseGroup(int group);
  bool isBusy() const;

  // What is on screen, as a flat model (the DOT export and tests read it).
  const GraphModel& visibleModel() const { return visible_; }
  int hiddenNodeCount() const { return hidden_; }
  QString statusText() const { return status_; }
  int nodeItemCount() const;
  int edgeItemCount() const;
  int clusterItemCount() const;

  // Find: highlights every visible node (or collapsed group) whose label or tooltip contains
  // `text` and centres the first; returns the number of matches.
  int find(const QString& text);
  void findNext();
  // Selects and centres the node of the full model with this index (expanding nothing).
  bool selectNode(int node);
  // Selects the first node whose key is `key` (e.g. an e-node id).
  bool selectKey(uint32_t key);

  void zoomBy(double factor);
  void fit();
  // fit(), but never so small that labels cannot be read: then fits the width and shows the top.
  void fitReadable();

  bool exportSvg(const QString& path) const;
  bool exportPng(const QString& path) const;
  bool exportDot(const QString& path) const;
  bool exportAny(const QString& path) const;  // by extension

 signals:
  void layoutStarted();
  void layoutFinished(double milliseconds);
  void layoutFailed(const QString& message);
  void nodeSelected(int node);  // full-model node index
  void clusterSelected(int cluster);
  void groupSelected(int group);
  void statusChanged(const QString& status);

 protected:
  void wheelEvent(QWheelEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  void relayoutOverview();
  void requestGroupLayout(int group);
  void compose();
  void onSceneSelection();
  void showFindBar();
  void positionOverlays();
  GraphModel groupModel(int group, std::vector<int>* memberOf) const;
  void setStatus(const QString& s);

  QGraphicsScene* scene_;
  GraphModel full_;
  GraphModel overview_;            // collapsed: one node per group (+ ungrouped nodes)
  std::vector<int> overviewNodeOf_;  // full node -> overview node
  std::vector<int> overviewGroupOf_;  // overview node -> group (or -1)
  std::vector<int> overviewFullNode_;  // overview node -> full node (or -1 for groups)
  std::vector<int> groupSize_;
  std::shared_ptr<const GraphLayout> overviewLayout_;
  std::map<int, std::shared_ptr<const GraphLayout>> expanded_;  // group -> layout of its members
  std::vector<std::shared_ptr<LayoutJob>> jobs_;
  GraphModel visible_;
  bool collapsed_ = false;
  bool fitAfterLayout_ = true;
  int hidden_ = 0;
  QString status_;
  quint64 generation_ = 0;
  QElapsedTimer timer_;
  int inFlight_ = 0;
  std::vector<GraphNodeItem*> matches_;
  int matchIndex_ = -1;
  QLineEdit* findEdit_;
  QLabel* statusLabel_;
};

}  // namespace ks
