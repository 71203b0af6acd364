// The e-graph view: e-classes as clusters with their e-nodes, edges to operand classes, and a side
// panel for the selected class (its nodes, the extracted choice, costs and alternatives, and why the
// plan computes it that way, with measured times).
#pragma once
#include <QWidget>

#include "engine/viz/egraph_picture.h"
#include "views/session_view.h"

class QTreeWidget;
class QLabel;

namespace ks {

class GraphView;
class PlanWhyPanel;

class EGraphView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit EGraphView(SessionContext* context, QWidget* parent = nullptr);

  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection& s) override;
  void comparisonChanged(const SessionSnapshot& s) override;
  // Marks the classes the other session lacks or produces differently.
  void sessionsDiffed(const SessionPair& p) override;

  // Shows a program's graph with what extraction chose (null before extraction), as
  // `export --view egraph` draws it.
  // `rewrites` (optional): the merges of the rewrite stage, named on the e-nodes they added.
  void showGraph(std::shared_ptr<const Program> program, std::shared_ptr<const Extraction> extraction,
                 std::shared_ptr<const std::vector<RewriteStep>> rewrites = nullptr);
  GraphView* graphView() const { return graph_; }
  QTreeWidget* detailsPanel() const { return details_; }
  // Fills the side panel for one class; returns the number of e-nodes listed. The "why this plan"
  // panel is filled when the query worker answers.
  int showClass(uint32_t cls);
  PlanWhyPanel* whyPanel() const { return why_; }

 private:
  void onNodeSelected(int node);
  void askWhy(uint32_t cls);
  SessionContext* context_;
  GraphView* graph_;
  QTreeWidget* details_;
  QLabel* header_;
  PlanWhyPanel* why_;
  std::shared_ptr<const Session> session_;  // null for a bare program (showGraph)
  std::shared_ptr<const Program> program_;
  std::shared_ptr<const Extraction> extraction_;
  viz::ExtractionIndex index_;
  std::optional<uint32_t> pendingClass_;
};

}  // namespace ks
