// DevicesView: selection rows from SessionSnapshot::devicesFound (comparisonSelections), the
// comparison table and chart from DeviceComparison::rows(); this file only lays those out.
#include "views/devices_view.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "views/table_export.h"
#include "views/time_axis.h"
#include "views/table_fit.h"

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
  installEliding(t);
  addCsvExport(t, csvName);
  return t;
}

QStandardItem* num(double v, int prec, const QString& suffix = QString()) {
  auto* it = new QStandardItem(QString::number(v, 'f', prec) + suffix);
  it->setData(v, Qt::UserRole + 1);
  it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return it;
}

QStandardItem* text(const QString& s) { return new QStandardItem(s); }

// "12.3 (4.5%)": a rate with its share of the device's peak when the peak is known.
QStandardItem* rate(double v, double pct) {
  auto* it = num(v, v < 10 ? 2 : 1, pct > 0 ? QString(" (%1%)").arg(pct, 0, 'f', pct < 10 ? 1 : 0) : QString());
  it->setData(pct, Qt::UserRole + 2);
  return it;
}

// Microseconds to the precision that reads well from 0.01 us to seconds.
int usPrecision(double us) { return us < 10 ? 2 : us < 1000 ? 1 : 0; }

const DeviceInfo* deviceNamed(const std::vector<DeviceInfo>& ds, const QString& name) {
  for (const DeviceInfo& d : ds)
    if (QString::fromStdString(d.name) == name) return &d;
  return nullptr;
}
}  // namespace

DevicesView::DevicesView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  devices_ = new QStandardItemModel(0, 8, this);
  devices_->setHorizontalHeaderLabels({"selection", "device", "kind", "compute units", "memory (MiB)", "peak GB/s",
                                       "peak GFLOP/s", "can run"});
  compare_ = new QStandardItemModel(0, 2, this);
  devicesTable_ = makeTable(devices_, this, "devices.csv");
  compareTable_ = makeTable(compare_, this, "device_comparison.csv");
  compareButton_ = new QPushButton(tr("Compare checked"), this);
  compareButton_->setToolTip(tr("Compile (autotune, extract, plan) and run the program once per checked selection, "
                                 "each plan restricted to that selection's devices"));
  baseline_ = new QComboBox(this);
  baseline_->setToolTip(tr("Speed-ups are this selection's time divided by each one's"));
  baseline_->addItem(tr("speed-up vs slowest"), QString());
  summary_ = new QLabel(tr("Nothing loaded."), this);
  summary_->setWordWrap(true);
  note_ = new QLabel(this);
  note_->setObjectName("DevicesNote");
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  note_->hide();
  auto* chart = new QChart;
  chart->setTitle(tr("Time per kernel and in total (us)"));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chartView_ = new QChartView(chart, this);
  chartView_->setRenderHint(QPainter::Antialiasing);
  chartView_->setMinimumHeight(220);

  auto* top = new QHBoxLayout;
  top->addWidget(summary_, 1);
  top->addWidget(baseline_);
  top->addWidget(compareButton_);
  auto* split = split_ = new QSplitter(Qt::Vertical, this);
  split->addWidget(devicesTable_);
  split->addWidget(compareTable_);
  split->addWidget(chartView_);
  split->setSizes({110, 230, 330});
  split->setStretchFactor(2, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(top);
  layout->addWidget(note_);
  layout->addWidget(split, 1);

  connect(compareButton_, &QPushButton::clicked, this, [this] {
    const QStringList list = checkedSelections();
    if (!list.isEmpty()) emit compareRequested(list);
  });
  connect(devices_, &QStandardItemModel::itemChanged, this,
          [this] { compareButton_->setEnabled(live_ && !checkedSelections().isEmpty()); });
  connect(baseline_, &QComboBox::currentIndexChanged, this, [this] {
    if (!updating_) fillComparison();
  });
  connect(devicesTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
    if (updating_ || !context_ || !cur.isValid() || !session_) return;
    // The row's first device, when the compiled session has it.
    const QString first = devices_->item(cur.row(), 0)->text().section(',', 0, 0);
    const auto& ds = session_->devices();
    for (std::size_t i = 0; i < ds.size(); ++i)
      if (QString::fromStdString(ds[i].name) == first) {
        Selection s = context_->selection();
        s.device = uint32_t(i);
        context_->select(s, this);
      }
  });
}

QStringList DevicesView::checkedSelections() const {
  QStringList out;
  for (int r = 0; r < devices_->rowCount(); ++r)
    if (devices_->item(r, 0)->checkState() == Qt::Checked) out << devices_->item(r, 0)->text();
  return out;
}

void DevicesView::setChecked(const QStringList& selections) {
  for (int r = 0; r < devices_->rowCount(); ++r)
    devices_->item(r, 0)->setCheckState(selections.contains(devices_->item(r, 0)->text()) ? Qt::Checked : Qt::Unchecked);
}

