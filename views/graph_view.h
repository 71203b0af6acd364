// GraphView: draws a picture (engine/viz) laid out by the layout worker. Zoom (wheel, +/-), pan (drag),
// fit (F / 0), find (Ctrl+F), tooltips, selection, export (SVG, PNG, DOT). Large models with
// groups open collapsed: one box per group with its count; expanding a group lays out only its
// members and the (small) overview again, never the whole graph.
#pragma once
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QString>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "engine/viz/collapse.h"
#include "engine/viz/node_measures.h"
#include "views/graph_layout.h"
#include "views/graph_overlay.h"

class QLineEdit;
class QLabel;

namespace ks {

class GraphFrame;
class LayoutJob;
class GraphNodeItem;
class OverlayLegend;
class OverlayControls;

class GraphView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;

  // Shows `picture`; one with more than viz::kCollapseThreshold nodes and groups opens collapsed.
  // Layout runs on the layout worker; layoutFinished or layoutFailed follows. A previous layout
  // still running is cancelled and discarded.
  void setModel(viz::Picture picture);
  void clear();
  const viz::Picture& model() const { return full_; }
  // Shows `picture` with each node where `frame`'s layout put the node of the same id; the frame
  // (a picture holding every id of the pictures drawn in it) is laid out once, on the layout
  // worker, and kept while the same frame comes back. Stepping between pictures of one frame
  // moves no node and keeps the zoom and scroll: clusters are the box around their members,
  // edges the frame's splines. A picture the frame does not hold, one that would open
  // collapsed, or a frame that cannot be laid out, is drawn by setModel instead.
  void setModelInFrame(viz::Picture picture, std::shared_ptr<const viz::Picture> frame);
  // The picture shown is drawn in its frame (not laid out on its own).
  bool isFramed() const { return framed_; }

  bool isCollapsed() const { return view_.collapsed; }
  bool isExpanded(int group) const { return open_.count(group) > 0; }
  void expandGroup(int group);
  void collapseGroup(int group);
  bool isBusy() const;

  // What is on screen, as a flat picture (the DOT export and tests read it): exactly what
  // viz::collapse gives for the open groups, so `export --format json` lists the same.
  const viz::Picture& visibleModel() const { return view_.visible; }
  int hiddenNodeCount() const { return view_.hidden; }
  QString statusText() const { return status_; }
  int nodeItemCount() const;
  int edgeItemCount() const;
  int clusterItemCount() const;

  // Find: highlights every visible node (or collapsed group) whose label or tooltip contains
  // `text` and centres the first; returns the number of matches.
  int find(const QString& text);
  void findNext();
  // Selects the node of the full picture with this index (expanding nothing), centring it when
  // it is out of sight and `reveal` (else the view does not move).
  bool selectNode(int node, bool reveal = true);
  // Selects the node with this id, else the first one standing for `subject`.
  bool selectId(const std::string& id, bool reveal = true);
  bool selectSubject(viz::Subject subject, bool reveal = true);

  void zoomBy(double factor);
  void fit();
  // fit(), but never so small that labels cannot be read: then fits the width and shows the top.
  void fitReadable();

  // "Colour by": what was measured for each node of the current picture (viz::nodeMeasures of
  // model(); dropped with the picture by setModel and clear), the metric nodes are coloured by
  // (None: their own style) and whether each shows its value. Repaints only, never a layout.
  void setMeasures(std::vector<std::optional<viz::Measure>> measures);
  void setColourBy(viz::Metric metric);
  void setShowValues(bool on);
  const GraphOverlay& overlay() const { return overlay_; }
  const OverlayLegend* legend() const { return legend_; }
  // The "Colour by" combo and "Values" box, floating in the top-left corner; only views with
  // measured nodes (e-graph, plan) ask for them. Null until then.
  void showOverlayControls();
  OverlayControls* overlayControls() const { return overlayControls_; }

  // A session diff's marks, one per node of the current picture (diffMarks of model(); dropped
  // with the picture by setModel and clear). Repaints only, like the overlay.
  void setDiffMarks(std::vector<DiffMark> marks);
  const std::vector<DiffMark>& diffMarks() const { return diffMarks_; }
  // Node items on screen painted with `m`.
  int markedItemCount(DiffMark m) const;

  bool exportSvg(const QString& path) const;
  bool exportPng(const QString& path) const;
  bool exportDot(const QString& path) const;
  bool exportAny(const QString& path) const;  // by extension

 signals:
  void layoutStarted();
  void layoutFinished(double milliseconds);
  void layoutFailed(const QString& message);
  void nodeSelected(int node);  // full-picture node index
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
  void compose();
  void requestFrameLayout(std::shared_ptr<const viz::Picture> frame);
  void composeInFrame();
  void composeOpenGroup(int visibleNode, const QRectF& frame, std::vector<QPointF>& offsetOf);
  void onSceneSelection();
  void showFindBar();
  void positionOverlays();
  void setStatus(const QString& s);
  QString statusSummary() const;
  void applyOverlay();

  QGraphicsScene* scene_;
  viz::Picture full_;
  std::set<int> open_;                                            // groups shown open
  viz::CollapsedView view_;                                       // of full_ with open_
  std::shared_ptr<const GraphLayout> overviewLayout_;
  std::map<int, std::shared_ptr<const GraphLayout>> partLayouts_;  // open group -> layout of its part
  std::vector<std::shared_ptr<LayoutJob>> jobs_;
  bool fitAfterLayout_ = true;
  QString status_;
  quint64 generation_ = 0;
  QElapsedTimer timer_;
  int inFlight_ = 0;
  std::vector<GraphNodeItem*> matches_;
  int matchIndex_ = -1;
  QLineEdit* findEdit_;
  QLabel* statusLabel_;
  GraphOverlay overlay_;
  OverlayLegend* legend_;
  OverlayControls* overlayControls_ = nullptr;
  std::vector<DiffMark> diffMarks_;
  // The frame of setModelInFrame: its picture, its layout once known (null before, or when it
  // failed), the job laying it out (kept by clear(): a step does not restart it).
  std::shared_ptr<const viz::Picture> framePicture_;
  std::shared_ptr<const GraphFrame> frame_;
  std::shared_ptr<LayoutJob> frameJob_;
  bool frameFailed_ = false;
  bool frameFitted_ = false;  // fitted once; later steps keep the user's zoom and scroll
  bool framed_ = false;
};

}  // namespace ks
