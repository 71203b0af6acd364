// CompareView: fills its tables and B's graphs from a SessionPair.
#include "views/compare_view.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "engine/session/diff_marks.h"
#include "engine/session/session_pictures.h"
#include "views/diff_kernels_model.h"
#include "views/diff_steps_model.h"
#include "views/graph_view.h"
#include "views/table_fit.h"

namespace ks {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
QString sideText(const DiffSide& s) {
  QStringList devices;
  for (const std::string& d : s.devices) devices << q(d);
  QString t = QObject::tr("tune %1 on %2: %3 kernels, %4 plan steps, predicted %5 us")
                  .arg(q(s.tune), devices.join(","))
                  .arg(s.kernels)
                  .arg(s.steps)
                  .arg(s.predictedNs / 1e3, 0, 'f', 1);
  if (s.runNs) t += QObject::tr(", ran %1 us").arg(*s.runNs / 1e3, 0, 'f', 1);
  return t;
}
}  // namespace

QTableView* CompareView::makeTable(QWidget* parent) {
  auto* t = new QTableView(parent);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->verticalHeader()->hide();
  t->verticalHeader()->setDefaultSectionSize(20);
  t->horizontalHeader()->setStretchLastSection(true);
  installEliding(t);
  return t;
}

CompareView::CompareView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* top = new QHBoxLayout;
  compareBtn_ = new QPushButton(tr("Compare with…"), this);
  compareBtn_->setToolTip(tr("A saved session, or this program compiled under other options"));
  changedOnly_ = new QCheckBox(tr("Changed only"), this);
  changedOnly_->setToolTip(tr("Hide kernels the same in both sessions"));
  top->addWidget(compareBtn_);
  top->addWidget(changedOnly_);
  top->addStretch(1);
  layout->addLayout(top);
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);

  tabs_ = new QTabWidget(this);
  tabs_->setDocumentMode(true);
  kernels_ = new DiffKernelsModel(this);
  kernelsProxy_ = new QSortFilterProxyModel(this);
  kernelsProxy_->setSourceModel(kernels_);
  kernelsProxy_->setSortRole(DiffKernelsModel::SortRole);
  kernelsProxy_->setFilterKeyColumn(DiffKernelsModel::Status);
  kernelsTable_ = makeTable(tabs_);
  kernelsTable_->setModel(kernelsProxy_);
  kernelsTable_->setSortingEnabled(true);
  tabs_->addTab(kernelsTable_, tr("Kernels"));
  steps_ = new DiffStepsModel(this);
  stepsTable_ = makeTable(tabs_);
  stepsTable_->setModel(steps_);
  tabs_->addTab(stepsTable_, tr("Plan steps"));
  decisions_ = new QLabel(tabs_);
  decisions_->setWordWrap(true);
  decisions_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  decisions_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  decisions_->setMargin(6);
  auto* scroll = new QScrollArea(tabs_);
  scroll->setWidget(decisions_);
  scroll->setWidgetResizable(true);
  tabs_->addTab(scroll, tr("Decisions"));
  planB_ = new GraphView(tabs_);
  tabs_->addTab(planB_, tr("B: plan graph"));
  egraphB_ = new GraphView(tabs_);
  tabs_->addTab(egraphB_, tr("B: e-graph"));
  layout->addWidget(tabs_, 1);

  connect(compareBtn_, &QPushButton::clicked, this, &CompareView::compareRequested);
  connect(changedOnly_, &QCheckBox::toggled, this, &CompareView::setChangedOnly);
  changedOnly_->setChecked(true);
  setChangedOnly(true);
  sessionClosed();
}

void CompareView::setChangedOnly(bool on) {
  if (changedOnly_->isChecked() != on) changedOnly_->setChecked(on);
  kernelsProxy_->setFilterRegularExpression(on ? QStringLiteral("^(changed|only A|only B)$") : QString());
}

void CompareView::sessionLoaded(const SessionSnapshot& s) {
  // A diff is of the session it was made against: a new session starts without one.
  clearDiff(s.session ? tr("Compare this session with a saved one, or with its program compiled under other "
                           "options (tune level, devices, rewrites).")
                      : tr("Compile first: a comparison needs a compiled session."));
  compareBtn_->setEnabled(s.session != nullptr);
}

void CompareView::sessionClosed() {
  clearDiff(tr("Nothing loaded."));
  compareBtn_->setEnabled(false);
}

void CompareView::clearDiff(const QString& text) {
  pair_ = SessionPair{};
  kernels_->setDiff(nullptr);
  steps_->setDiff(nullptr);
  decisions_->clear();
  planB_->clear();
  egraphB_->clear();
  summary_->setText(text);
}

void CompareView::sessionsDiffed(const SessionPair& p) {
  if (p.pending) {
    clearDiff(tr("Comparing with %1…").arg(p.otherName));
    return;
  }
  if (!p.diff) {
    clearDiff(tr("Comparison with %1 failed: %2").arg(p.otherName, p.error));
    return;
  }
  pair_ = p;
  showDiff();
}

