// EGraphView: builds the model from the program's graph and keeps the side panel on the selection.
#include "views/egraph_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cstdint>

#include "engine/session/diff_marks.h"
#include "views/graph_view.h"
#include "views/plan_why_panel.h"
#include "views/session_measures.h"
#include "views/table_fit.h"

namespace ks {

EGraphView::EGraphView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  // The class table runs under the graph, as wide as it: e-node labels and "why" texts are long.
  auto* split = new QSplitter(Qt::Vertical, this);
  graph_ = new GraphView(split);
  graph_->showOverlayControls();
  auto* side = new QWidget(split);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->setContentsMargins(4, 4, 4, 4);
  header_ = new QLabel(tr("Select an e-class or e-node."), side);
  header_->setWordWrap(true);
  details_ = new QTreeWidget(side);
  details_->setColumnCount(3);
  details_->setHeaderLabels({tr("e-node"), tr("cost"), tr("why")});
  details_->setRootIsDecorated(false);
  details_->header()->setStretchLastSection(true);
  installEliding(details_);
  details_->setToolTip(tr("The e-nodes of the selected class; the extracted one is marked, with its cost "
                          "and the alternatives it beat."));
  why_ = new PlanWhyPanel(side);
  // Under the e-nodes: their labels and the producers' labels are long, so both get the full width.
  auto* sideSplit = new QSplitter(Qt::Vertical, side);
  sideSplit->addWidget(details_);
  sideSplit->addWidget(why_);
  sideSplit->setStretchFactor(0, 1);
  sideSplit->setStretchFactor(1, 1);
  sideLayout->addWidget(header_);
  sideLayout->addWidget(sideSplit, 1);
  split->addWidget(graph_);
  split->addWidget(side);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  split->setSizes({600, 260});
  side->setMinimumHeight(160);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
  connect(graph_, &GraphView::nodeSelected, this, &EGraphView::onNodeSelected);
  connect(graph_, &GraphView::clusterSelected, this, [this](int cluster) {
    const uint32_t cls = graph_->model().clusters[cluster].subject.id;
    showClass(cls);
    Selection s = context_ ? context_->selection() : Selection{};
    s.eclass = cls;
    if (context_) context_->select(s, this);
  });
  connect(graph_, &GraphView::layoutFinished, this, [this] {
    if (pendingClass_) {
      const uint32_t c = *pendingClass_;
      pendingClass_.reset();
      Selection s;
      s.eclass = c;
      selectionChanged(s);
    }
  });
}

void EGraphView::sessionLoaded(const SessionSnapshot& s) {
  std::shared_ptr<const Extraction> extraction;
  if (s.session && s.session->hasStage(Stage::Extracted)) extraction = {s.session, &s.session->trace().extraction};
  std::shared_ptr<const std::vector<RewriteStep>> rewrites;
  if (s.session) rewrites = {s.session, &s.session->trace().rewrite.report.steps};
  showGraph(s.program, extraction, rewrites);
  session_ = s.session;
  // The session arrives with its last run: the overlay's numbers are ready with the picture.
  if (s.session) graph_->setMeasures(sessionMeasures(graph_->model(), s));
}

// Peaks measured later (Devices view) change "% of peak"; the picture stays.
void EGraphView::comparisonChanged(const SessionSnapshot& s) {
  if (s.session && program_) graph_->setMeasures(sessionMeasures(graph_->model(), s));
}

void EGraphView::sessionsDiffed(const SessionPair& p) {
  const SessionSnapshot* shown = context_ ? context_->snapshot() : nullptr;
  if (!p.diff || !shown || shown->session != p.a) {
    graph_->setDiffMarks({});
    return;
  }
  graph_->setDiffMarks(diffMarks(graph_->model(), *p.a, *p.diff, DiffSideId::A));
}

void EGraphView::sessionClosed() {
  program_.reset();
  session_.reset();
  why_->clear();
  graph_->clear();
  details_->clear();
  header_->setText(tr("Nothing loaded."));
}

void EGraphView::showGraph(std::shared_ptr<const Program> program, std::shared_ptr<const Extraction> extraction,
                           std::shared_ptr<const std::vector<RewriteStep>> rewrites) {
  program_ = std::move(program);
  session_.reset();
  extraction_ = std::move(extraction);
  index_ = viz::ExtractionIndex(extraction_.get());
  details_->clear();
  why_->clear();
  if (!program_) {
    graph_->clear();
    return;
  }
  viz::EGraphPictureOptions opt;
  opt.extraction = extraction_.get();
  opt.outputs = program_->outputClasses();
  opt.places = &program_->places;
  opt.rewrites = rewrites.get();
  graph_->setModel(viz::egraphPicture(program_->graph, opt));
  header_->setText(tr("%1: %2 e-classes, %3 e-nodes")
                       .arg(QString::fromStdString(program_->name))
                       .arg(program_->graph.classCount())
                       .arg(program_->graph.nodeCount()));
}

