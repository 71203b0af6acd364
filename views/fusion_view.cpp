// FusionView: steps the kernelizer's trace and draws each intermediate state through GraphView.
#include "views/fusion_view.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cstdint>
#include <set>

#include "engine/session/session_pictures.h"
#include "views/graph_view.h"
#include "views/table_fit.h"

namespace ks {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
QString classLabel(const Graph* g, uint32_t c) {
  QString s = "%" + QString::number(c);
  if (g && c < g->classCount() && !g->eclass(ClassId(c)).nodes.empty())
    s += " " + q(g->node(g->eclass(ClassId(c)).nodes.front()).label());
  return s;
}
}  // namespace

// ---- step table ----

void FusionStepModel::setTrace(const FusionTrace* trace) {
  beginResetModel();
  trace_ = trace;
  endResetModel();
}

int FusionStepModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !trace_ ? 0 : static_cast<int>(trace_->steps.size());
}

int FusionStepModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

int FusionStepModel::errorRow() const {
  if (!trace_ || trace_->error.empty() || trace_->steps.empty()) return -1;
  // errorStep counts the steps recorded before the failure: the last recorded one is where it shows
  // when the failing step itself was not recorded.
  return std::clamp<int>(trace_->errorStep, 0, static_cast<int>(trace_->steps.size()) - 1);
}

QVariant FusionStepModel::data(const QModelIndex& index, int role) const {
  if (!trace_ || !index.isValid() || index.row() >= rowCount()) return {};
  const FusionStep& s = trace_->steps[index.row()];
  const bool isError = index.row() == errorRow();
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Index: return s.index;
      case Action: return q(std::string(fusionActionName(s.action)));
      case Rule: return q(s.rule);
      case Reason: return q(s.reason);
      case Phase: return q(s.phase);
    }
  } else if (role == Qt::ToolTipRole) {
    // Class ids are concatenated, not passed through arg(): "%" followed by digits would be re-substituted.
    QString t = QString("step %1: %2 on ").arg(s.index).arg(q(std::string(fusionActionName(s.action)))) + "%" +
                QString::number(s.cls) + " (" + q(s.node) + ")\n" + q(s.reason);
    if (isError) t += "\n\nkernelizer stopped: " + q(trace_->error);
    return t;
  } else if (role == Qt::BackgroundRole && isError) {
    return QColor("#ffc9c9");
  } else if (role == Qt::ForegroundRole && isError) {
    return QColor("#c92a2a");
  }
  return {};
}

QVariant FusionStepModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"#", "action", "rule", "reason", "phase"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

// ---- the view ----

