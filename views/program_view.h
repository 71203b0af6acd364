// The Program view: the .ks text with highlighting and inline error markers, Recompile, and a
// table of the program's inputs, parameters and outputs. An imported ONNX model shows its node
// tree in place of the text.
#pragma once
#include <QTextEdit>
#include <QWidget>
#include <vector>

#include "views/session_view.h"

class QPlainTextEdit;
class QTableView;
class QStandardItemModel;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace ks {

class OnnxNodeTree;
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
  OnnxNodeTree* onnxNodes() const { return nodes_; }
  bool showsOnnxNodes() const;
  QStandardItemModel* ioModel() const { return io_; }
  QString errorText() const;
  int errorLine() const { return errorLine_; }  // 0 when the program compiled
  void recompile();
  // The lines marked as the source of the current selection (ascending; empty when none).
  const std::vector<int>& linkedLines() const { return linkedLines_; }

 private:
  void markError(int line, int column, const QString& message);
  // The cursor's line selects what that line became, while the text is what was compiled.
  void cursorLineChanged();
  void markLinkedLines(const std::vector<int>& lines, bool scroll);
  void applyMarks();
  void onnxNodeChosen(int node);
  SessionContext* context_;
  QPlainTextEdit* editor_;
  RuleHighlighter* highlighter_;
  QLabel* error_;
  QPushButton* recompile_;
  QStackedWidget* source_;  // the text, or an ONNX model's node tree
  OnnxNodeTree* nodes_;
  QTableView* table_;
  QStandardItemModel* io_;
  QString name_ = "edited";
  int errorLine_ = 0;
  std::shared_ptr<const Program> program_;
  std::shared_ptr<const Session> session_;
  int cursorLine_ = 0;
  bool followingSelection_ = false;  // moving the cursor to a linked line selects nothing
  std::vector<int> linkedLines_;
  QList<QTextEdit::ExtraSelection> errorMarks_, linkMarks_;
};

}  // namespace ks
