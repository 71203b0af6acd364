// Column fitting and middle elision: short columns get their whole text, a long one is capped and
// cut in the middle, and only a cut cell shows its whole text as a tooltip.
#include <QApplication>
#include <QHeaderView>
#include <QHelpEvent>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>
#include <QToolTip>
#include <QTreeWidget>

#include "views/table_fit.h"

using namespace ks;

namespace {
const QString kLong = "reduce_sum_exp_sub_max_broadcast_over_axis_1_of_f32_64x1000_then_divide_by_sum";

// What the content asks for (public on the base class only).
int hint(const QAbstractItemView& v, int column) { return v.sizeHintForColumn(column); }
// Sends a tooltip request at the centre of `index` and returns what the tooltip shows then.
QString tooltipAt(QAbstractItemView& view, const QModelIndex& index) {
  QToolTip::hideText();  // hides after a short delay
  if (!QTest::qWaitFor([] { return !QToolTip::isVisible(); }, 2000)) return "(a previous tooltip stayed visible)";
  const QPoint at = view.visualRect(index).center();
  QHelpEvent ev(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
  QApplication::sendEvent(view.viewport(), &ev);
  return QToolTip::isVisible() ? QToolTip::text() : QString();
}
}  // namespace

class TestTableFit : public QObject {
  Q_OBJECT
 private slots:
  void fitsShortColumnsAndCapsLongOnes() {
    QStandardItemModel model(0, 3);
    model.setHorizontalHeaderLabels({"#", "label", "device"});
    for (int r = 0; r < 5; ++r)
      model.appendRow({new QStandardItem(QString::number(r)), new QStandardItem(r == 2 ? kLong : "add"),
                       new QStandardItem("opencl:0:0")});
    QTableView view;
    view.setModel(&model);
    view.resize(500, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    installEliding(&view);
    fitColumns(&view, 0.4);
    QHeaderView* h = view.horizontalHeader();
    // The device column gets room for its whole text; the label column is capped.
    QVERIFY(h->sectionSize(2) >= hint(view, 2));
    QVERIFY(h->sectionSize(1) <= int(view.viewport()->width() * 0.4));
    QVERIFY(h->sectionSize(1) < hint(view, 1));
    QCOMPARE(view.textElideMode(), Qt::ElideMiddle);

    // The cut cell says all of itself; a cell that fits shows no tooltip.
    QVERIFY(ElidingDelegate::isElided(&view, model.index(2, 1)));
    QVERIFY(!ElidingDelegate::isElided(&view, model.index(1, 1)));
    QCOMPARE(tooltipAt(view, model.index(2, 1)), kLong);
    QCOMPARE(tooltipAt(view, model.index(1, 1)), QString());
    // A tooltip of the model's own wins over the whole text.
    model.item(2, 1)->setToolTip("own tip");
    QCOMPARE(tooltipAt(view, model.index(2, 1)), QString("own tip"));
  }

  void treesToo() {
    QTreeWidget tree;
    tree.setColumnCount(2);
    tree.setHeaderLabels({"e-node", "why"});
    auto* item = new QTreeWidgetItem(&tree);
    item->setText(0, "#12 add");
    item->setText(1, kLong);
    tree.resize(400, 200);
    tree.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tree));
    installEliding(&tree);
    fitColumns(&tree, 0.5);
    QVERIFY(tree.header()->sectionSize(0) >= hint(tree, 0));
    const QModelIndex why = tree.model()->index(0, 1);
    // The last column stretches to the edge but still cannot hold the whole text.
    QVERIFY(ElidingDelegate::isElided(&tree, why));
    QCOMPARE(tooltipAt(tree, why), kLong);
  }
};

QTEST_MAIN(TestTableFit)
#include "test_table_fit.moc"
