// The Compare view's plan table: the plan steps that changed (kind, device, schedule or kernel)
// and those only one plan has, from the engine's PlanDiff; steps the same in both are counted,
// not listed.
#pragma once
#include <QAbstractTableModel>
#include <memory>

#include "engine/session/session_diff.h"

namespace ks {

class DiffStepsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Status, StepA, StepB, LabelA, LabelB, What, TimeA, TimeB, ColumnCount };
  enum class Kind : uint8_t { Changed, OnlyA, OnlyB };
  using QAbstractTableModel::QAbstractTableModel;

  void setDiff(std::shared_ptr<const SessionDiff> d);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
  Kind kindOf(int row) const;

 private:
  struct Row {
    Kind kind;
    const DiffStep* a = nullptr;  // null for a step only B has
    const DiffStep* b = nullptr;
    const DiffStepChange* change = nullptr;
  };
  QVariant display(const Row& r, int column) const;
  std::shared_ptr<const SessionDiff> diff_;
  std::vector<Row> rows_;
};

}  // namespace ks