FusionView::FusionView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  model_ = new FusionStepModel(this);
  auto* split = new QSplitter(Qt::Horizontal, this);

  auto* left = new QWidget(split);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(4, 4, 4, 4);
  auto* runRow = new QHBoxLayout;
  runRow->addWidget(new QLabel(tr("Run:"), left));
  runs_ = new QComboBox(left);
  runs_->setToolTip(tr("Each kernelizer run of the compile: which candidate term, before or after AOT matching (GEMMs "
                       "as region boundaries), and how many kernels it made. The view opens on the run the plan's "
                       "kernels come from."));
  runRow->addWidget(runs_, 1);
  leftLayout->addLayout(runRow);
  auto* nav = new QHBoxLayout;
  auto mk = [&](const QString& text, const QString& tip) {
    auto* b = new QToolButton(left);
    b->setText(text);
    b->setToolTip(tip);
    nav->addWidget(b);
    return b;
  };
  firstBtn_ = mk("|◀", tr("First step (Home)"));
  prevBtn_ = mk("◀", tr("Previous step (Left)"));
  nextBtn_ = mk("▶", tr("Next step (Right)"));
  lastBtn_ = mk("▶|", tr("Last step (End)"));
  slider_ = new QSlider(Qt::Horizontal, left);
  slider_->setToolTip(tr("Fusion step"));
  nav->addWidget(slider_, 1);
  stepLabel_ = new QLabel(tr("no trace"), left);
  nav->addWidget(stepLabel_);
  leftLayout->addLayout(nav);

  banner_ = new QLabel(left);
  banner_->setWordWrap(true);
  banner_->setStyleSheet("QLabel { background: #ffe3e3; color: #c92a2a; border: 1px solid #c92a2a; padding: 4px; }");
  banner_->hide();
  leftLayout->addWidget(banner_);

  table_ = new QTableView(left);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(20);
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->horizontalHeader()->setSectionResizeMode(FusionStepModel::Reason, QHeaderView::Stretch);
  installEliding(table_);
  leftLayout->addWidget(table_, 1);

  auto* why = new QWidget(left);
  auto* whyLayout = new QVBoxLayout(why);
  whyLayout->setContentsMargins(0, 4, 0, 0);
  auto* whyRow = new QHBoxLayout;
  whyRow->addWidget(new QLabel(tr("Why not fused:"), why));
  classA_ = new QComboBox(why);
  classB_ = new QComboBox(why);
  classA_->setToolTip(tr("First class (click a node)"));
  classB_->setToolTip(tr("Second class (Ctrl+click a node)"));
  auto* explainBtn = new QPushButton(tr("Explain"), why);
  whyRow->addWidget(classA_, 1);
  whyRow->addWidget(classB_, 1);
  whyRow->addWidget(explainBtn);
  whyLayout->addLayout(whyRow);
  answer_ = new QLabel(why);
  answer_->setWordWrap(true);
  answer_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  jump_ = new QPushButton(tr("Go to step"), why);
  jump_->setEnabled(false);
  auto* ansRow = new QHBoxLayout;
  ansRow->addWidget(answer_, 1);
  ansRow->addWidget(jump_);
  whyLayout->addLayout(ansRow);
  leftLayout->addWidget(why);

  graph_ = new GraphView(split);
  split->addWidget(left);
  split->addWidget(graph_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setSizes({460, 700});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);

  connect(runs_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (!updating_ && i >= 0 && i != run_) showRun(i);
  });
  connect(firstBtn_, &QToolButton::clicked, this, [this] { first(); });
  connect(prevBtn_, &QToolButton::clicked, this, [this] { prev(); });
  connect(nextBtn_, &QToolButton::clicked, this, [this] { next(); });
  connect(lastBtn_, &QToolButton::clicked, this, [this] { last(); });
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (!updating_) setStep(v);
  });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
    if (!updating_ && cur.isValid()) setStep(cur.row());
  });
  connect(explainBtn, &QPushButton::clicked, this, [this] {
    if (classA_->currentIndex() >= 0 && classB_->currentIndex() >= 0)
      explain(classA_->currentData().toUInt(), classB_->currentData().toUInt());
  });
  connect(jump_, &QPushButton::clicked, this, &FusionView::jumpToExplained);
  connect(graph_, &GraphView::nodeSelected, this, &FusionView::onNodeSelected);
  // A step drawn in the frame keeps the view where it was: the selection follows without scrolling.
  connect(graph_, &GraphView::layoutFinished, this, [this] {
    if (selectedClass_) selectClass(*selectedClass_, !graph_->isFramed());
  });
  table_->installEventFilter(this);
  graph_->installEventFilter(this);
  slider_->installEventFilter(this);
  setFocusPolicy(Qt::StrongFocus);
  sessionClosed();
}

void FusionView::sessionLoaded(const SessionSnapshot& s) { showTrace(s.session); }

void FusionView::sessionClosed() {
  showTrace(nullptr);
  stepLabel_->setText(tr("no trace"));
}

void FusionView::showTrace(std::shared_ptr<const Session> session) {
  session_ = std::move(session);
  const CompileTrace* t = session_ ? &session_->trace() : nullptr;
  const KernelizerRun* shown = t ? t->shownRun() : nullptr;
  fillRunBox();
  run_ = -1;
  showRun(shown ? static_cast<int>(shown - t->fusionRuns.data()) : -1);
}

int FusionView::runCount() const { return session_ ? static_cast<int>(session_->trace().fusionRuns.size()) : 0; }

