// DevicesView: device rows from Session::devices(); the comparison reads every RunRecord (one
// bar set per run, labelled by its devices; kernels matched across runs by step label).
#include "views/devices_view.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QValueAxis>
#include <QVBoxLayout>
#include <map>

#include "views/table_export.h"

namespace ks {

namespace {
QTableView* makeTable(QStandardItemModel* m, QWidget* parent, const QString& csvName) {
  auto* t = new QTableView(parent);
  t->setModel(m);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->verticalHeader()->hide();
  t->horizontalHeader()->setStretchLastSection(true);
  t->setWordWrap(false);
  t->setSortingEnabled(true);
  addCsvExport(t, csvName);
  return t;
}

QStandardItem* num(double v, int prec) {
  auto* it = new QStandardItem(QString::number(v, 'f', prec));
  it->setData(v, Qt::UserRole + 1);
  it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return it;
}

QString runName(const RunRecord& r, std::size_t i) {
  QStringList d;
  for (const std::string& s : r.devices) d << QString::fromStdString(s);
  return QString("run %1: %2").arg(i + 1).arg(d.join("+"));
}
}  // namespace

DevicesView::DevicesView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  devices_ = new QStandardItemModel(0, 10, this);
  devices_->setHorizontalHeaderLabels({"device", "kind", "name", "vendor", "compute units", "memory (MiB)",
                                       "local (KiB)", "peak GB/s", "peak GFLOP/s", "can run"});
  runs_ = new QStandardItemModel(0, 9, this);
  runs_->setHorizontalHeaderLabels({"run", "step", "kind", "device", "time (us)", "speed-up vs run 1", "GFLOP/s",
                                    "GB/s", "% of peak"});
  devicesTable_ = makeTable(devices_, this, "devices.csv");
  devicesTable_->setSortingEnabled(false);  // the row is the device index
  runsTable_ = makeTable(runs_, this, "runs.csv");
  run_ = new QPushButton(tr("Run on selected"), this);
  run_->setToolTip(tr("Compile (autotune, extract, plan) for the checked devices only and run"));
  summary_ = new QLabel(tr("Nothing compiled."), this);
  summary_->setWordWrap(true);
  auto* chart = new QChart;
  chart->setTitle(tr("Time per kernel and in total, per run (us)"));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chartView_ = new QChartView(chart, this);
  chartView_->setRenderHint(QPainter::Antialiasing);
  chartView_->setMinimumHeight(220);

  auto* top = new QHBoxLayout;
  top->addWidget(summary_, 1);
  top->addWidget(run_);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(devicesTable_);
  split->addWidget(runsTable_);
  split->addWidget(chartView_);
  split->setSizes({150, 220, 280});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(top);
  layout->addWidget(split, 1);

  connect(run_, &QPushButton::clicked, this, [this] {
    const QString list = checkedDevices();
    if (!list.isEmpty()) emit runRequested(list);
  });
  connect(devices_, &QStandardItemModel::itemChanged, this, [this] { run_->setEnabled(!checkedDevices().isEmpty()); });
  connect(devicesTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
    if (updating_ || !context_ || !cur.isValid()) return;
    Selection s = context_->selection();
    s.device = uint32_t(cur.row());
    context_->select(s, this);
  });
}

QString DevicesView::checkedDevices() const {
  QStringList out;
  for (int r = 0; r < devices_->rowCount(); ++r)
    if (devices_->item(r, 0)->checkState() == Qt::Checked) out << devices_->item(r, 0)->text();
  return out.join(',');
}

