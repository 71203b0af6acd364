// RewritesView: the summary line, the per-rule table and the growth chart, all read from the
// session's rewrite trace (nothing is recomputed here).
#include "views/rewrites_view.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QHeaderView>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "views/rewrite_growth_chart.h"
#include "views/rewrite_rows_filter.h"
#include "views/rewrites_model.h"

namespace ks {

namespace {
QString summaryText(const RewriteTrace& t) {
  if (!t.ran) return QObject::tr("No rewrites ran (rewrite mode none): the e-graph is the program as built.");
  const RewriteReport& r = t.report;
  QString s = QObject::tr("%1 rules (%2), stopped: %3 (%4); %5 rounds, e-nodes %6 → %7, classes %8 → %9, %10 ms")
                  .arg(t.rules.size())
                  .arg(QString::fromStdString(t.mode))
                  .arg(QString::fromLatin1(rewriteStopName(r.stop)))
                  .arg(QString::fromStdString(r.stopDetail))
                  .arg(r.rounds)
                  .arg(r.nodesBefore)
                  .arg(r.nodesAfter)
                  .arg(r.classesBefore)
                  .arg(r.classesAfter)
                  .arg(r.ms, 0, 'f', 2);
  if (t.cached) s += QObject::tr(" (saturated graph from the cache; the rows are the run that filled it)");
  return s;
}

QString ms(double ns) { return QString::number(ns / 1e6, 'f', 3) + " ms"; }
QString runMs(const Session& s) { return s.runs().empty() ? QObject::tr("not run") : ms(s.runs().back().totalNs); }

// One plan's numbers as table cells: predicted (the extraction's DAG cost), the last run, compile.
QString planCells(const Session& s) {
  return QString("<td align=right>%1</td><td align=right>%2</td><td align=right>%3</td>")
      .arg(ms(s.trace().plan.predictedNs), runMs(s), QString::number(s.trace().compileMs, 'f', 0) + " ms");
}
}  // namespace

RewritesView::RewritesView(SessionContext* context, QWidget* parent)
    : QWidget(parent),
      context_(context),
      model_(new RewritesModel(this)),
      proxy_(new RewriteRowsFilter(this)),
      table_(new QTableView(this)),
      summary_(new QLabel(this)),
      hideIdle_(new QCheckBox(this)),
      ruleFilter_(new QLineEdit(this)),
      chart_(new QChartView(new QChart, this)),
      recompile_(new QPushButton(tr("Recompile without this rule"), this)),
      comparison_(new QLabel(this)) {
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(Qt::EditRole);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(-1, Qt::AscendingOrder);  // the report's order (round, then rule) until a header is clicked
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  chart_->setRenderHint(QPainter::Antialiasing);
  recompile_->setToolTip(tr("Compile, plan and run the program again with the selected row's rule off, and "
                            "show both plans' times side by side"));
  comparison_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hideIdle_->setChecked(proxy_->hidesIdle());
  hideIdle_->setToolTip(tr("Hide the rows of rules that matched nothing in their round (banned rows stay)"));
  ruleFilter_->setPlaceholderText(tr("Filter rules…"));
  ruleFilter_->setClearButtonEnabled(true);
  connect(hideIdle_, &QCheckBox::toggled, this, [this](bool on) {
    proxy_->setHideIdle(on);
    updateFilterLabel();
  });
  connect(ruleFilter_, &QLineEdit::textChanged, this, [this](const QString& t) { proxy_->setRuleText(t); });
  connect(recompile_, &QPushButton::clicked, this, &RewritesView::recompileWithoutSelected);
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RewritesView::updateButton);
  auto* actions = new QHBoxLayout;
  actions->addWidget(hideIdle_);
  actions->addWidget(ruleFilter_);
  actions->addWidget(recompile_);
  actions->addWidget(comparison_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(chart_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(summary_);
  layout->addLayout(actions);
  layout->addWidget(split, 1);
  sessionClosed();
}

void RewritesView::sessionLoaded(const SessionSnapshot& s) {
  session_ = s.session;
  model_->setSession(session_);
  summary_->setText(session_ ? summaryText(session_->trace().rewrite) : tr("Not compiled yet: compile to see the rewrites."));
  table_->resizeColumnsToContents();
  updateFilterLabel();
  pendingRule_.clear();
  comparison_->clear();
  redrawChart();
  updateButton();
}

void RewritesView::sessionClosed() {
  session_.reset();
  model_->setSession(nullptr);
  summary_->setText(tr("Nothing loaded."));
  updateFilterLabel();
  pendingRule_.clear();
  comparison_->clear();
  redrawChart();
  updateButton();
}

QString RewritesView::selectedRule() const {
  const QModelIndexList rows = table_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return {};
  const RuleRound* r = model_->row(proxy_->mapToSource(rows.front()).row());
  return r ? QString::fromStdString(r->rule) : QString();
}

void RewritesView::updateFilterLabel() {
  hideIdle_->setText(tr("Hide idle rules (%1 rows)").arg(proxy_->idleRows()));
}

void RewritesView::updateButton() {
  recompile_->setEnabled(session_ && session_->trace().rewrite.ran && !selectedRule().isEmpty() && pendingRule_.isEmpty());
}

void RewritesView::recompileWithoutSelected() {
  const QString rule = selectedRule();
  if (rule.isEmpty() || !session_) return;
  pendingRule_ = rule;
  comparison_->setText(tr("Compiling without %1…").arg(rule));
  updateButton();
  context_->recompileWithoutRule(rule);
}

void RewritesView::ruleAblated(const RuleAblation& a) {
  if (a.rule != pendingRule_ || !session_) return;  // asked by an earlier session
  pendingRule_.clear();
  updateButton();
  if (!a.without) {
    comparison_->setText(tr("Without %1: failed: %2").arg(a.rule, a.error.toHtmlEscaped()));
    return;
  }
  comparison_->setText(QString("<table cellspacing=6><tr><th></th><th>predicted</th><th>last run</th><th>compile</th></tr>"
                               "<tr><td>all rules</td>%1</tr><tr><td>without %2</td>%3</tr></table>")
                           .arg(planCells(*session_), a.rule.toHtmlEscaped(), planCells(*a.without)));
}

void RewritesView::redrawChart() {
  auto* chart = new QChart;
  if (session_ && session_->trace().rewrite.ran) drawGrowthChart(chart, growthChartData(session_->trace().rewrite.report));
  QChart* old = chart_->chart();
  chart_->setChart(chart);
  delete old;
}

}  // namespace ks
