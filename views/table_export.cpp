// CSV export of table models: quoting per RFC 4180 so spreadsheets and the tests read it back.
#include "views/table_export.h"

#include <QAbstractItemModel>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QFileDialog>
#include <QMessageBox>
#include <QTableView>

namespace ks {

namespace {
QString csvField(QString s) {
  if (s.contains(',') || s.contains('"') || s.contains('\n')) return '"' + s.replace('"', "\"\"") + '"';
  return s;
}
}  // namespace

QString tableToCsv(const QAbstractItemModel& model) {
  QString out;
  const int cols = model.columnCount();
  QStringList header;
  for (int c = 0; c < cols; ++c) header << csvField(model.headerData(c, Qt::Horizontal).toString());
  out += header.join(',') + '\n';
  for (int r = 0; r < model.rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < cols; ++c) row << csvField(model.data(model.index(r, c)).toString());
    out += row.join(',') + '\n';
  }
  return out;
}

QString writeTableCsv(const QAbstractItemModel& model, const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) return f.errorString();
  const QByteArray bytes = tableToCsv(model).toUtf8();
  if (f.write(bytes) != bytes.size()) return f.errorString();
  return QString();
}

QList<QStringList> parseCsv(const QString& text) {
  QList<QStringList> rows;
  QStringList row;
  QString field;
  bool quoted = false, any = false;
  for (int i = 0; i < text.size(); ++i) {
    const QChar ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
      any = true;
    } else if (ch == ',') {
      row << field;
      field.clear();
      any = true;
    } else if (ch == '\n') {
      row << field;
      rows << row;
      row.clear();
      field.clear();
      any = false;
    } else {
      field += ch;
      any = true;
    }
  }
  if (any) {
    row << field;
    rows << row;
  }
  return rows;
}

void addCsvExport(QTableView* table, const QString& defaultName) {
  table->setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* exportAct = new QAction(QObject::tr("Export CSV…"), table);
  QObject::connect(exportAct, &QAction::triggered, table, [table, defaultName] {
    if (!table->model()) return;
    const QString path = QFileDialog::getSaveFileName(table, QObject::tr("Export CSV"), defaultName,
                                                      QObject::tr("CSV files (*.csv)"));
    if (path.isEmpty()) return;
    const QString err = writeTableCsv(*table->model(), path);
    if (!err.isEmpty()) QMessageBox::warning(table, QObject::tr("Export CSV"), err);
  });
  auto* copyAct = new QAction(QObject::tr("Copy as CSV"), table);
  QObject::connect(copyAct, &QAction::triggered, table, [table] {
    if (table->model()) QApplication::clipboard()->setText(tableToCsv(*table->model()));
  });
  table->addAction(exportAct);
  table->addAction(copyAct);
}

}  // namespace ks