void DevicesView::sessionLoaded(const SessionSnapshot& s) {
  session_ = s.session;
  devices_->removeRows(0, devices_->rowCount());
  runs_->removeRows(0, runs_->rowCount());
  if (!session_) {
    summary_->setText(tr("Not compiled yet: compile to pick devices."));
    buildComparison();
    return;
  }
  for (const DeviceInfo& d : session_->devices()) {
    auto* name = new QStandardItem(QString::fromStdString(d.name));
    name->setCheckable(true);
    name->setCheckState(Qt::Checked);
    name->setToolTip(QString::fromStdString(d.platformName + " / " + d.driver + (d.fp64 ? " / fp64" : "")));
    devices_->appendRow({name, new QStandardItem(deviceKindName(d.kind)),
                         new QStandardItem(QString::fromStdString(d.deviceName)), new QStandardItem(QString::fromStdString(d.vendor)),
                         num(d.computeUnits, 0), num(d.memoryBytes / double(1 << 20), 0), num(d.localMemBytes / 1024.0, 0),
                         num(d.peakGBs, 1), num(d.peakGflops, 1), new QStandardItem(QString::fromStdString(d.canRun))});
    // Peaks are 0 until measured: say so rather than show a zero peak.
    for (int c : {7, 8})
      if (devices_->item(devices_->rowCount() - 1, c)->data(Qt::UserRole + 1).toDouble() <= 0)
        devices_->item(devices_->rowCount() - 1, c)->setText(tr("not measured"));
  }
  devicesTable_->resizeColumnsToContents();
  run_->setEnabled(session_->live() && !checkedDevices().isEmpty());
  if (!session_->live()) run_->setToolTip(tr("A session loaded from a file cannot run: open the program to run it"));
  summary_->setText(tr("%1 devices, %2 runs").arg(session_->devices().size()).arg(session_->runs().size()));

  // One row per step of every run, plus a total row per run; speed-ups against run 1's same step.
  std::map<std::string, double> firstRun;
  double firstTotal = 0;
  auto peakOf = [this](const std::string& name) -> const DeviceInfo* {
    for (const DeviceInfo& d : session_->devices())
      if (d.name == name) return &d;
    return nullptr;
  };
  for (std::size_t i = 0; i < session_->runs().size(); ++i) {
    const RunRecord& r = session_->runs()[i];
    for (const StepTiming& st : r.steps) {
      if (i == 0) firstRun[st.label] = st.ns;
      const auto f = firstRun.find(st.label);
      const DeviceInfo* d = peakOf(st.device);
      QString pct;
      if (d && d->peakGBs > 0) pct += QString("%1% BW").arg(100 * st.gbps / d->peakGBs, 0, 'f', 1);
      if (d && d->peakGflops > 0) pct += QString(pct.isEmpty() ? "%1% FLOP" : ", %1% FLOP").arg(100 * st.gflops / d->peakGflops, 0, 'f', 1);
      runs_->appendRow({new QStandardItem(runName(r, i)), new QStandardItem(QString::fromStdString(st.label)),
                        new QStandardItem(QString::fromStdString(st.kind)), new QStandardItem(QString::fromStdString(st.device)),
                        num(st.ns / 1e3, 2), num(f != firstRun.end() && st.ns > 0 ? f->second / st.ns : 0, 2), num(st.gflops, 2),
                        num(st.gbps, 2), new QStandardItem(pct)});
    }
    if (i == 0) firstTotal = r.totalNs;
    runs_->appendRow({new QStandardItem(runName(r, i)), new QStandardItem(tr("total")), new QStandardItem(QString()),
                      new QStandardItem(QString()), num(r.totalNs / 1e3, 2), num(r.totalNs > 0 ? firstTotal / r.totalNs : 0, 2),
                      new QStandardItem(QString()), new QStandardItem(QString()), new QStandardItem(QString())});
  }
  runsTable_->resizeColumnsToContents();
  buildComparison();
}

int DevicesView::chartBarCount() const {
  int n = 0;
  for (QAbstractSeries* s : chartView_->chart()->series())
    if (auto* bars = qobject_cast<QBarSeries*>(s))
      for (QBarSet* set : bars->barSets()) n += set->count();
  return n;
}

void DevicesView::buildComparison() {
  QChart* chart = chartView_->chart();
  chart->removeAllSeries();
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
  if (!session_ || session_->runs().empty()) return;
  // Categories: the launches (not copies) by label in first-seen order, then "total".
  QStringList cats;
  for (const RunRecord& r : session_->runs())
    for (const StepTiming& st : r.steps)
      if (st.kind != "copy" && !cats.contains(QString::fromStdString(st.label))) cats << QString::fromStdString(st.label);
  cats << tr("total");
  auto* series = new QBarSeries;
  double maxUs = 0;
  for (std::size_t i = 0; i < session_->runs().size(); ++i) {
    const RunRecord& r = session_->runs()[i];
    std::map<QString, double> us;
    for (const StepTiming& st : r.steps) us[QString::fromStdString(st.label)] += st.ns / 1e3;
    auto* set = new QBarSet(runName(r, i));
    for (int c = 0; c + 1 < cats.size(); ++c) {
      const double v = us.count(cats[c]) ? us[cats[c]] : 0.0;
      maxUs = std::max(maxUs, v);
      *set << v;
    }
    *set << r.totalNs / 1e3;
    maxUs = std::max(maxUs, r.totalNs / 1e3);
    series->append(set);
  }
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  QStringList shortCats;
  for (const QString& c : cats) shortCats << (c.size() > 24 ? c.left(22) + "…" : c);
  x->append(shortCats);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  auto* y = new QValueAxis;
  y->setTitleText(tr("us"));
  y->setRange(0, maxUs > 0 ? maxUs * 1.1 : 1.0);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
}

void DevicesView::sessionClosed() {
  session_.reset();
  devices_->removeRows(0, devices_->rowCount());
  runs_->removeRows(0, runs_->rowCount());
  summary_->setText(tr("Nothing compiled."));
  buildComparison();
}

void DevicesView::selectionChanged(const Selection& s) {
  if (!s.device || int(*s.device) >= devices_->rowCount()) return;
  updating_ = true;
  devicesTable_->selectionModel()->setCurrentIndex(devices_->index(int(*s.device), 0),
                                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  updating_ = false;
}

}  // namespace ks
