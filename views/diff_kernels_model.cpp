// DiffKernelsModel: rows straight from SessionDiff::kernels.
#include "views/diff_kernels_model.h"

#include <QColor>
#include <QObject>
#include <cmath>

namespace ks {

KernelChange kernelChangeOf(const DiffKernel& k) {
  if (!k.nsB) return KernelChange::OnlyA;
  if (!k.nsA) return KernelChange::OnlyB;
  return k.changed() ? KernelChange::Changed : KernelChange::Same;
}

QString kernelChangeName(KernelChange c) {
  switch (c) {
    case KernelChange::Same: return QStringLiteral("same");
    case KernelChange::Changed: return QStringLiteral("changed");
    case KernelChange::OnlyA: return QStringLiteral("only A");
    case KernelChange::OnlyB: return QStringLiteral("only B");
  }
  return {};
}

namespace {
QString us(const std::optional<double>& ns) { return ns ? QString::number(*ns / 1e3, 'f', 2) : QStringLiteral("-"); }
QString orDash(const std::string& s) { return s.empty() ? QStringLiteral("-") : QString::fromStdString(s); }
}  // namespace

void DiffKernelsModel::setDiff(std::shared_ptr<const SessionDiff> d) {
  beginResetModel();
  diff_ = std::move(d);
  endResetModel();
}

int DiffKernelsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !diff_ ? 0 : int(diff_->kernels.size());
}

int DiffKernelsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const DiffKernel* DiffKernelsModel::row(int r) const {
  return diff_ && r >= 0 && r < int(diff_->kernels.size()) ? &diff_->kernels[r] : nullptr;
}

QVariant DiffKernelsModel::display(const DiffKernel& k, int column) const {
  switch (column) {
    case Kernel: return QString::fromStdString(k.name());
    case Status: return kernelChangeName(kernelChangeOf(k));
    case TimeA: return us(k.nsA);
    case TimeB: return us(k.nsB);
    case Delta:
      if (!k.nsA || !k.nsB) return QStringLiteral("-");
      return QString("%1%2").arg(*k.nsB >= *k.nsA ? "+" : "").arg((*k.nsB - *k.nsA) / 1e3, 0, 'f', 2);
    case Ratio: return k.nsA && k.nsB && *k.nsA > 0 ? QString("%1x").arg(*k.nsB / *k.nsA, 0, 'f', 2) : QStringLiteral("-");
    case Where:
      // A kernel one plan alone launches says where it runs there (and whether the other session
      // compiled it without launching it).
      if (!k.nsB) return "A: " + orDash(k.deviceA) + " " + QString::fromStdString(k.scheduleA) + (k.compiledB ? QObject::tr("  (compiled in B, not launched)") : QString());
      if (!k.nsA) return "B: " + orDash(k.deviceB) + " " + QString::fromStdString(k.scheduleB) + (k.compiledA ? QObject::tr("  (compiled in A, not launched)") : QString());
      if (!k.changed()) return QString();
      return orDash(k.deviceA) + " " + orDash(k.scheduleA) + "  →  " + orDash(k.deviceB) + " " + orDash(k.scheduleB);
  }
  return {};
}

QVariant DiffKernelsModel::sortKey(const DiffKernel& k, int column) const {
  switch (column) {
    case Status: return int(kernelChangeOf(k));
    case TimeA: return k.nsA.value_or(-1);
    case TimeB: return k.nsB.value_or(-1);
    case Delta: return k.nsA && k.nsB ? *k.nsB - *k.nsA : 0.0;
    case Ratio: return k.nsA && k.nsB && *k.nsA > 0 ? *k.nsB / *k.nsA : 0.0;
  }
  return display(k, column);
}

QVariant DiffKernelsModel::data(const QModelIndex& index, int role) const {
  const DiffKernel* k = row(index.row());
  if (!k) return {};
  if (role == Qt::DisplayRole) return display(*k, index.column());
  if (role == SortRole) return sortKey(*k, index.column());
  if (role == Qt::TextAlignmentRole && index.column() >= TimeA && index.column() <= Ratio)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && index.column() == Delta && k->nsA && k->nsB && *k->nsB != *k->nsA)
    return QColor(*k->nsB < *k->nsA ? "#2b8a3e" : "#c92a2a");  // faster in B is good news
  if (role == Qt::BackgroundRole && index.column() == Status) {
    switch (kernelChangeOf(*k)) {
      case KernelChange::Changed: return QColor("#fff3bf");
      case KernelChange::OnlyA: return QColor("#ffe3e3");
      case KernelChange::OnlyB: return QColor("#d3f9d8");
      case KernelChange::Same: break;
    }
  }
  if (role == Qt::ToolTipRole && index.column() == Kernel)
    return QString("A: %1\nB: %2").arg(orDash(k->nameA), orDash(k->nameB));
  return {};
}

QVariant DiffKernelsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"kernel", "status", "A (us)", "B (us)", "B − A (us)", "B / A", "A → B (device, schedule)"};
  return section >= 0 && section < ColumnCount ? QString::fromUtf8(names[section]) : QVariant();
}

}  // namespace ks