void DevicesView::sessionLoaded(const SessionSnapshot& s) {
  session_ = s.session;
  live_ = s.program && (!s.session || s.session->live());
  comparisonChanged(s);
}

void DevicesView::comparisonChanged(const SessionSnapshot& s) {
  comparison_ = s.comparison;
  fillDevices(s);
  fillComparison();
}

void DevicesView::fillDevices(const SessionSnapshot& s) {
  // Keep the user's ticks across refreshes; a first fill ticks every selection.
  const bool first = devices_->rowCount() == 0;
  const QStringList wasChecked = checkedSelections();
  note_->setText(s.devicesNote.isEmpty() ? QString() : tr("Note: %1").arg(s.devicesNote));
  note_->setVisible(!s.devicesNote.isEmpty());
  std::vector<DeviceInfo> found = s.devicesFound;
  if (found.empty() && s.session) found = s.session->devices();
  // A compared selection keeps its measured peaks even when discovery has none yet.
  if (comparison_)
    for (const ComparisonEntry& e : comparison_->entries)
      for (const DeviceInfo& d : e.devices) {
        auto it = std::find_if(found.begin(), found.end(), [&](const DeviceInfo& f) { return f.name == d.name; });
        if (it == found.end()) found.push_back(d);
        else if (it->peakGBs <= 0 && d.peakGBs > 0) *it = d;
      }
  QStringList sels;
  for (const std::string& sel : comparisonSelections(found)) sels << QString::fromStdString(sel);
  if (comparison_)
    for (const ComparisonEntry& e : comparison_->entries)
      if (!sels.contains(QString::fromStdString(e.selection))) sels << QString::fromStdString(e.selection);

  updating_ = true;
  devices_->removeRows(0, devices_->rowCount());
  for (const QString& sel : sels) {
    QStringList names, kinds, units, mem, gbs, gflops, canRun;
    double mainGBs = 0, mainGflops = 0;
    for (const QString& n : sel.split(',')) {
      const DeviceInfo* d = deviceNamed(found, n);
      if (!d) continue;
      names << QString::fromStdString(d->deviceName.empty() ? d->name : d->deviceName);
      kinds << deviceKindName(d->kind);
      if (d->computeUnits) units << QString::number(d->computeUnits);
      if (d->memoryBytes) mem << QString::number(d->memoryBytes / double(1 << 20), 'f', 0);
      gbs << (d->peakGBs > 0 ? QString::number(d->peakGBs, 'f', 1) : tr("not measured"));
      gflops << (d->peakGflops > 0 ? QString::number(d->peakGflops, 'f', 1) : tr("not measured"));
      canRun << QString::fromStdString(d->canRun);
      if (mainGBs <= 0) mainGBs = d->peakGBs;
      if (mainGflops <= 0) mainGflops = d->peakGflops;
    }
    auto* name = text(sel);
    name->setCheckable(true);
    name->setCheckState(first || wasChecked.contains(sel) ? Qt::Checked : Qt::Unchecked);
    auto* g1 = text(gbs.join(" / "));
    g1->setData(mainGBs, Qt::UserRole + 1);
    auto* g2 = text(gflops.join(" / "));
    g2->setData(mainGflops, Qt::UserRole + 1);
    devices_->appendRow({name, text(names.join(" + ")), text(kinds.join(" + ")), text(units.join(" / ")),
                         text(mem.join(" / ")), g1, g2, text(canRun.join("; "))});
  }
  updating_ = false;
  fitColumns(devicesTable_);
  // The selections table is short: give it the height of its rows, the rest to the comparison.
  const int want = devicesTable_->horizontalHeader()->sizeHint().height() +
                   devicesTable_->verticalHeader()->defaultSectionSize() * std::max(1, devices_->rowCount()) +
                   2 * devicesTable_->frameWidth() + devicesTable_->horizontalScrollBar()->sizeHint().height() + 2;
  const QList<int> sizes = split_->sizes();
  if (sizes.size() == 3 && sizes[0] != want) {
    const int all = sizes[0] + sizes[1] + sizes[2];
    if (all > want) split_->setSizes({want, (all - want) * 2 / 5, (all - want) * 3 / 5});
  }
  compareButton_->setEnabled(live_ && !checkedSelections().isEmpty());
  compareButton_->setToolTip(live_ ? tr("Compile and run the program once per checked selection")
                                    : tr("A session loaded from a file cannot run: open the program to run it"));
}

