// ProgramView: editor + error marker + I/O table, filled from the loaded program.
#include "views/program_view.h"

#include <algorithm>

#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTableView>
#include <QTextBlock>
#include <QVBoxLayout>

#include "engine/session/source_links.h"
#include "views/onnx_node_tree.h"
#include "views/rule_highlighter.h"
#include "views/table_fit.h"

namespace ks {

ProgramView::ProgramView(SessionContext* context, QWidget* parent) : QWidget(parent), context_(context) {
  editor_ = new QPlainTextEdit(this);
  QFont mono("DejaVu Sans Mono");
  mono.setStyleHint(QFont::Monospace);
  mono.setPointSizeF(9.5);
  editor_->setFont(mono);
  editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
  editor_->setPlaceholderText(tr("Open a .ks program or a sample (File menu), or type one here."));
  highlighter_ = new RuleHighlighter(RuleHighlighter::Language::Ks, editor_->document());
  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setStyleSheet("QLabel { color: #c92a2a; }");
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->hide();
  recompile_ = new QPushButton(tr("Recompile (Ctrl+Return)"), this);
  recompile_->setToolTip(tr("Parse and build the edited program; errors are marked in the text"));
  connect(recompile_, &QPushButton::clicked, this, &ProgramView::recompile);
  connect(editor_, &QPlainTextEdit::cursorPositionChanged, this, &ProgramView::cursorLineChanged);
  auto* sc = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), editor_);
  connect(sc, &QShortcut::activated, this, &ProgramView::recompile);

  io_ = new QStandardItemModel(0, 4, this);
  io_->setHorizontalHeaderLabels({tr("role"), tr("name"), tr("type"), tr("e-class / init")});
  table_ = new QTableView(this);
  table_->setModel(io_);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  installEliding(table_);
  connect(table_, &QTableView::clicked, this, [this](const QModelIndex& idx) {
    const QVariant cls = io_->item(idx.row(), 0)->data(Qt::UserRole);
    if (!cls.isValid() || !context_) return;
    Selection s = context_->selection();
    s.eclass = cls.toUInt();
    context_->select(s, this);
  });

  auto* text = new QWidget(this);
  auto* textLayout = new QVBoxLayout(text);
  textLayout->setContentsMargins(0, 0, 0, 0);
  textLayout->addWidget(editor_);
  textLayout->addWidget(error_);
  textLayout->addWidget(recompile_);
  nodes_ = new OnnxNodeTree(this);
  connect(nodes_, &OnnxNodeTree::nodeChosen, this, &ProgramView::onnxNodeChosen);
  source_ = new QStackedWidget(this);
  source_->addWidget(text);
  source_->addWidget(nodes_);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(source_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(split);
}

void ProgramView::recompile() {
  if (context_) context_->compileSource(editor_->toPlainText(), name_);
}

QString ProgramView::errorText() const { return error_->isVisible() ? error_->text() : QString(); }

void ProgramView::sessionLoaded(const SessionSnapshot& s) {
  followingSelection_ = true;  // loading the text moves the cursor; that selects nothing
  if (!s.source.isEmpty() && s.source != editor_->toPlainText()) editor_->setPlainText(s.source);
  followingSelection_ = false;
  program_ = s.program;
  session_ = s.session;
  cursorLine_ = editor_->textCursor().blockNumber() + 1;
  // What was compiled is the unmodified text: its lines are the ones the program's places name.
  editor_->document()->setModified(false);
  markLinkedLines({}, false);
  editor_->setReadOnly(s.source.isEmpty() && s.program != nullptr);
  if (s.program) name_ = QString::fromStdString(s.program->name);
  markError(0, 0, QString());
  io_->removeRows(0, io_->rowCount());
  nodes_->setProgram(s.program.get());
  // A model has no text to edit: its nodes take the text's place (a compile error still shows the text).
  source_->setCurrentIndex(s.source.isEmpty() && nodes_->nodeCount() > 0 ? 1 : 0);
  if (!s.program) return;
  const Program& p = *s.program;
  auto typeOf = [&](ClassId c) {
    return QString::fromStdString(std::string(dtypeName(p.graph.dtype(c))) + shapeStr(p.graph.shape(c)));
  };
  auto addRow = [&](const QString& role, const std::string& name, ClassId c, const QString& extra) {
    QList<QStandardItem*> row{new QStandardItem(role), new QStandardItem(QString::fromStdString(name)),
                              new QStandardItem(typeOf(c)), new QStandardItem(extra)};
    row[0]->setData(c.v, Qt::UserRole);
    for (auto* it : row) it->setToolTip(QString("%1 %2: %3, e-class %4").arg(role, QString::fromStdString(name), typeOf(c), "%" + QString::number(c.v)));
    io_->appendRow(row);
  };
  for (const auto& in : p.inputs) addRow(tr("input"), in.name, in.cls, "%" + QString::number(in.cls.v));
  for (const auto& pa : p.params) addRow(tr("param"), pa.name, pa.cls, QString::fromStdString(pa.init.str()));
  for (const auto& out : p.outputs) addRow(tr("output"), out.name, out.cls, "%" + QString::number(out.cls.v));
  fitColumns(table_);
}

