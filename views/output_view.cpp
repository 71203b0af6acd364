// OutputView: tables over the last RunRecord's outputs; values are read straight from the HostTensor.
#include "views/output_view.h"
#include "views/table_fit.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace ks {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }
QString num(double v) { return QString::number(v, 'g', 6); }
}  // namespace

// ---- summary ----

void OutputSummaryModel::setOutputs(const std::vector<OutputValue>* outputs, const Session* session) {
  beginResetModel();
  outputs_ = outputs;
  session_ = session;
  endResetModel();
}

const RunRecord* OutputSummaryModel::run() const {
  if (!session_) return nullptr;
  for (const RunRecord& r : session_->runs())
    if (&r.outputs == outputs_ || &r.updates == outputs_) return &r;
  return nullptr;
}

int OutputSummaryModel::rowCount(const QModelIndex& p) const {
  return p.isValid() || !outputs_ ? 0 : static_cast<int>(outputs_->size());
}
int OutputSummaryModel::columnCount(const QModelIndex& p) const { return p.isValid() ? 0 : ColumnCount; }

QVariant OutputSummaryModel::data(const QModelIndex& index, int role) const {
  if (!outputs_ || !index.isValid() || index.row() >= rowCount()) return {};
  const OutputValue& o = (*outputs_)[index.row()];
  const bool bad = o.verified && !o.mismatch.empty();
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Name: return q(o.name);
      case DTypeCol: return q(std::string(dtypeName(o.value.dtype())));
      case ShapeCol:
        // Saved sessions keep only small outputs' values; the shape then comes from the program.
        if (o.value.numel() == 0 && session_) {
          for (const auto& po : session_->program().outputs)
            if (po.name == o.name && po.cls.v < session_->graph().classCount())
              return q(shapeStr(session_->graph().eclass(po.cls).shape));
        }
        return q(shapeStr(o.value.shape()));
      case Min: return num(o.min);
      case Max: return num(o.max);
      case Mean: return num(o.mean);
      case Verify: {
        const RunRecord* r = run();
        if (!o.verified) return r && r->verified ? QString("not verified (budget)") : QString("not verified");
        if (bad) return QString("MISMATCH");
        if (r && r->verifyMode == VerifyMode::Sampled)
          return QString("ok, sampled %1 of %2 (max err %3)").arg(r->verifyChecked).arg(r->verifyTotal).arg(num(o.maxAbsError));
        return QString("ok (max err %1)").arg(num(o.maxAbsError));
      }
    }
  } else if (role == Qt::ToolTipRole && index.column() == Verify) {
    const RunRecord* r = run();
    const QString how = r && r->verified ? QString("\nverification: %1, %2 of %3 elements compared in %4 ms%5")
                                               .arg(q(std::string(verifyModeName(r->verifyMode))))
                                               .arg(r->verifyChecked)
                                               .arg(r->verifyTotal)
                                               .arg(r->verifyNs / 1e6, 0, 'f', 1)
                                               .arg(r->verifyReason.empty() ? QString() : " (" + q(r->verifyReason) + ")")
                                         : QString();
    return (o.verified ? (bad ? q(o.mismatch) : QString("equal to the host reference executor")) : r && r->verified ? QString("the host check's budget was spent before this output") : QString("run without --verify")) + how;
  } else if (role == Qt::ForegroundRole && index.column() == Verify && o.verified) {
    return bad ? QColor("#c92a2a") : QColor("#2b8a3e");
  } else if (role == Qt::TextAlignmentRole && index.column() >= Min && index.column() <= Mean) {
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

QVariant OutputSummaryModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"output", "dtype", "shape", "min", "max", "mean", "verify"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

// ---- values ----

void TensorSliceModel::setTensor(const HostTensor* t) {
  beginResetModel();
  t_ = t;
  slice_ = 0;
  page_ = 0;
  endResetModel();
}

void TensorSliceModel::setSlice(int64_t leading) {
  beginResetModel();
  slice_ = std::clamp<int64_t>(leading, 0, std::max<int64_t>(0, sliceCount() - 1));
  endResetModel();
}

void TensorSliceModel::setPage(int page) {
  beginResetModel();
  page_ = std::clamp(page, 0, std::max(0, pageCount() - 1));
  endResetModel();
}

int64_t TensorSliceModel::rowsTotal() const {
  if (!t_) return 0;
  const Shape& s = t_->shape();
  return s.size() >= 2 ? s[s.size() - 2] : 1;
}
int64_t TensorSliceModel::colsTotal() const {
  if (!t_) return 0;
  const Shape& s = t_->shape();
  return s.empty() ? 1 : s.back();
}
int64_t TensorSliceModel::sliceCount() const {
  if (!t_) return 0;
  const int64_t per = rowsTotal() * colsTotal();
  return per == 0 ? 0 : t_->numel() / per;
}
int TensorSliceModel::pageCount() const {
  return static_cast<int>((rowsTotal() + kPageRows - 1) / kPageRows);
}

int64_t TensorSliceModel::flatIndex(int row, int col) const {
  return (slice_ * rowsTotal() + static_cast<int64_t>(page_) * kPageRows + row) * colsTotal() + col;
}

int TensorSliceModel::rowCount(const QModelIndex& p) const {
  if (p.isValid() || !t_ || sliceCount() == 0) return 0;
  return static_cast<int>(std::min<int64_t>(kPageRows, rowsTotal() - static_cast<int64_t>(page_) * kPageRows));
}
int TensorSliceModel::columnCount(const QModelIndex& p) const {
  return p.isValid() || !t_ || sliceCount() == 0 ? 0 : static_cast<int>(colsTotal());
}

QVariant TensorSliceModel::data(const QModelIndex& index, int role) const {
  if (!t_ || !index.isValid()) return {};
  const int64_t i = flatIndex(index.row(), index.column());
  if (i < 0 || i >= t_->numel()) return {};
  if (role == Qt::DisplayRole) {
    if (isFloat(t_->dtype())) return num(t_->getDouble(i));
    if (isBool(t_->dtype())) return t_->getInt(i) ? QString("true") : QString("false");
    return QString::number(t_->getInt(i));
  }
  if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant TensorSliceModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (o == Qt::Horizontal) return section;
  return static_cast<qlonglong>(static_cast<int64_t>(page_) * kPageRows + section);
}

// ---- the view ----

OutputView::OutputView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  summaryModel_ = new OutputSummaryModel(this);
  sliceModel_ = new TensorSliceModel(this);
  auto* split = new QSplitter(Qt::Vertical, this);
  summary_ = new QTableView(split);
  summary_->setModel(summaryModel_);
  summary_->setSelectionBehavior(QAbstractItemView::SelectRows);
  summary_->setSelectionMode(QAbstractItemView::SingleSelection);
  summary_->verticalHeader()->hide();
  summary_->horizontalHeader()->setStretchLastSection(true);
  installEliding(summary_);
  auto* lower = new QWidget(split);
  auto* lowerLayout = new QVBoxLayout(lower);
  lowerLayout->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  header_ = new QLabel(tr("No run yet."), lower);
  row->addWidget(header_, 1);
  row->addWidget(new QLabel(tr("slice"), lower));
  slice_ = new QSpinBox(lower);
  slice_->setToolTip(tr("Flat index over the leading axes (all but the last two)"));
  row->addWidget(slice_);
  row->addWidget(new QLabel(tr("page"), lower));
  page_ = new QSpinBox(lower);
  page_->setToolTip(tr("%1 rows a page").arg(TensorSliceModel::kPageRows));
  row->addWidget(page_);
  lowerLayout->addLayout(row);
  values_ = new QTableView(lower);
  values_->setModel(sliceModel_);
  values_->verticalHeader()->setDefaultSectionSize(20);
  lowerLayout->addWidget(values_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);

  connect(summary_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& cur) { if (cur.isValid() && cur.row() != output_) selectOutput(cur.row()); });
  connect(slice_, &QSpinBox::valueChanged, this, [this](int v) { setSlice(v); });
  connect(page_, &QSpinBox::valueChanged, this, [this](int v) { setPage(v); });
  sessionClosed();
}