void CompareView::showDiff() {
  kernels_->setDiff(pair_.diff);
  kernelsProxy_->sort(DiffKernelsModel::Status, Qt::DescendingOrder);
  fitColumns(kernelsTable_);
  steps_->setDiff(pair_.diff);
  fitColumns(stepsTable_);
  showSummary();
  showDecisions();
  // B's pictures with what it adds or changes marked; A's marks are the main views' job.
  planB_->setModel(planPictureOf(*pair_.b));
  planB_->setDiffMarks(diffMarks(planB_->model(), *pair_.b, *pair_.diff, DiffSideId::B));
  egraphB_->setModel(egraphPictureOf(*pair_.b));
  egraphB_->setDiffMarks(diffMarks(egraphB_->model(), *pair_.b, *pair_.diff, DiffSideId::B));
}

void CompareView::showSummary() {
  const SessionDiff& d = *pair_.diff;
  int changed = 0, onlyA = 0, onlyB = 0;
  double launchesA = 0, launchesB = 0;
  for (const DiffKernel& k : d.kernels) {
    const KernelChange c = kernelChangeOf(k);
    changed += c == KernelChange::Changed;
    onlyA += c == KernelChange::OnlyA;
    onlyB += c == KernelChange::OnlyB;
    launchesA += k.nsA.value_or(0);
    launchesB += k.nsB.value_or(0);
  }
  QString text = tr("<b>A</b> (shown): %1<br><b>B</b> (%2): %3").arg(sideText(d.a), pair_.otherName, sideText(d.b));
  // The kernels' own times, as the CLI's "all launches" row: a single run's wall time also
  // holds the first launch's program builds.
  if (launchesA > 0)
    text += tr("<br>All launches: A %1 us, B %2 us: B takes <b>%3x</b> A's time.")
                .arg(launchesA / 1e3, 0, 'f', 1)
                .arg(launchesB / 1e3, 0, 'f', 1)
                .arg(launchesB / launchesA, 0, 'f', 2);
  text += tr("<br>Classes: %1 matched by structure, %2 only in A, %3 only in B. Kernels: %4 changed, %5 only in A, "
             "%6 only in B. Plan: %7 steps the same, %8 changed, %9 only in A, %10 only in B.")
              .arg(d.matchedClasses)
              .arg(d.onlyAClasses.size())
              .arg(d.onlyBClasses.size())
              .arg(changed)
              .arg(onlyA)
              .arg(onlyB)
              .arg(d.plan.same)
              .arg(d.plan.changed.size())
              .arg(d.plan.onlyA.size())
              .arg(d.plan.onlyB.size());
  summary_->setText(text);
  tabs_->setTabText(0, tr("Kernels (%1 changed)").arg(changed + onlyA + onlyB));
  tabs_->setTabText(1, tr("Plan steps (%1 changed)").arg(d.plan.changed.size() + d.plan.onlyA.size() + d.plan.onlyB.size()));
}

void CompareView::showDecisions() {
  const SessionDiff& d = *pair_.diff;
  const FusionDecisionDiff& f = d.fusion;
  QString text;
  if (f.firstDifference < 0) {
    text = tr("<b>Fusion</b>: the kernelizer made the same %1 decisions.").arg(f.stepsA);
  } else {
    text = tr("<b>Fusion</b>: %1 and %2 steps; the first difference is at step %3 (%4 decisions only in A, %5 only in B).")
               .arg(f.stepsA)
               .arg(f.stepsB)
               .arg(f.firstDifference)
               .arg(f.onlyA)
               .arg(f.onlyB);
    // Class ids are concatenated, not passed through arg(): "%" and digits would be substituted again.
    auto step = [](const char* tag, const std::optional<DiffFusionStep>& s) {
      if (!s) return QString("<br>&nbsp;&nbsp;%1: (the trace has ended)").arg(tag);
      return QString("<br>&nbsp;&nbsp;%1: step %2 %3 on ").arg(tag).arg(s->index).arg(q(s->action)) + "%" +
             QString::number(s->cls) + " " + q(s->node).toHtmlEscaped() + ", rule " + q(s->rule).toHtmlEscaped() + ": " +
             q(s->reason).toHtmlEscaped();
    };
    text += step("A", f.a) + step("B", f.b);
  }
  text += tr("<br><br><b>Plan choices</b>: %1 classes have another producer in B.").arg(d.choices.size());
  for (const DiffChoice& c : d.choices)
    text += "<br>&nbsp;&nbsp;%" + QString::number(c.classA) + " / %" + QString::number(c.classB) + " " +
            q(c.node).toHtmlEscaped() + ": " + q(c.chosenA).toHtmlEscaped() + " → " + q(c.chosenB).toHtmlEscaped() +
            "<br>&nbsp;&nbsp;&nbsp;&nbsp;<i>B: " + q(c.whyB).toHtmlEscaped() + "</i>";
  decisions_->setText(text);
}

}  // namespace ks