void FusionView::fillRunBox() {
  updating_ = true;
  runs_->clear();
  if (session_) {
    const CompileTrace& t = session_->trace();
    for (std::size_t i = 0; i < t.fusionRuns.size(); ++i) {
      const KernelizerRun& r = t.fusionRuns[i];
      QString text = tr("run %1: %2 — %3 kernels").arg(i).arg(q(runTitle(r))).arg(r.kernels.size());
      if (static_cast<int>(i) == t.planRun) text += tr(" (the plan's)");
      runs_->addItem(text, static_cast<int>(i));
    }
  }
  runs_->setEnabled(runs_->count() > 1);
  updating_ = false;
}

const Graph* FusionView::shownGraph() const { return runGraph_ ? runGraph_.get() : session_ ? &session_->graph() : nullptr; }

void FusionView::showRun(int run) {
  const int count = runCount();
  run = count == 0 ? -1 : std::clamp(run, 0, count - 1);
  run_ = run;
  const KernelizerRun* r = run >= 0 ? &session_->trace().fusionRuns[static_cast<std::size_t>(run)] : nullptr;
  trace_ = r ? &r->trace : nullptr;
  runGraph_.reset();
  QString graphNote;
  if (r && !r->forms.empty()) {
    try {
      runGraph_ = std::make_shared<const Graph>(runGraph(session_->graph(), *r));
    } catch (const Error& e) {
      // Drawn on the e-graph's forms instead: labels and edges are then those of the static best.
      graphNote = tr("This run's term could not be rebuilt (%1); its classes are drawn as the static best computes them.").arg(q(e.what()));
    }
  }
  updating_ = true;
  if (run >= 0) runs_->setCurrentIndex(run);
  updating_ = false;
  model_->setTrace(trace_);
  fitColumns(table_);
  step_ = -1;
  explainedStep_ = -1;
  frame_.reset();
  requestFrame();
  answer_->clear();
  jump_->setEnabled(false);
  updating_ = true;
  slider_->setRange(0, std::max(0, stepCount() - 1));
  slider_->setValue(0);
  updating_ = false;
  const bool failed = trace_ && !trace_->error.empty();
  banner_->setStyleSheet(failed ? "QLabel { background: #ffe3e3; color: #c92a2a; border: 1px solid #c92a2a; padding: 4px; }"
                                : "QLabel { background: #e7f5ff; color: #1864ab; border: 1px solid #1864ab; padding: 4px; }");
  if (failed) {
    banner_->setText(tr("Kernelizer invariant violated at step %1: %2").arg(trace_->errorStep).arg(q(trace_->error)));
    banner_->show();
  } else if (!graphNote.isEmpty()) {
    banner_->setText(graphNote);
    banner_->show();
  } else if (r && r->trace.steps.empty()) {
    // A blank view would look like a failure: AOT kernels computing everything is a result.
    banner_->setText(tr("This run fused nothing: AOT kernels (GEMMs) compute every class it needed. "
                        "Choose the run before AOT matching to see the fusion decisions."));
    banner_->show();
  } else {
    banner_->hide();
  }
  for (QWidget* w : std::initializer_list<QWidget*>{firstBtn_, prevBtn_, nextBtn_, lastBtn_, slider_})
    w->setEnabled(stepCount() > 0);
  fillClassCombos();
  if (stepCount() == 0) {
    graph_->clear();
    return;
  }
  // Open on the violation when there is one, else on the final state.
  setStep(model_->errorRow() >= 0 ? model_->errorRow() : stepCount() - 1);
}

int FusionView::stepCount() const { return trace_ ? static_cast<int>(trace_->steps.size()) : 0; }

void FusionView::setStep(int step) {
  if (stepCount() == 0) return;
  step = std::clamp(step, 0, stepCount() - 1);
  if (step == step_) return;
  step_ = step;
  updating_ = true;
  slider_->setValue(step);
  table_->selectRow(step);
  table_->scrollTo(model_->index(step, 0));
  updating_ = false;
  const FusionStep& s = trace_->steps[step];
  stepLabel_->setText(tr("step %1 / %2").arg(step).arg(stepCount() - 1));
  setToolTip(tr("%1: %2").arg(q(std::string(fusionActionName(s.action))), q(s.reason)));
  redraw();
  if (context_) {
    Selection sel = context_->selection();
    if (sel.fusionStep != static_cast<uint32_t>(step)) {
      sel.fusionStep = static_cast<uint32_t>(step);
      context_->select(sel, this);
    }
  }
}

