// The Rewrites view's table: one row per rule per saturation round, straight from the session's
// rewrite report (matches, merges, e-nodes and classes added, time, banned).
#pragma once
#include <QAbstractTableModel>
#include <memory>

#include "engine/session/session.h"

namespace ks {

class RewritesModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Round, Rule, Matches, Merges, NodesAdded, ClassesAdded, Ms, Banned, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;

  void setSession(std::shared_ptr<const Session> s);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
  // The record behind a row (null when out of range).
  const RuleRound* row(int r) const;

 private:
  std::shared_ptr<const Session> session_;
};

}  // namespace ks
