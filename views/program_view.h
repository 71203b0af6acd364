// The Program view: the .ks text with highlighting and inline error markers, Recompile, and a
// table of the program's inputs, parameters and outputs.
#pragma once
#include <QWidget>

#include "views/session_view.h"

class QPlainTextEdit;
class QTableView;
class QStandardItemModel;
class QLabel;
class QPushButton;

namespace ks {

class RuleHighlighter;

class ProgramView : public QWidget, public SessionView {
  Q_OBJECT
 public:
  explicit ProgramView(SessionContext* context, QWidget* parent = nullptr);

  void sessionLoaded(const SessionSnapshot& s) override;
  void sessionClosed() override;
  void selectionChanged(const Selection& s) override;
  void compileFailed(const CompileFailure& f) override;

  QPlainTextEdit* editor() const { return editor_; }
  QStandardItemModel* ioModel() const { return io_; }
  QString errorText() const;
  int errorLine() const { return errorLine_; }  // 0 when the program compiled
  void recompile();

 private:
  void markError(int line, int column, const QString& message);
  SessionContext* context_;
  QPlainTextEdit* editor_;
  RuleHighlighter* highlighter_;
  QLabel* error_;
  QPushButton* recompile_;
  QTableView* table_;
  QStandardItemModel* io_;
  QString name_ = "edited";
  int errorLine_ = 0;
};

}  // namespace ks