void FusionView::redraw() {
  if (!trace_ || step_ < 0) return;
  const std::size_t run = static_cast<std::size_t>(run_);
  if (!context_) {  // no worker to ask (a view made for a test): drawn here
    draw(fusionPictureOf(session_->trace().fusionRuns[run], *shownGraph(), step_));
    return;
  }
  // Replaying the trace up to a step grows with the trace: the query worker builds the picture;
  // a newer step replaces a pending one, and a step seen before answers from the cache at once.
  std::shared_ptr<const Session> session = session_;
  const int step = step_;
  // The run's own graph when it has one; else the session's, kept alive by `session`.
  std::shared_ptr<const Graph> graph = runGraph_ ? runGraph_ : std::shared_ptr<const Graph>(session, &session->graph());
  const std::string key = "fusion step " + std::to_string(reinterpret_cast<std::uintptr_t>(session.get())) + " run " +
                          std::to_string(run) + " " + std::to_string(step);
  postQuery<viz::Picture>(
      context_->queries(), RequestKind::FusionStep, key,
      [session, run, graph, step] { return fusionPictureOf(session->trace().fusionRuns.at(run), *graph, step); }, this,
      [this, session, run, step](const viz::Picture& p) {
        if (session == session_ && static_cast<int>(run) == run_ && step == step_) draw(p);
      },
      [](const std::string&) {});
}

void FusionView::draw(viz::Picture picture) {
  if (frame_) graph_->setModelInFrame(std::move(picture), frame_);
  else graph_->setModel(std::move(picture));
}

void FusionView::requestFrame() {
  if (!context_ || !session_ || stepCount() == 0) return;
  std::shared_ptr<const Session> session = session_;
  const int run = run_;
  // The run's own graph when it has one; else the session's, kept alive by `session`.
  std::shared_ptr<const Graph> graph = runGraph_ ? runGraph_ : std::shared_ptr<const Graph>(session, &session->graph());
  const std::string key = "fusion frame " + std::to_string(reinterpret_cast<std::uintptr_t>(session.get())) + " run " + std::to_string(run);
  using FramePtr = std::shared_ptr<const viz::Picture>;
  // Without a frame each step is laid out on its own: the view still works, only less steadily.
  postQuery<FramePtr>(
      context_->queries(), RequestKind::FusionFrame, key,
      [session, run, graph] {
        return std::make_shared<const viz::Picture>(fusionFramePictureOf(session->trace().fusionRuns.at(static_cast<std::size_t>(run)), *graph));
      },
      this,
      [this, session, run](const FramePtr& f) {
        if (session != session_ || run != run_) return;
        frame_ = f;
        redraw();
      },
      [](const std::string&) {});
}

bool FusionView::selectClass(uint32_t cls, bool reveal) {
  // The node computing the class, else a load of it.
  return graph_->selectId("c" + std::to_string(cls), reveal) || graph_->selectSubject({viz::SubjectKind::EClass, cls}, reveal);
}

int FusionView::drawnKernelCount() const { return static_cast<int>(graph_->model().clusters.size()); }

void FusionView::fillClassCombos() {
  classA_->clear();
  classB_->clear();
  if (!trace_) return;
  std::set<uint32_t> classes;
  for (const auto& [id, k] : trace_->finalState()) {
    classes.insert(k.classes.begin(), k.classes.end());
    classes.insert(k.loads.begin(), k.loads.end());
  }
  const Graph* g = shownGraph();
  for (uint32_t c : classes) {
    classA_->addItem(classLabel(g, c), c);
    classB_->addItem(classLabel(g, c), c);
  }
}

