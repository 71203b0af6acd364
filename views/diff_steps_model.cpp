// DiffStepsModel: changed steps first (the decisions), then those only A or only B runs.
#include "views/diff_steps_model.h"

#include <QColor>
#include <QStringList>

namespace ks {

void DiffStepsModel::setDiff(std::shared_ptr<const SessionDiff> d) {
  beginResetModel();
  diff_ = std::move(d);
  rows_.clear();
  if (diff_) {
    for (const DiffStepChange& c : diff_->plan.changed) rows_.push_back({Kind::Changed, &c.a, &c.b, &c});
    for (const DiffStep& s : diff_->plan.onlyA) rows_.push_back({Kind::OnlyA, &s, nullptr, nullptr});
    for (const DiffStep& s : diff_->plan.onlyB) rows_.push_back({Kind::OnlyB, nullptr, &s, nullptr});
  }
  endResetModel();
}

int DiffStepsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int DiffStepsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }
DiffStepsModel::Kind DiffStepsModel::kindOf(int row) const { return rows_.at(row).kind; }

QVariant DiffStepsModel::display(const Row& r, int column) const {
  auto text = [](const DiffStep* s, auto field) { return s ? field(*s) : QStringLiteral("-"); };
  switch (column) {
    case Status: return r.kind == Kind::Changed ? tr("changed") : r.kind == Kind::OnlyA ? tr("only A") : tr("only B");
    case StepA: return text(r.a, [](const DiffStep& s) { return QString::number(s.index); });
    case StepB: return text(r.b, [](const DiffStep& s) { return QString::number(s.index); });
    case LabelA: return text(r.a, [](const DiffStep& s) { return QString::fromStdString(s.label); });
    case LabelB: return text(r.b, [](const DiffStep& s) { return QString::fromStdString(s.label); });
    case What: {
      if (!r.change) return QString();
      QStringList what;
      for (const std::string& w : r.change->what) what << QString::fromStdString(w);
      if (r.a->schedule != r.b->schedule)
        what << QString("%1 → %2").arg(QString::fromStdString(r.a->schedule), QString::fromStdString(r.b->schedule));
      return what.join(", ");
    }
    case TimeA: return text(r.a, [](const DiffStep& s) { return QString::number(s.ns / 1e3, 'f', 2); });
    case TimeB: return text(r.b, [](const DiffStep& s) { return QString::number(s.ns / 1e3, 'f', 2); });
  }
  return {};
}

QVariant DiffStepsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(rows_.size())) return {};
  const Row& r = rows_[index.row()];
  if (role == Qt::DisplayRole) return display(r, index.column());
  if (role == Qt::TextAlignmentRole && (index.column() == TimeA || index.column() == TimeB || index.column() <= StepB))
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::BackgroundRole && index.column() == Status)
    return QColor(r.kind == Kind::Changed ? "#fff3bf" : r.kind == Kind::OnlyA ? "#ffe3e3" : "#d3f9d8");
  return {};
}

QVariant DiffStepsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"status", "A #", "B #", "A step", "B step", "what changed", "A (us)", "B (us)"};
  return section >= 0 && section < ColumnCount ? QString::fromUtf8(names[section]) : QVariant();
}

}  // namespace ks
