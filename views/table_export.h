// CSV export of any table model (the analysis views' "Export CSV…" action) and the context menu
// that offers it on a table view.
#pragma once
#include <QString>

class QAbstractItemModel;
class QTableView;

namespace ks {

// The model's rows as CSV text: a header line from the horizontal header, then one line per row
// (DisplayRole), fields quoted when they hold a comma, quote or newline.
QString tableToCsv(const QAbstractItemModel& model);
// Writes tableToCsv to `path`; returns an empty string on success or the reason it failed.
QString writeTableCsv(const QAbstractItemModel& model, const QString& path);
// Splits CSV text back into rows of fields (the inverse of tableToCsv; used by the tests).
QList<QStringList> parseCsv(const QString& text);
// Adds "Export CSV…" (and "Copy as CSV") to the table's context menu.
void addCsvExport(QTableView* table, const QString& defaultName);

}  // namespace ks
