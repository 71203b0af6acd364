// Column fitting and middle elision with whole-text tooltips for the views' tables and trees.
#include "views/table_fit.h"

#include <QHeaderView>
#include <QHelpEvent>
#include <QTableView>
#include <QToolTip>
#include <QTreeView>
#include <algorithm>

namespace ks {

namespace {
QHeaderView* columnHeader(QAbstractItemView* view) {
  if (auto* t = qobject_cast<QTableView*>(view)) return t->horizontalHeader();
  if (auto* t = qobject_cast<QTreeView*>(view)) return t->header();
  return nullptr;
}
}  // namespace

bool ElidingDelegate::isElided(const QAbstractItemView* view, const QModelIndex& index) {
  const QString text = index.data(Qt::DisplayRole).toString();
  if (text.isEmpty()) return false;
  QStyleOptionViewItem opt;
  opt.initFrom(view);
  opt.rect = view->visualRect(index);
  opt.features |= QStyleOptionViewItem::HasDisplay;
  opt.text = text;
  if (const QVariant f = index.data(Qt::FontRole); f.isValid()) opt.font = qvariant_cast<QFont>(f);
  opt.fontMetrics = QFontMetrics(opt.font);
  if (index.data(Qt::DecorationRole).isValid()) opt.features |= QStyleOptionViewItem::HasDecoration;
  const QRect textRect = view->style()->subElementRect(QStyle::SE_ItemViewItemText, &opt, view);
  // The style keeps a small margin on each side of the text.
  const int margin = view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
  return opt.fontMetrics.horizontalAdvance(text) > textRect.width() - 2 * margin;
}

bool ElidingDelegate::helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                                const QModelIndex& index) {
  if (event && view && index.isValid() && event->type() == QEvent::ToolTip && !index.data(Qt::ToolTipRole).isValid()) {
    if (isElided(view, index)) {
      QToolTip::showText(event->globalPos(), index.data(Qt::DisplayRole).toString(), view->viewport(),
                         view->visualRect(index));
      return true;
    }
    QToolTip::hideText();
    return true;
  }
  return QStyledItemDelegate::helpEvent(event, view, option, index);
}

void installEliding(QAbstractItemView* view) {
  view->setTextElideMode(Qt::ElideMiddle);
  view->setItemDelegate(new ElidingDelegate(view));
  if (auto* t = qobject_cast<QTableView*>(view)) t->setWordWrap(false);
  if (auto* t = qobject_cast<QTreeView*>(view)) t->setWordWrap(false);
}

void fitColumns(QAbstractItemView* view, double maxFraction) {
  QHeaderView* header = columnHeader(view);
  if (!header || !view->model()) return;
  const int cap = std::max(120, static_cast<int>(view->viewport()->width() * maxFraction));
  const int columns = view->model()->columnCount(view->rootIndex());
  for (int c = 0; c < columns; ++c) {
    if (header->isSectionHidden(c) || header->sectionResizeMode(c) != QHeaderView::Interactive) continue;
    const int want = std::max(view->sizeHintForColumn(c), header->sectionSizeHint(c));
    header->resizeSection(c, std::min(want, cap));
  }
}

}  // namespace ks