void OutputView::sessionLoaded(const SessionSnapshot& s) { showSession(s.session); }
void OutputView::sessionClosed() { showSession(nullptr); }

void OutputView::showSession(std::shared_ptr<const Session> session) {
  session_ = std::move(session);
  const std::vector<OutputValue>* outs = session_ && !session_->runs().empty() ? &session_->runs().back().outputs : nullptr;
  output_ = -1;
  sliceModel_->setTensor(nullptr);
  summaryModel_->setOutputs(outs, session_.get());
  fitColumns(summary_);
  if (outs && !outs->empty()) selectOutput(0);
  else refreshHeader();
}

void OutputView::selectOutput(int row) {
  if (row < 0 || row >= summaryModel_->rowCount()) return;
  output_ = row;
  sliceModel_->setTensor(&session_->runs().back().outputs[row].value);
  summary_->selectRow(row);
  slice_->blockSignals(true);
  page_->blockSignals(true);
  slice_->setRange(0, static_cast<int>(std::max<int64_t>(0, sliceModel_->sliceCount() - 1)));
  slice_->setValue(0);
  page_->setRange(0, std::max(0, sliceModel_->pageCount() - 1));
  page_->setValue(0);
  slice_->blockSignals(false);
  page_->blockSignals(false);
  refreshHeader();
}

void OutputView::setSlice(int64_t leading) {
  sliceModel_->setSlice(leading);
  refreshHeader();
}

void OutputView::setPage(int page) {
  sliceModel_->setPage(page);
  refreshHeader();
}

void OutputView::refreshHeader() {
  slice_->setEnabled(sliceModel_->sliceCount() > 1);
  page_->setEnabled(sliceModel_->pageCount() > 1);
  if (output_ < 0 || !session_) {
    header_->setText(session_ ? tr("No run yet: run the program to see its outputs.") : tr("Nothing loaded."));
    return;
  }
  const OutputValue& o = session_->runs().back().outputs[output_];
  const Shape& s = o.value.shape();
  QString idx;
  if (s.size() > 2) {
    // The slice's index over the leading axes, e.g. [1, 3, :, :].
    int64_t rest = slice_->value();
    std::vector<int64_t> lead(s.size() - 2);
    for (int a = static_cast<int>(lead.size()) - 1; a >= 0; --a) {
      lead[a] = rest % s[a];
      rest /= s[a];
    }
    QStringList parts;
    for (int64_t v : lead) parts << QString::number(v);
    idx = " [" + parts.join(", ") + ", :, :]";
  }
  if (o.value.numel() == 0) idx += tr(" (values not kept: the session was saved without large outputs)");
  header_->setText(tr("%1: %2%3%4").arg(q(o.name), q(std::string(dtypeName(o.value.dtype()))), q(shapeStr(s)), idx));
}

}  // namespace ks
