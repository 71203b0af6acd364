// KsHighlighter rules; later rules win where they overlap (comments last).
#include "views/ks_highlighter.h"

namespace ks {

namespace {
QTextCharFormat fmt(const char* color, bool bold = false, bool italic = false) {
  QTextCharFormat f;
  f.setForeground(QColor(color));
  if (bold) f.setFontWeight(QFont::Bold);
  f.setFontItalic(italic);
  return f;
}
}  // namespace

KsHighlighter::KsHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
  rules_.push_back({QRegularExpression("\\b[A-Za-z_][A-Za-z0-9_]*(?=\\s*\\()"), fmt("#1864ab")});
  rules_.push_back({QRegularExpression("\\b(input|param|const|output)\\b"), fmt("#862e9c", true)});
  rules_.push_back({QRegularExpression("\\b(bool|u8|i8|i16|i32|i64|u32|f16|f32|f64)\\b"), fmt("#2b8a3e", true)});
  rules_.push_back({QRegularExpression("\\b(true|false|none|inf|nan)\\b"), fmt("#c92a2a")});
  rules_.push_back({QRegularExpression("\\b[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?\\b"), fmt("#e8590c")});
  rules_.push_back({QRegularExpression("\"[^\"]*\""), fmt("#5f3dc4")});
  rules_.push_back({QRegularExpression("#.*$"), fmt("#868e96", false, true)});
}

void KsHighlighter::highlightBlock(const QString& text) {
  for (const Rule& r : rules_) {
    auto it = r.pattern.globalMatch(text);
    while (it.hasNext()) {
      const auto m = it.next();
      setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), r.format);
    }
  }
}

}  // namespace ks