void DevicesView::fillComparison() {
  // Baseline choices: the slowest, or any compared selection; keep the current one.
  const QString wanted = baseline_->currentData().toString();
  updating_ = true;
  baseline_->clear();
  baseline_->addItem(tr("speed-up vs slowest"), QString());
  if (comparison_)
    for (const ComparisonEntry& e : comparison_->entries)
      if (e.error.empty()) baseline_->addItem(tr("speed-up vs %1").arg(QString::fromStdString(e.selection)), QString::fromStdString(e.selection));
  baseline_->setCurrentIndex(std::max(0, baseline_->findData(wanted)));
  updating_ = false;

  compare_->clear();
  if (!comparison_ || comparison_->empty()) {
    compare_->setColumnCount(2);
    compare_->setHorizontalHeaderLabels({"kernel", "kind"});
    summary_->setText(live_ ? tr("No comparison yet: tick device selections and press Compare checked.")
                            : session_ ? tr("A saved session: no device to run on.") : tr("Nothing loaded."));
    buildChart({});
    return;
  }
  const std::string base = baseline_->currentData().toString().toStdString();
  const std::vector<ComparisonRow> rows = comparison_->rows(base);
  const auto& entries = comparison_->entries;
  QStringList header{"kernel", "kind"};
  for (const ComparisonEntry& e : entries) {
    const QString sel = QString::fromStdString(e.selection);
    header << sel + (e.error.empty() ? "\nus (speed-up)" : "\nfailed") << sel + "\nGFLOP/s (% peak)" << sel + "\nGB/s (% peak)";
  }
  compare_->setColumnCount(header.size());
  compare_->setHorizontalHeaderLabels(header);
  for (std::size_t ei = 0; ei < entries.size(); ++ei)
    for (int c = 0; c < kColumnsPerSelection; ++c)
      compare_->horizontalHeaderItem(2 + int(ei) * kColumnsPerSelection + c)
          ->setToolTip(QString::fromStdString(entries[ei].error.empty() ? entries[ei].selection : entries[ei].error));
  for (const ComparisonRow& r : rows) {
    auto* label = text(QString::fromStdString(r.name));
    label->setToolTip(QString::fromStdString(r.label));
    QList<QStandardItem*> items{label, text(QString::fromStdString(r.kind))};
    for (const ComparisonCell& c : r.cells) {
      if (!c.present) {
        for (int k = 0; k < kColumnsPerSelection; ++k) items << text(QString());
        continue;
      }
      // "1855 (4.86x)": the time, and the speed-up against the baseline when there is one.
      const double us = c.ns / 1e3;
      auto* t = num(us, usPrecision(us), c.speedup > 0 ? QString(" (%1x)").arg(c.speedup, 0, 'f', c.speedup < 10 ? 2 : 1) : QString());
      t->setData(c.speedup, Qt::UserRole + 2);
      t->setToolTip(QString::fromStdString("on " + c.device));
      items << t << (c.flops > 0 ? rate(c.gflops, c.peakGflopsPct) : text(QString()))
            << (c.bytes > 0 ? rate(c.gbps, c.peakGBsPct) : text(QString()));
    }
    compare_->appendRow(items);
    if (r.kind == "total") {
      QFont f = compareTable_->font();
      f.setBold(true);
      for (QStandardItem* it : items) it->setFont(f);
    }
  }
  fitColumns(compareTable_);

  // Summary: what was compared and who won.
  const int bi = comparison_->baseline(base);
  QStringList parts, failures;
  int fastest = -1;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].error.empty()) {
      failures << QString::fromStdString(entries[i].selection + ": " + entries[i].error);
      continue;
    }
    if (!entries[i].run.verifyPassed) failures << tr("%1: outputs differ from host").arg(QString::fromStdString(entries[i].selection));
    if (fastest < 0 || entries[i].run.totalNs < entries[fastest].run.totalNs) fastest = int(i);
  }
  QString sum = tr("%1: %2 selections compared (medians of %3 runs)")
                    .arg(QString::fromStdString(comparison_->programName))
                    .arg(entries.size())
                    .arg(entries.front().repeats);
  if (fastest >= 0 && bi >= 0 && fastest != bi)
    sum += tr("; fastest %1, %2x faster than %3")
               .arg(QString::fromStdString(entries[fastest].selection))
               .arg(entries[bi].run.totalNs / entries[fastest].run.totalNs, 0, 'f', 2)
               .arg(QString::fromStdString(entries[bi].selection));
  if (!failures.isEmpty()) sum += "\n" + failures.join("\n");
  summary_->setText(sum);
  buildChart(rows);
}

int DevicesView::chartBarCount() const {
  int n = 0;
  for (QAbstractSeries* s : chartView_->chart()->series())
    if (auto* bars = qobject_cast<QBarSeries*>(s))
      for (QBarSet* set : bars->barSets()) n += set->count();
  return n;
}

