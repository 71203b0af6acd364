// Which rows of the Rewrites table are shown: a saturation of 40 rules over 10 rounds is 400
// rows, most of them rules that matched nothing; hiding those and filtering by rule name leaves
// the rows that shaped the e-graph.
#pragma once
#include <QSortFilterProxyModel>

namespace ks {

class RewriteRowsFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;

  // Idle: the rule matched nothing in that round and was not banned.
  void setHideIdle(bool hide);
  bool hidesIdle() const { return hideIdle_; }
  // Rows whose rule name contains `text` (case-insensitive); "" shows every rule.
  void setRuleText(const QString& text);
  // Source rows the idle filter hides (whatever the rule text).
  int idleRows() const;

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  bool isIdle(int sourceRow) const;
  bool hideIdle_ = true;
  QString ruleText_;
};

}  // namespace ks
