// PlanWhyPanel: three rows (chosen, runner-up, without the chosen producer) under a header line.
#include "views/plan_why_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/table_fit.h"

namespace ks {

QString planMs(double ns) { return QString::number(ns / 1e6, 'f', 3); }

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
QString nodeText(NodeId n, const std::string& label) { return "#" + QString::number(n.v) + " " + q(label); }
}  // namespace

PlanWhyPanel::PlanWhyPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_ = new QTreeWidget(this);
  table_->setColumnCount(ColumnCount);
  table_->setHeaderLabels({tr("why this plan"), tr("producer"), tr("ms"), tr("with operands, ms")});
  table_->setRootIsDecorated(false);
  table_->header()->setStretchLastSection(false);
  table_->header()->setSectionResizeMode(Producer, QHeaderView::Stretch);
  table_->setToolTip(tr("What the plan computes the selected class with, measured; the runner-up among the class's "
                        "producers on the plan's devices; and the plan's DAG cost extracted again without the "
                        "chosen producer (as kernelscope-cli explain-plan)."));
  installEliding(table_);
  layout->addWidget(header_);
  layout->addWidget(table_, 1);
  clear();
}

void PlanWhyPanel::clear() {
  table_->clear();
  table_->hide();
  header_->setText(tr("Why this plan: select an e-class."));
}

void PlanWhyPanel::showMessage(const QString& text) {
  table_->clear();
  table_->hide();
  header_->setText(text);
}

void PlanWhyPanel::showExplanation(const PlanExplanation& e) {
  table_->clear();
  QString head = tr("Why this plan computes %1 this way: %2").arg("%" + QString::number(e.asked.v), q(e.why));
  if (!e.inside.empty()) head += tr(" (%1)").arg(q(e.inside));
  header_->setText(head);
  auto* chosen = new QTreeWidgetItem(table_, {tr("chosen"), nodeText(e.chosen, e.chosenLabel), planMs(e.chosenNs), planMs(e.chosenTreeNs)});
  QFont bold = chosen->font(What);
  bold.setBold(true);
  for (int c = 0; c < ColumnCount; ++c) chosen->setFont(c, bold);
  if (e.runnerUp.valid())
    new QTreeWidgetItem(table_, {tr("runner-up (of %1)").arg(e.alternatives), nodeText(e.runnerUp, e.runnerUpLabel),
                                 planMs(e.runnerUpNs), planMs(e.runnerUpTreeNs)});
  else
    new QTreeWidgetItem(table_, {tr("runner-up"), tr("none: the only producer on the plan's devices"), QString(), QString()});
  if (std::isfinite(e.withoutNs)) {
    const double change = e.withoutNs - e.dagNs;
    const QString then = e.withoutLabel.empty() ? tr("(not needed)") : nodeText(e.withoutChoice, e.withoutLabel);
    auto* w = new QTreeWidgetItem(table_, {tr("without chosen"), tr("plan DAG cost %1 -> %2 ms (%3 ms, %4%), then from %5")
                                                                    .arg(planMs(e.dagNs), planMs(e.withoutNs),
                                                                         (change >= 0 ? "+" : "") + planMs(change),
                                                                         (change >= 0 ? "+" : "") +
                                                                             QString::number(100.0 * change / std::max(e.dagNs, 1e-9), 'f', 1),
                                                                         then),
                                              planMs(e.withoutNs), QString()});
    w->setToolTip(Producer, w->text(Producer));
  } else {
    new QTreeWidgetItem(table_, {tr("without chosen"), tr("no plan on the plan's devices (plan DAG cost %1 ms)").arg(planMs(e.dagNs)),
                                 QString(), QString()});
  }
  table_->show();
  fitColumns(table_);
}

}  // namespace ks
