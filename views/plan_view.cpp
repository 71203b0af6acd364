// PlanView: table rows straight from ExecPlan::steps (kernel entries give schedule and predicted
// time), memory from the plan's pools, timeline from the last RunRecord's step timings.
#include "views/plan_view.h"

#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <map>

#include "engine/plan/timing_gap.h"
#include "engine/session/session_pictures.h"
#include "engine/session/diff_marks.h"
#include "views/graph_view.h"
#include "views/session_measures.h"
#include "views/table_export.h"
#include "views/table_fit.h"

namespace ks {

namespace {
constexpr int KernelRole = Qt::UserRole + 2;  // fused kernel index, -1 for copies and GEMMs

QString bytesText(int64_t b) {
  if (b >= (1 << 20)) return QString("%1 MiB").arg(b / double(1 << 20), 0, 'f', 2);
  if (b >= 1024) return QString("%1 KiB").arg(b / 1024.0, 0, 'f', 1);
  return QString("%1 B").arg(b);
}
// Every candidate plan the session measured, the kept one marked, and why it won.
QString candidatesText(const PlanChoice& c) {
  if (c.candidates.empty()) return {};
  QString s = "\n" + QObject::tr("plan chosen by measurement: %1").arg(QString::fromStdString(c.why));
  const PlanCandidate* kept = c.chosen >= 0 ? &c.candidates.at(static_cast<std::size_t>(c.chosen)) : nullptr;
  for (const PlanCandidate& x : c.candidates) {
    s += "\n  " + QString(x.chosen ? "* " : "  ") + QString::fromStdString(x.devices) +
         (x.blasThreads ? QObject::tr(" (OpenBLAS 1 thread)") : QString()) +
         (x.variant.empty() ? QString() : " " + QObject::tr("[local search: %1]").arg(QString::fromStdString(x.variant))) +
         QObject::tr(": predicted %1 us, measured %2").arg(x.predictedNs / 1e3, 0, 'f', 1)
             .arg(x.measuredNs >= 0 ? QObject::tr("%1 us over %2 runs").arg(x.measuredNs / 1e3, 0, 'f', 1).arg(x.runs)
                                    : QString::fromStdString(x.note));
    const std::string differs = kept && kept != &x ? planDifference(x, *kept) : "";
    if (!differs.empty()) s += "\n      " + QObject::tr("vs the kept plan: %1").arg(QString::fromStdString(differs));
  }
  if (!c.policy.empty()) s += "\n" + QString::fromStdString(c.policy);
  return s;
}
}  // namespace

PlanView::PlanView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  model_ = new QStandardItemModel(0, 8, this);
  model_->setHorizontalHeaderLabels(
      {"#", "kind", "label", "device", "schedule", "predicted (us)", "measured (us)", "measured / predicted"});
  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  installEliding(table_);
  addCsvExport(table_, "plan.csv");
  memory_ = new QLabel(tr("Nothing planned."), this);
  memory_->setWordWrap(true);
  memory_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  scene_ = new QGraphicsScene(this);
  timelineView_ = new QGraphicsView(scene_, this);
  timelineView_->setRenderHint(QPainter::Antialiasing);
  timelineView_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  timelineView_->setMinimumHeight(120);
  timelineView_->setToolTip(tr("Last run: one lane per device, bars sized by measured time"));

  graph_ = new GraphView(this);
  graph_->showOverlayControls();  // they travel with the graph when the window puts it in a tab
  graph_->setToolTip(tr("The plan: launches grouped per device, copies between them, edges are the buffers they pass"));

  auto* split = new QSplitter(Qt::Vertical, this);
  auto* upper = new QWidget(split);
  auto* ul = new QVBoxLayout(upper);
  ul->setContentsMargins(0, 0, 0, 0);
  ul->addWidget(memory_);
  auto* across = new QSplitter(Qt::Horizontal, upper);
  across->addWidget(table_);
  across->addWidget(graph_);
  across->setSizes({520, 480});
  ul->addWidget(across, 1);
  split->addWidget(upper);
  split->addWidget(timelineView_);
  split->setSizes({480, 130});
  split->setStretchFactor(0, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(split);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
    onRowSelected(cur.row());
    if (cur.isValid() && !graph_->isBusy()) graph_->selectSubject({viz::SubjectKind::PlanStep, uint32_t(cur.row())});
  });
  connect(graph_, &GraphView::nodeSelected, this, [this](int node) {
    if (node < 0 || node >= int(graph_->model().nodes.size())) return;
    const viz::Subject& subject = graph_->model().nodes[node].subject;
    if (subject.kind == viz::SubjectKind::PlanStep && int(subject.id) < model_->rowCount()) table_->selectRow(int(subject.id));
  });
  connect(graph_, &GraphView::layoutFinished, this, [this] { graph_->fitReadable(); });
}

