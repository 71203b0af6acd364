// AutotuneView: table model over the trace's measurements, the text/kernel filter, and the chart
// of the selected kernel's schedule times per device.
#include "views/autotune_view.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <map>
#include <set>

#include "views/autotune_chart.h"
#include "views/table_export.h"
#include "views/table_fit.h"

namespace ks {

void AutotuneModel::setSession(std::shared_ptr<const Session> s) {
  beginResetModel();
  session_ = std::move(s);
  endResetModel();
}

int AutotuneModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !session_) return 0;
  return static_cast<int>(session_->trace().measurements.size());
}

int AutotuneModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const TuneSearch* AutotuneModel::searchOf(uint32_t kernel, uint32_t device) const {
  for (const TuneSearch& s : session_->trace().searches)
    if (s.kernel == kernel && s.device == device) return &s;
  return nullptr;
}

bool AutotuneModel::isWinner(int row) const {
  if (!session_ || row < 0 || row >= rowCount()) return false;
  const TuneMeasurement& m = session_->trace().measurements[row];
  const TuneSearch* s = searchOf(m.kernel, m.device);
  return s && m.status == TuneStatus::Ok && s->winner == m.schedule;
}

QVariant AutotuneModel::data(const QModelIndex& index, int role) const {
  if (!session_ || !index.isValid() || index.row() >= rowCount()) return {};
  const CompileTrace& t = session_->trace();
  const TuneMeasurement& m = t.measurements[index.row()];
  if (role == KernelRole) return m.kernel;
  if (role == DeviceRole) return m.device;
  const bool winner = isWinner(index.row());
  if (role == Qt::FontRole && winner) {
    QFont f;
    f.setBold(true);
    return f;
  }
  if (role == Qt::ForegroundRole && index.column() == Status && m.status != TuneStatus::Ok) return statusColor(m.status);
  if (role == Qt::TextAlignmentRole && index.column() == TimeUs) return int(Qt::AlignRight | Qt::AlignVCenter);
  const TuneSearch* search = searchOf(m.kernel, m.device);
  if (role == Qt::ToolTipRole) {
    const std::string status = toString(m.status);
    QString tip = QString::fromStdString(m.reason.empty() ? status : status + ": " + m.reason);
    if (search)
      tip += tr("\nsearch: %1 candidates, %2 measured, %3 cache hits, %4 ms building; stopped: %5")
                 .arg(search->candidates)
                 .arg(search->measured)
                 .arg(search->cacheHits)
                 .arg(search->buildMs, 0, 'f', 1)
                 .arg(QString::fromStdString(search->stopText()));
    return tip;
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (index.column()) {
    case Kernel:
      if (role == SortRole) return m.kernel;
      return m.kernel < t.kernels.size() ? QString::fromStdString(t.kernels[m.kernel].name) : QString("k%1").arg(m.kernel);
    case Device:
      if (role == SortRole) return m.device;
      return m.device < session_->devices().size() ? QString::fromStdString(session_->devices()[m.device].name)
                                                   : QString::number(m.device);
    case Schedule: return QString::fromStdString(m.schedule);
    case Status: return QString(toString(m.status));
    case TimeUs:
      if (role == SortRole) return m.status == TuneStatus::Ok ? m.ns : 1e30;  // failures sort last
      return m.status == TuneStatus::Ok ? QString::number(m.ns / 1e3, 'f', 2) : QString();
    case Winner: return winner ? QString::fromUtf8("★") : QString();
    case StopReason: return search ? QString::fromStdString(search->stopText()) : QString();
    case Reason: return QString::fromStdString(m.reason);
    case Cached: return m.cached ? tr("cached") : QString();
    default: return {};
  }
}

QVariant AutotuneModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
  static const char* names[] = {"kernel", "device", "schedule", "status", "time (us)", "winner", "search stop", "reason", "cache"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

void AutotuneFilter::setKernel(std::optional<uint32_t> k) {
  if (k == kernel_) return;
  kernel_ = k;
  invalidateFilter();
}

bool AutotuneFilter::filterAcceptsRow(int row, const QModelIndex& parent) const {
  if (kernel_) {
    const QModelIndex i = sourceModel()->index(row, 0, parent);
    if (sourceModel()->data(i, AutotuneModel::KernelRole).toUInt() != *kernel_) return false;
  }
  return QSortFilterProxyModel::filterAcceptsRow(row, parent);
}

AutotuneView::AutotuneView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  model_ = new AutotuneModel(this);
  proxy_ = new AutotuneFilter(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(AutotuneModel::SortRole);
  proxy_->setFilterKeyColumn(-1);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);

  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText(tr("Filter (kernel, device, schedule, status…)"));
  filter_->setClearButtonEnabled(true);
  follow_ = new QCheckBox(tr("Only the selected kernel"), this);
  follow_->setToolTip(tr("Follow the shared selection: show only the measurements of the selected kernel"));
  summary_ = new QLabel(tr("Nothing compiled."), this);
  auto* top = new QHBoxLayout;
  top->addWidget(filter_, 1);
  top->addWidget(follow_);

  table_ = new QTableView(this);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(AutotuneModel::Kernel, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setAlternatingRowColors(true);
  installEliding(table_);
  addCsvExport(table_, "autotune.csv");

  auto* chart = new QChart;
  chart->setTitle(tr("Schedules of the selected kernel"));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chartView_ = new QChartView(chart, this);
  chartView_->setRenderHint(QPainter::Antialiasing);
  chartView_->setMinimumHeight(240);

  log_ = new QCheckBox(tr("Log scale"), this);
  log_->setChecked(true);
  log_->setToolTip(tr("A slow default schedule would squash the fast ones on a linear axis"));
  top->addWidget(log_);
  failed_ = new QListWidget(this);
  failed_->setToolTip(tr("Schedules of this kernel that have no time: build or launch errors, wrong results, too slow"));
  failed_->hide();
  auto* chartRow = new QSplitter(Qt::Horizontal, this);
  chartRow->addWidget(chartView_);
  chartRow->addWidget(failed_);
  chartRow->setStretchFactor(0, 3);
  chartRow->setStretchFactor(1, 1);
  chartRow->setSizes({420, 140});

  auto* split = new QSplitter(Qt::Vertical, this);
  auto* upper = new QWidget(split);
  auto* ul = new QVBoxLayout(upper);
  ul->setContentsMargins(0, 0, 0, 0);
  ul->addLayout(top);
  ul->addWidget(summary_);
  ul->addWidget(table_);
  split->addWidget(upper);
  split->addWidget(chartRow);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({380, 320});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(split);

  connect(filter_, &QLineEdit::textChanged, proxy_, [this](const QString& t) { proxy_->setFilterFixedString(t); });
  connect(follow_, &QCheckBox::toggled, this, [this](bool on) {
    proxy_->setKernel(on && context_ ? context_->selection().kernel : std::nullopt);
  });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { onRowSelected(); });
  connect(log_, &QCheckBox::toggled, this, [this] {
    const auto k = chartKernel_;
    chartKernel_.reset();
    showKernel(k, std::nullopt);
  });
}

QChart* AutotuneView::chart() const { return chartView_->chart(); }

int AutotuneView::chartBarCount() const {
  int n = 0;
  for (QAbstractSeries* s : chartView_->chart()->series())
    if (auto* bars = qobject_cast<QBarSeries*>(s))
      for (QBarSet* set : bars->barSets()) n += set->count();
  return n;
}

void AutotuneView::sessionLoaded(const SessionSnapshot& s) {
  model_->setSession(s.session);
  chartKernel_.reset();
  if (!s.session) {
    summary_->setText(tr("Not compiled yet: compile to autotune."));
    showKernel(std::nullopt, std::nullopt);
    return;
  }
  const CompileTrace& t = s.session->trace();
  int ok = 0, cached = 0;
  for (const TuneMeasurement& m : t.measurements) {
    ok += m.status == TuneStatus::Ok;
    cached += m.cached;
  }
  summary_->setText(tr("%1 measurements (%2 ok, %3 cached) of %4 kernels in %5 searches; tune level %6")
                        .arg(t.measurements.size())
                        .arg(ok)
                        .arg(cached)
                        .arg(t.kernels.size())
                        .arg(t.searches.size())
                        .arg(QString::fromStdString(t.tuneLevel)));
  fitColumns(table_);
  const Selection sel = context_ ? context_->selection() : Selection{};
  selectionChanged(sel);
  if (!sel.kernel && !t.kernels.empty()) showKernel(0u, std::nullopt);
}

void AutotuneView::sessionClosed() {
  model_->setSession(nullptr);
  summary_->setText(tr("Nothing compiled."));
  showKernel(std::nullopt, std::nullopt);
}

void AutotuneView::selectionChanged(const Selection& s) {
  updating_ = true;
  if (follow_->isChecked()) proxy_->setKernel(s.kernel);
  if (s.kernel) {
    showKernel(s.kernel, s.device);
    // Highlight the winner of the selected kernel (on the selected device when there is one).
    int best = -1;
    for (int r = 0; r < proxy_->rowCount(); ++r) {
      const QModelIndex i = proxy_->index(r, 0);
      if (i.data(AutotuneModel::KernelRole).toUInt() != *s.kernel) continue;
      if (s.device && i.data(AutotuneModel::DeviceRole).toUInt() != *s.device) continue;
      if (best < 0) best = r;
      if (model_->isWinner(proxy_->mapToSource(i).row())) {
        best = r;
        break;
      }
    }
    if (best >= 0) {
      table_->selectionModel()->setCurrentIndex(proxy_->index(best, 0),
                                                QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
      table_->scrollTo(proxy_->index(best, 0));
    }
  }
  updating_ = false;
}

void AutotuneView::onRowSelected() {
  const QModelIndex i = table_->selectionModel()->currentIndex();
  if (!i.isValid()) return;
  const uint32_t kernel = i.data(AutotuneModel::KernelRole).toUInt();
  const uint32_t device = i.data(AutotuneModel::DeviceRole).toUInt();
  showKernel(kernel, device);
  if (updating_ || !context_) return;
  Selection s = context_->selection();
  s.kernel = kernel;
  s.device = device;
  context_->select(s, this);
}

void AutotuneView::showKernel(std::optional<uint32_t> kernel, std::optional<uint32_t> device) {
  (void)device;
  if (kernel == chartKernel_ && !chartView_->chart()->series().isEmpty()) return;
  chartKernel_ = kernel;
  // A new chart each time: with the axes of a previous kernel removed from a chart that was
  // never shown, Qt 6.4 kept drawing their labels under the new ones (seen in screenshots).
  QChart* chart = new QChart;
  chart->legend()->setAlignment(Qt::AlignBottom);
  QChart* old = chartView_->chart();
  chartView_->setChart(chart);
  delete old;
  failed_->clear();
  const Session* session = model_->session();
  if (!kernel || !session) {
    chart->setTitle(tr("Schedules of the selected kernel"));
    return;
  }
  const CompileTrace& t = session->trace();
  const AutotuneChartData data = autotuneChartData(t.measurements, t.searches, *kernel);
  auto deviceName = [session](uint32_t d) {
    return d < session->devices().size() ? QString::fromStdString(session->devices()[d].name) : QString::number(d);
  };
  std::vector<QString> names;
  for (uint32_t d : data.devices) names.push_back(deviceName(d));
  chart->setTitle(tr("%1: %2 schedules, fastest first (us%3; gold: each device's winner)")
                      .arg(*kernel < t.kernels.size() ? QString::fromStdString(t.kernels[*kernel].name) : QString::number(*kernel))
                      .arg(data.bars.size())
                      .arg(log_->isChecked() ? tr(", log scale") : QString()));
  drawAutotuneChart(chart, data, names, log_->isChecked());
  for (const FailedSchedule& f : data.failed) {
    auto* item = new QListWidgetItem(QString("%1  %2 on %3").arg(QString(toString(f.status)), f.schedule, deviceName(f.device)), failed_);
    item->setForeground(statusColor(f.status));
    item->setToolTip(f.reason.isEmpty() ? QString(toString(f.status)) : f.reason);
  }
  failed_->setVisible(!data.failed.empty());
}

}  // namespace ks