void EGraphView::onNodeSelected(int node) {
  if (!program_) return;
  const viz::Subject& subject = graph_->model().nodes[node].subject;
  if (subject.kind != viz::SubjectKind::ENode) return;
  const uint32_t cls = program_->graph.classOf(NodeId(subject.id)).v;
  showClass(cls);
  if (!context_) return;
  Selection s = context_->selection();
  s.eclass = cls;
  context_->select(s, this);
}

int EGraphView::showClass(uint32_t cls) {
  details_->clear();
  if (!program_ || cls >= program_->graph.classCount()) return 0;
  const Graph& g = program_->graph;
  const EClass& ec = g.eclass(ClassId(cls));
  const std::string from = placesText(program_->places.of(g, ClassId(cls)));
  header_->setText(tr("e-class %1: %2%3, %4 e-node(s)")
                       .arg("%" + QString::number(cls), QString::fromStdString(std::string(dtypeName(ec.dtype))),
                            QString::fromStdString(shapeStr(ec.shape)), QString::number(ec.nodes.size())) +
                   (from.empty() ? QString() : tr(" — from %1").arg(QString::fromStdString(from))));
  auto chosen = index_.chosen.find(cls);
  auto reason = index_.why.find(cls);
  for (NodeId n : ec.nodes) {
    auto* item = new QTreeWidgetItem(details_);
    item->setText(0, QString("#%1 %2").arg(QString::number(n.v), QString::fromStdString(g.node(n).label())));
    auto cost = index_.costNs.find(n.v);
    if (cost != index_.costNs.end()) item->setText(1, QString::number(cost->second / 1e3, 'f', 2) + " us");
    const bool isChosen = chosen != index_.chosen.end() && chosen->second == n.v;
    if (isChosen) {
      item->setText(2, reason != index_.why.end() ? QString::fromStdString(reason->second) : tr("chosen: lowest cost"));
      QFont f = item->font(0);
      f.setBold(true);
      for (int c = 0; c < 3; ++c) item->setFont(c, f);
      item->setForeground(0, QColor("#d9480f"));
    } else if (chosen != index_.chosen.end()) {
      item->setText(2, tr("alternative"));
    }
    item->setToolTip(0, QString::fromStdString(viz::enodeLabel(g, n, index_)));
  }
  fitColumns(details_);
  askWhy(cls);
  return static_cast<int>(ec.nodes.size());
}

// explain-plan's answer for the class; it extracts the plan once more, so the query worker runs it.
void EGraphView::askWhy(uint32_t cls) {
  if (!session_ || !session_->hasStage(Stage::Planned)) {
    why_->showMessage(tr("Why this plan: compile to a plan to see why each class is computed the way it is."));
    return;
  }
  if (!session_->live()) {
    why_->showMessage(tr("Why this plan: a session opened from a file has no devices to extract its plan again on; "
                         "recompile it to see the runner-up and the cost without the chosen producer."));
    return;
  }
  if (!context_) return;
  why_->showMessage(tr("Why this plan: explaining %1…").arg("%" + QString::number(cls)));
  std::shared_ptr<const Session> session = session_;
  const std::string key = "plan-why " + std::to_string(reinterpret_cast<std::uintptr_t>(session.get())) + " " + std::to_string(cls);
  postQuery<PlanExplanation>(
      context_->queries(), RequestKind::PlanWhy, key, [session, cls] { return explainPlan(*session, ClassId(cls)); }, this,
      [this](const PlanExplanation& e) { why_->showExplanation(e); },
      [this, cls](const std::string& error) {
        why_->showMessage(tr("Why this plan for %1: %2").arg("%" + QString::number(cls), QString::fromStdString(error)));
      });
}

void EGraphView::selectionChanged(const Selection& s) {
  if (!program_ || !s.eclass) return;
  const uint32_t cls = *s.eclass;
  if (cls >= program_->graph.classCount()) return;
  showClass(cls);
  if (graph_->isBusy()) {
    pendingClass_ = cls;
    return;
  }
  const viz::Subject first{viz::SubjectKind::ENode, program_->graph.eclass(ClassId(cls)).nodes.front().v};
  if (graph_->selectSubject(first)) return;
  // Hidden in a collapsed group: expand that group, then select once it is laid out.
  const int i = graph_->model().findSubject(first);
  const int grp = i < 0 ? -1 : graph_->model().groupOfNode(i);
  if (grp >= 0 && !graph_->isExpanded(grp)) {
    pendingClass_ = cls;
    graph_->expandGroup(grp);
  }
}

}  // namespace ks
