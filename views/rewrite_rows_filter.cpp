// RewriteRowsFilter: reads the source model's Matches, Banned and Rule columns (EditRole).
#include "views/rewrite_rows_filter.h"

#include "views/rewrites_model.h"

namespace ks {

void RewriteRowsFilter::setHideIdle(bool hide) {
  if (hide == hideIdle_) return;
  hideIdle_ = hide;
  invalidateFilter();
}

void RewriteRowsFilter::setRuleText(const QString& text) {
  if (text == ruleText_) return;
  ruleText_ = text;
  invalidateFilter();
}

bool RewriteRowsFilter::isIdle(int sourceRow) const {
  const QAbstractItemModel* m = sourceModel();
  return m->index(sourceRow, RewritesModel::Matches).data(Qt::EditRole).toULongLong() == 0 &&
         !m->index(sourceRow, RewritesModel::Banned).data(Qt::EditRole).toBool();
}

int RewriteRowsFilter::idleRows() const {
  if (!sourceModel()) return 0;
  int n = 0;
  for (int r = 0; r < sourceModel()->rowCount(); ++r) n += isIdle(r);
  return n;
}

bool RewriteRowsFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  if (sourceParent.isValid()) return false;
  if (hideIdle_ && isIdle(sourceRow)) return false;
  if (ruleText_.isEmpty()) return true;
  const QString rule = sourceModel()->index(sourceRow, RewritesModel::Rule).data(Qt::EditRole).toString();
  return rule.contains(ruleText_, Qt::CaseInsensitive);
}

}  // namespace ks