void DevicesView::buildChart(const std::vector<ComparisonRow>& rows) {
  // A new chart each time (removed axes of an unshown chart kept drawing their labels in Qt 6.4).
  QChart* chart = new QChart;
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->setTitle(tr("Time per kernel and in total (us)"));
  QChart* old = chartView_->chart();
  chartView_->setChart(chart);
  delete old;
  if (!comparison_ || rows.empty()) return;
  double lo = 0, hi = 0;
  for (const ComparisonRow& r : rows)
    for (const ComparisonCell& c : r.cells)
      if (c.present && c.ns > 0) {
        lo = lo > 0 ? std::min(lo, c.ns / 1e3) : c.ns / 1e3;
        hi = std::max(hi, c.ns / 1e3);
      }
  // The reference executor can be 100x slower than a device: a log axis keeps both readable.
  const bool logScale = lo > 0 && hi / lo > 30;
  const TimeAxis axis = timeAxisFor(lo, hi, logScale);
  // Many kernels (a transformer has ~30): chart the 7 slowest, the rest as one "other" bar.
  constexpr std::size_t kMaxKernelBars = 7;
  std::vector<std::size_t> kernels, tail;
  for (std::size_t ri = 0; ri < rows.size(); ++ri)
    if (rows[ri].kind != "copy" && rows[ri].kind != "total") kernels.push_back(ri);
  auto slowestNs = [&rows](std::size_t ri) {
    double m = 0;
    for (const ComparisonCell& c : rows[ri].cells) m = std::max(m, c.present ? c.ns : 0.0);
    return m;
  };
  if (kernels.size() > kMaxKernelBars) {
    std::stable_sort(kernels.begin(), kernels.end(), [&](std::size_t a, std::size_t b) { return slowestNs(a) > slowestNs(b); });
    tail.assign(kernels.begin() + kMaxKernelBars, kernels.end());
    kernels.resize(kMaxKernelBars);
  }
  std::vector<std::size_t> shown = kernels;
  for (std::size_t ri = 0; ri < rows.size(); ++ri)
    if (rows[ri].kind == "copy" || rows[ri].kind == "total") shown.push_back(ri);
  auto* series = new QBarSeries;
  const std::size_t totalRow = rows.size() - 1;
  for (std::size_t ei = 0; ei < comparison_->entries.size(); ++ei) {
    const ComparisonEntry& e = comparison_->entries[ei];
    const ComparisonCell& total = rows[totalRow].cells[ei];
    QString name = QString::fromStdString(e.selection);
    if (!e.error.empty()) name += tr(" (failed)");
    else if (total.speedup > 0) name += QString(" (%1x)").arg(total.speedup, 0, 'f', 2);
    auto* set = new QBarSet(name);
    auto value = [&](double ns) { return barHeight(axis, ns / 1e3); };
    for (std::size_t i = 0; i < shown.size(); ++i) {
      if (!tail.empty() && i == kernels.size()) {
        double ns = 0;
        for (std::size_t ri : tail) ns += rows[ri].cells[ei].present ? rows[ri].cells[ei].ns : 0.0;
        *set << value(ns);
      }
      const ComparisonCell& c = rows[shown[i]].cells[ei];
      *set << value(c.present ? c.ns : 0.0);
    }
    series->append(set);
  }
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  QStringList cats;
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (!tail.empty() && i == kernels.size()) cats << tr("%1 other kernels").arg(tail.size());
    QString c = QString::fromStdString(rows[shown[i]].name);
    if (c.startsWith("reference executor")) c = "host reference";
    cats << (c.size() > 22 ? c.left(20) + "…" : c);
  }
  x->append(cats);
  // Slanted and a point smaller when there are many, so kernel names are not elided.
  if (cats.size() > 6) {
    x->setLabelsAngle(-30);
    QFont f = x->labelsFont();
    f.setPointSizeF(std::max(6.0, f.pointSizeF() - 1));
    x->setLabelsFont(f);
  }
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  attachTimeAxis(chart, series, axis);
  chart->setTitle(logScale ? tr("Time per kernel and in total (us, log scale); legend: total speed-up")
                           : tr("Time per kernel and in total (us); legend: total speed-up"));
}

void DevicesView::sessionClosed() {
  session_.reset();
  comparison_.reset();
  live_ = false;
  devices_->removeRows(0, devices_->rowCount());
  compare_->clear();
  summary_->setText(tr("Nothing loaded."));
  note_->hide();
  buildChart({});
}

void DevicesView::selectionChanged(const Selection& s) {
  if (!s.device || !session_ || *s.device >= session_->devices().size()) return;
  const QString name = QString::fromStdString(session_->devices()[*s.device].name);
  for (int r = 0; r < devices_->rowCount(); ++r)
    if (devices_->item(r, 0)->text() == name) {
      updating_ = true;
      devicesTable_->selectionModel()->setCurrentIndex(devices_->index(r, 0),
                                                       QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
      updating_ = false;
    }
}

}  // namespace ks