void PlanView::sessionLoaded(const SessionSnapshot& s) {
  session_ = s.session;
  model_->removeRows(0, model_->rowCount());
  scene_->clear();
  bars_ = lanes_ = 0;
  if (!session_ || !session_->hasStage(Stage::Planned)) {
    graph_->clear();
    memory_->setText(tr("Not planned yet: compile to see the plan."));
    return;
  }
  const CompileTrace& t = session_->trace();
  const ExecPlan& plan = t.plan;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& st = plan.steps[i];
    const bool launch = st.kind == PlanStep::Kind::Launch;
    const KernelEntry* e = launch && st.kernel < t.entries.size() ? &t.entries[st.kernel] : nullptr;
    QString kind = launch ? (e && e->kind == KernelEntry::Kind::Gemm ? "gemm" : "launch") : st.zeroCopy ? "zero-copy" : "copy";
    const QString dev = st.device < session_->devices().size() ? QString::fromStdString(session_->devices()[st.device].name)
                                                               : QString::number(st.device);
    QList<QStandardItem*> row;
    auto* num = new QStandardItem;
    num->setData(int(i), Qt::DisplayRole);
    num->setData(e && e->kind == KernelEntry::Kind::Fused ? int(e->fused) : -1, KernelRole);
    row << num << new QStandardItem(kind) << new QStandardItem(QString::fromStdString(st.label)) << new QStandardItem(dev)
        << new QStandardItem(e ? QString::fromStdString(e->schedule) : QString())
        << new QStandardItem(e && e->timeNs > 0 ? QString::number(e->timeNs / 1e3, 'f', 2) : QString());
    row.back()->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    model_->appendRow(row);
  }
  showMeasured();
  fitColumns(table_);
  QStringList pools;
  for (std::size_t p = 0; p < plan.peakBytes.size(); ++p)
    pools << tr("%1: %2").arg(p == 0 ? tr("host") : tr("pool %1").arg(p), bytesText(plan.peakBytes[p]));
  memory_->setText(tr("%1 steps, %2 buffers in %3 allocations; peak memory %4; reuse saved %5 of %6; predicted %7 us")
                       .arg(plan.steps.size())
                       .arg(plan.buffers.size())
                       .arg(plan.allocations.size())
                       .arg(pools.join(", "), bytesText(plan.bytesSaved), bytesText(plan.bytesWithoutReuse))
                       .arg(plan.predictedNs / 1e3, 0, 'f', 1) +
                   (gap_.steps.empty() ? QString() : "\n" + QString::fromStdString(gap_.summary)) + candidatesText(t.planChoice));
  graph_->setModel(planPictureOf(*session_));
  graph_->setMeasures(sessionMeasures(graph_->model(), s));
  buildTimeline();
}

// Peaks measured later (Devices view) change "% of peak"; the plan stays.
void PlanView::comparisonChanged(const SessionSnapshot& s) {
  if (session_ && s.session == session_ && session_->hasStage(Stage::Planned))
    graph_->setMeasures(sessionMeasures(graph_->model(), s));
}

void PlanView::sessionsDiffed(const SessionPair& p) {
  if (!p.diff || !session_ || p.a != session_ || !session_->hasStage(Stage::Planned)) {
    graph_->setDiffMarks({});
    return;
  }
  graph_->setDiffMarks(diffMarks(graph_->model(), *p.a, *p.diff, DiffSideId::A));
}

// Measured beside predicted for every step of the last run; steps off by more than 2x are red,
// with the likeliest reason as their tooltip.
void PlanView::showMeasured() {
  gap_ = {};
  if (!session_ || session_->runs().empty()) return;
  const CompileTrace& t = session_->trace();
  gap_ = timingGap(session_->graph(), t.plan, session_->runs().back(), t.tuneLevel != "none");
  const QColor flagged(0xfa, 0xdb, 0xd8);
  for (int r = 0; r < model_->rowCount() && r < int(gap_.steps.size()); ++r) {
    const StepGap& s = gap_.steps[r];
    if (s.predictedNs > 0) model_->item(r, 5)->setText(QString::number(s.predictedNs / 1e3, 'f', 2));
    auto* measured = new QStandardItem(s.measuredNs >= 0 ? QString::number(s.measuredNs / 1e3, 'f', 2) : QString());
    auto* ratio = new QStandardItem(s.ratio() > 0 ? QString("%1x").arg(s.ratio(), 0, 'f', 2) : QString());
    for (QStandardItem* it : {measured, ratio}) {
      it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (!s.reason.empty()) it->setToolTip(QString::fromStdString(s.reason));
      if (s.flagged) it->setBackground(flagged);
    }
    model_->setItem(r, 6, measured);
    model_->setItem(r, 7, ratio);
  }
}

