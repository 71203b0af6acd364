// Tables and trees that size their columns to their content, elide long text in the middle (the
// ends of a kernel or schedule name tell them apart) and show a cut text whole in a tooltip.
#pragma once
#include <QStyledItemDelegate>

class QAbstractItemView;

namespace ks {

// Paints like QStyledItemDelegate; on a tooltip request for a cell whose text does not fit and for
// which the model gives no tooltip of its own, shows the whole text.
class ElidingDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                 const QModelIndex& index) override;
  // True when the cell's display text is wider than the room the style gives it.
  static bool isElided(const QAbstractItemView* view, const QModelIndex& index);
};

// Middle elision and the eliding delegate on `view` (a QTableView or QTreeView); call once.
void installEliding(QAbstractItemView* view);
// Sizes every column to the wider of its content and its header, but none wider than
// `maxFraction` of the view's width (at least 120 px), so one long name cannot push the rest out
// of sight; call after the model is filled.
void fitColumns(QAbstractItemView* view, double maxFraction = 0.45);

}  // namespace ks
