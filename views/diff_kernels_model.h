// The Compare view's kernel table: one row per kernel either plan launches, matched across the
// two sessions by structural hash (the engine's SessionDiff), with A's and B's times and the delta.
#pragma once
#include <QAbstractTableModel>
#include <memory>

#include "engine/session/session_diff.h"

namespace ks {

// Where a kernel stands in B relative to A.
enum class KernelChange : uint8_t { Same, Changed, OnlyA, OnlyB };
KernelChange kernelChangeOf(const DiffKernel& k);
QString kernelChangeName(KernelChange c);  // "same", "changed", "only A", "only B"

class DiffKernelsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Kernel, Status, TimeA, TimeB, Delta, Ratio, Where, ColumnCount };
  // Sorts by this role: numbers as numbers, the status by how much it matters.
  static constexpr int SortRole = Qt::UserRole + 1;
  using QAbstractTableModel::QAbstractTableModel;

  void setDiff(std::shared_ptr<const SessionDiff> d);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
  const DiffKernel* row(int r) const;

 private:
  QVariant display(const DiffKernel& k, int column) const;
  QVariant sortKey(const DiffKernel& k, int column) const;
  std::shared_ptr<const SessionDiff> diff_;
};

}  // namespace ks