void FusionView::explain(uint32_t a, uint32_t b) {
  if (!trace_ || !context_) return;
  if (int ia = classA_->findData(a); ia >= 0) classA_->setCurrentIndex(ia);
  if (int ib = classB_->findData(b); ib >= 0) classB_->setCurrentIndex(ib);
  answer_->setText(tr("Explaining…"));
  jump_->setEnabled(false);
  // Replaying the trace for a large program is slow: the query worker answers.
  std::shared_ptr<const Session> session = session_;
  const std::size_t run = static_cast<std::size_t>(run_);
  // The run's own graph when it has one; else the session's, kept alive by `session`.
  std::shared_ptr<const Graph> graph = runGraph_ ? runGraph_ : std::shared_ptr<const Graph>(session, &session->graph());
  const std::string key = "explain " + std::to_string(reinterpret_cast<std::uintptr_t>(session.get())) + " run " +
                          std::to_string(run) + " " + std::to_string(a) + " " + std::to_string(b);
  // A failed explanation is answered with its reason, never left at "Explaining…".
  postQuery<Separation>(
      context_->queries(), RequestKind::Explanation, key,
      [session, run, graph, a, b] {
        return session->trace().fusionRuns.at(run).trace.explainSeparation(ClassId(a), ClassId(b), graph.get());
      },
      this, [this, a, b](const Separation& sep) { showExplanation(a, b, sep); },
      [this, a, b](const std::string& error) {
        answer_->setText("%" + QString::number(a) + " and %" + QString::number(b) + tr(": cannot explain (%1)").arg(q(error)));
      });
}

void FusionView::showExplanation(uint32_t a, uint32_t b, const Separation& sep) {
  explainedStep_ = sep.step;
  const QString pair = "%" + QString::number(a) + " and %" + QString::number(b);
  QString text = pair + (sep.sameKernel ? tr(": same kernel.") : tr(": different kernels."));
  if (sep.step >= 0) text += tr(" Step %1 (%2).").arg(sep.step).arg(q(sep.rule));
  if (!sep.text.empty()) text += " " + q(sep.text);
  answer_->setText(text);
  jump_->setEnabled(sep.step >= 0 && sep.step < stepCount());
  emit explained(sep);
}

void FusionView::jumpToExplained() {
  if (explainedStep_ >= 0) setStep(explainedStep_);
}

void FusionView::onNodeSelected(int node) {
  if (node < 0 || node >= static_cast<int>(graph_->model().nodes.size())) return;
  const uint32_t cls = graph_->model().nodes[node].subject.id;
  const bool ctrl = QApplication::keyboardModifiers() & Qt::ControlModifier;
  QComboBox* box = ctrl ? classB_ : classA_;
  if (int i = box->findData(cls); i >= 0) box->setCurrentIndex(i);
  if (ctrl && classA_->currentIndex() >= 0) explain(classA_->currentData().toUInt(), cls);
  selectedClass_ = cls;
  if (context_) {
    Selection sel = context_->selection();
    sel.eclass = cls;
    context_->select(sel, this);
  }
}

void FusionView::selectionChanged(const Selection& s) {
  if (s.fusionStep && static_cast<int>(*s.fusionStep) != step_) setStep(static_cast<int>(*s.fusionStep));
  if (s.eclass && s.eclass != selectedClass_) {
    selectedClass_ = s.eclass;
    if (!graph_->isBusy()) selectClass(*s.eclass);  // else once the layout is done
  }
}

bool FusionView::stepKey(int key) {
  switch (key) {
    case Qt::Key_Left: prev(); return true;
    case Qt::Key_Right: next(); return true;
    case Qt::Key_Home: first(); return true;
    case Qt::Key_End: last(); return true;
  }
  return false;
}

void FusionView::keyPressEvent(QKeyEvent* e) {
  if (e->modifiers() == Qt::NoModifier && stepKey(e->key())) return;
  QWidget::keyPressEvent(e);
}

bool FusionView::eventFilter(QObject* watched, QEvent* e) {
  if (e->type() == QEvent::KeyPress) {
    auto* k = static_cast<QKeyEvent*>(e);
    if (k->modifiers() == Qt::NoModifier && stepKey(k->key())) return true;
  }
  return QWidget::eventFilter(watched, e);
}

}  // namespace ks
