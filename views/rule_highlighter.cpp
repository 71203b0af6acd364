// RuleHighlighter: regex rules applied in order (later rules win where they overlap, so the .ks
// comment rule comes last), then for OpenCL the // and /* */ comments, tracked through the block state.
#include "views/rule_highlighter.h"

namespace ks {

namespace {
QTextCharFormat fmt(const QColor& c, bool bold = false, bool italic = false) {
  QTextCharFormat f;
  f.setForeground(c);
  if (bold) f.setFontWeight(QFont::Bold);
  f.setFontItalic(italic);
  return f;
}
}  // namespace

RuleHighlighter::RuleHighlighter(Language language, QTextDocument* doc) : QSyntaxHighlighter(doc) {
  auto rule = [this](const char* pattern, const QTextCharFormat& format) {
    rules_.push_back({QRegularExpression(pattern), format});
  };
  if (language == Language::Ks) {
    rule("\\b[A-Za-z_][A-Za-z0-9_]*(?=\\s*\\()", fmt(QColor("#1864ab")));
    rule("\\b(input|param|const|output)\\b", fmt(QColor("#862e9c"), true));
    rule("\\b(bool|u8|i8|i16|i32|i64|u32|f16|f32|f64)\\b", fmt(QColor("#2b8a3e"), true));
    rule("\\b(true|false|none|inf|nan)\\b", fmt(QColor("#c92a2a")));
    rule("\\b[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?\\b", fmt(QColor("#e8590c")));
    rule("\"[^\"]*\"", fmt(QColor("#5f3dc4")));
    rule("#.*$", fmt(QColor("#868e96"), false, true));
    return;
  }
  rule(R"(\b(__kernel|kernel|__global|global|__local|local|__constant|constant|__private|private|restrict|const|volatile|inline|static)\b)",
       fmt(QColor(0x8e, 0x24, 0xaa), true));
  rule(R"(\b(if|else|for|while|do|return|break|continue|switch|case|default|goto|sizeof)\b)", fmt(QColor(0x1a, 0x4f, 0xb0), true));
  rule(R"(\b(void|bool|char|uchar|short|ushort|int|uint|long|ulong|half|float|double|size_t|ptrdiff_t)(2|3|4|8|16)?\b|\b(i|u|f|bf)(8|16|32|64)\b)",
       fmt(QColor(0x00, 0x7a, 0x6c)));
  rule(R"(\b(get_global_id|get_local_id|get_group_id|get_global_size|get_local_size|get_num_groups|barrier|mem_fence|vload\d+|vstore\d+|vload_half\d*|vstore_half\d*|mad|fma|exp|exp2|log|log2|sqrt|rsqrt|native_\w+|fmax|fmin|max|min|select|convert_\w+|as_\w+|CLK_LOCAL_MEM_FENCE|CLK_GLOBAL_MEM_FENCE|INFINITY|NAN)\b)",
       fmt(QColor(0xb0, 0x5a, 0x00)));
  rule(R"(\b(0[xX][0-9a-fA-F]+[uUlL]*|\d+\.?\d*([eE][+-]?\d+)?[fFhHuUlL]*)\b)", fmt(QColor(0xc0, 0x39, 0x2b)));
  rule(R"(^\s*#.*$)", fmt(QColor(0x6d, 0x6d, 0x6d), true));
  cComments_ = true;
  comment_ = fmt(QColor(0x5f, 0x8a, 0x3a), false, true);
}

void RuleHighlighter::highlightBlock(const QString& text) {
  for (const Rule& r : rules_) {
    auto it = r.pattern.globalMatch(text);
    while (it.hasNext()) {
      const auto m = it.next();
      setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), r.format);
    }
  }
  if (!cComments_) return;
  // Block comments (state 1 = inside one at the end of the previous line), then line comments.
  setCurrentBlockState(0);
  int start = previousBlockState() == 1 ? 0 : text.indexOf("/*");
  while (start >= 0) {
    const int end = text.indexOf("*/", start + (previousBlockState() == 1 && start == 0 ? 0 : 2));
    int len;
    if (end < 0) {
      setCurrentBlockState(1);
      len = text.size() - start;
    } else {
      len = end - start + 2;
    }
    setFormat(start, len, comment_);
    start = end < 0 ? -1 : text.indexOf("/*", start + len);
  }
  const int line = text.indexOf("//");
  if (line >= 0 && format(line) != comment_) setFormat(line, text.size() - line, comment_);
}

}  // namespace ks