void PlanView::buildTimeline() {
  scene_->clear();
  bars_ = lanes_ = 0;
  if (!session_ || session_->runs().empty()) {
    scene_->addSimpleText(tr("Not run yet."));
    return;
  }
  const RunRecord& run = session_->runs().back();
  std::map<std::string, int> lane;
  for (const StepTiming& st : run.steps)
    if (!lane.count(st.device)) lane.emplace(st.device, int(lane.size()));
  lanes_ = int(lane.size());
  double total = 0;
  for (const StepTiming& st : run.steps) total += st.ns;
  const double width = 900, laneH = 28, left = 110;
  const double scale = total > 0 ? width / total : 0;
  for (const auto& [name, l] : lane) {
    auto* label = scene_->addSimpleText(QString::fromStdString(name));
    label->setPos(0, l * laneH + 6);
    scene_->addLine(left, (l + 1) * laneH, left + width, (l + 1) * laneH, QPen(QColor(0xdd, 0xdd, 0xdd)));
  }
  // Steps run one after another, so each starts where the previous ended.
  double at = 0;
  for (const StepTiming& st : run.steps) {
    const QColor c = st.kind == "copy" ? QColor(0xf3, 0x9c, 0x12) : st.kind == "zero-copy" ? QColor(0x95, 0xa5, 0xa6) : st.kind == "gemm" ? QColor(0x8e, 0x44, 0xad) : QColor(0x29, 0x80, 0xb9);
    const std::size_t i = std::size_t(bars_);
    const bool off = i < gap_.steps.size() && gap_.steps[i].flagged;
    auto* bar = scene_->addRect(left + at * scale, lane[st.device] * laneH + 4, std::max(1.0, st.ns * scale), laneH - 8,
                                off ? QPen(QColor(0xc0, 0x39, 0x2b), 2) : QPen(c.darker(130)), QBrush(c));
    QString tip = tr("%1 (%2)\n%3 us\n%4 GFLOP/s, %5 GB/s")
                      .arg(QString::fromStdString(st.label), QString::fromStdString(st.kind))
                      .arg(st.ns / 1e3, 0, 'f', 2)
                      .arg(st.gflops, 0, 'f', 2)
                      .arg(st.gbps, 0, 'f', 2);
    if (i < gap_.steps.size() && gap_.steps[i].predictedNs > 0)
      tip += tr("\npredicted %1 us (%2x)").arg(gap_.steps[i].predictedNs / 1e3, 0, 'f', 2).arg(gap_.steps[i].ratio(), 0, 'f', 2);
    if (off) tip += "\n" + QString::fromStdString(gap_.steps[i].reason);
    bar->setToolTip(tip);
    at += st.ns;
    ++bars_;
  }
  auto* axis = scene_->addSimpleText(tr("0 … %1 us (last run, %2 steps)").arg(total / 1e3, 0, 'f', 1).arg(run.steps.size()));
  axis->setPos(left, lanes_ * laneH + 4);
}

void PlanView::sessionClosed() {
  session_.reset();
  gap_ = {};
  graph_->clear();
  model_->removeRows(0, model_->rowCount());
  scene_->clear();
  bars_ = lanes_ = 0;
  memory_->setText(tr("Nothing planned."));
}

void PlanView::selectionChanged(const Selection& s) {
  if (!s.kernel) return;
  for (int r = 0; r < model_->rowCount(); ++r)
    if (model_->item(r, 0)->data(KernelRole).toInt() == int(*s.kernel)) {
      updating_ = true;
      table_->selectionModel()->setCurrentIndex(model_->index(r, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
      table_->scrollTo(model_->index(r, 0));
      updating_ = false;
      return;
    }
}

void PlanView::onRowSelected(int row) {
  if (updating_ || !context_ || row < 0 || !session_) return;
  const int k = model_->item(row, 0)->data(KernelRole).toInt();
  if (k < 0) return;
  Selection s = context_->selection();
  s.kernel = uint32_t(k);
  s.device = session_->trace().plan.steps[row].device;
  context_->select(s, this);
}

}  // namespace ks
