// RewritesModel: the report's RuleRound records as table rows; sorting goes through a proxy.
#include "views/rewrites_model.h"

namespace ks {

void RewritesModel::setSession(std::shared_ptr<const Session> s) {
  beginResetModel();
  session_ = std::move(s);
  endResetModel();
}

int RewritesModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !session_) return 0;
  return static_cast<int>(session_->trace().rewrite.report.rules.size());
}

int RewritesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const RuleRound* RewritesModel::row(int r) const {
  if (r < 0 || r >= rowCount()) return nullptr;
  return &session_->trace().rewrite.report.rules[static_cast<std::size_t>(r)];
}

QVariant RewritesModel::data(const QModelIndex& index, int role) const {
  const RuleRound* r = index.isValid() ? row(index.row()) : nullptr;
  if (!r) return {};
  if (role == Qt::TextAlignmentRole && index.column() != Rule)
    return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
  if (role == Qt::ToolTipRole && r->banned)
    return tr("more matches than the rule's limit this round: none applied, the rule waits some rounds");
  // Numbers stay numbers under EditRole so the proxy sorts them as numbers.
  const bool text = role == Qt::DisplayRole;
  if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
  switch (index.column()) {
    case Round: return r->round;
    case Rule: return QString::fromStdString(r->rule);
    case Matches: return qulonglong(r->matches);
    case Merges: return qulonglong(r->merges);
    case NodesAdded: return qulonglong(r->nodesAdded);
    case ClassesAdded: return qulonglong(r->classesAdded);
    case Ms: return text ? QVariant(QString::number(r->ms, 'f', 3)) : QVariant(r->ms);
    case Banned: return text ? QVariant(r->banned ? tr("banned") : QString()) : QVariant(r->banned);
    default: return {};
  }
}

QVariant RewritesModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
  switch (section) {
    case Round: return tr("Round");
    case Rule: return tr("Rule");
    case Matches: return tr("Matches");
    case Merges: return tr("Merges");
    case NodesAdded: return tr("E-nodes added");
    case ClassesAdded: return tr("Classes added");
    case Ms: return tr("ms");
    case Banned: return tr("Banned");
    default: return {};
  }
}

}  // namespace ks