void ProgramView::sessionClosed() {
  program_.reset();
  session_.reset();
  markLinkedLines({}, false);
  editor_->clear();
  io_->removeRows(0, io_->rowCount());
  nodes_->setProgram(nullptr);
  source_->setCurrentIndex(0);
  markError(0, 0, QString());
}

void ProgramView::selectionChanged(const Selection& s) {
  std::vector<int> lines;
  if (program_ && !editor_->document()->isModified()) {
    if (s.eclass && *s.eclass < program_->graph.classCount())
      for (const SourcePlace& p : program_->places.of(program_->graph, ClassId(*s.eclass)))
        if (p.line > 0 && std::find(lines.begin(), lines.end(), p.line) == lines.end()) lines.push_back(p.line);
    if (lines.empty() && s.kernel && session_) lines = sourceLines(*session_, classesOfKernel(*session_, *s.kernel));
    std::sort(lines.begin(), lines.end());
  }
  markLinkedLines(lines, true);
  std::optional<ClassId> cls;
  if (s.eclass && program_ && *s.eclass < program_->graph.classCount()) cls = program_->graph.find(ClassId(*s.eclass));
  nodes_->showClass(cls);
  table_->clearSelection();
  if (!s.eclass) return;
  for (int r = 0; r < io_->rowCount(); ++r) {
    if (io_->item(r, 0)->data(Qt::UserRole).toUInt() == *s.eclass) {
      table_->selectRow(r);
      return;
    }
  }
}

void ProgramView::cursorLineChanged() {
  const int line = editor_->textCursor().blockNumber() + 1;
  if (line == cursorLine_) return;
  cursorLine_ = line;
  if (followingSelection_ || !program_ || !context_ || editor_->document()->isModified()) return;
  const std::vector<ClassId> classes = program_->places.classesAtLine(program_->graph, line);
  if (classes.empty()) return;
  // The statement's result is the last class its line made (operands are made first).
  const ClassId result = classes.back();
  Selection s = context_->selection();
  s.eclass = result.v;
  if (session_)
    if (const auto k = kernelComputing(*session_, result)) s.kernel = static_cast<uint32_t>(*k);
  markLinkedLines({line}, false);
  context_->select(s, this);
}

bool ProgramView::showsOnnxNodes() const { return source_->currentIndex() == 1; }

// A node selects the class it stands for and the plan kernel computing it, as a source line does.
void ProgramView::onnxNodeChosen(int node) {
  if (!program_ || !context_) return;
  const ClassId result = nodes_->resultClass(node);
  Selection s = context_->selection();
  s.eclass = result.v;
  if (session_)
    if (const auto k = kernelComputing(*session_, result)) s.kernel = static_cast<uint32_t>(*k);
  context_->select(s, this);
}

void ProgramView::markLinkedLines(const std::vector<int>& lines, bool scroll) {
  linkedLines_ = lines;
  linkMarks_.clear();
  for (int line : lines) {
    const QTextBlock block = editor_->document()->findBlockByNumber(line - 1);
    if (!block.isValid()) continue;
    QTextEdit::ExtraSelection mark;
    mark.format.setBackground(QColor("#e7f5ff"));
    mark.format.setProperty(QTextFormat::FullWidthSelection, true);
    mark.cursor = QTextCursor(block);
    linkMarks_ << mark;
  }
  if (scroll && !lines.empty()) {
    const QTextBlock block = editor_->document()->findBlockByNumber(lines.front() - 1);
    if (block.isValid() && block.blockNumber() + 1 != cursorLine_) {
      followingSelection_ = true;
      editor_->setTextCursor(QTextCursor(block));
      editor_->ensureCursorVisible();
      followingSelection_ = false;
    }
  }
  applyMarks();
}

void ProgramView::applyMarks() { editor_->setExtraSelections(linkMarks_ + errorMarks_); }

void ProgramView::compileFailed(const CompileFailure& f) {
  // The text no longer is what the shown program was compiled from: no links until one compiles.
  program_.reset();
  session_.reset();
  markLinkedLines({}, false);
  if (!f.source.isEmpty() && f.source != editor_->toPlainText()) editor_->setPlainText(f.source);
  source_->setCurrentIndex(0);
  markError(f.line, f.column, f.message);
}

void ProgramView::markError(int line, int column, const QString& message) {
  errorLine_ = message.isEmpty() ? 0 : line;
  QList<QTextEdit::ExtraSelection>& marks = errorMarks_;
  marks.clear();
  if (!message.isEmpty() && line > 0) {
    const QTextBlock block = editor_->document()->findBlockByNumber(line - 1);
    if (block.isValid()) {
      QTextEdit::ExtraSelection whole;
      whole.format.setBackground(QColor("#fff5f5"));
      whole.format.setProperty(QTextFormat::FullWidthSelection, true);
      whole.cursor = QTextCursor(block);
      marks << whole;
      QTextEdit::ExtraSelection squiggle;
      squiggle.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
      squiggle.format.setUnderlineColor(QColor("#e03131"));
      squiggle.format.setToolTip(message);
      QTextCursor c(block);
      const int start = std::clamp(column - 1, 0, std::max(0, block.length() - 1));
      c.setPosition(block.position() + start);
      c.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
      squiggle.cursor = c;
      marks << squiggle;
      editor_->setTextCursor(QTextCursor(block));
      editor_->centerCursor();
    }
  }
  applyMarks();
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
}

}  // namespace ks
