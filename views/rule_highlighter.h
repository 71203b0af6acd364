// Syntax highlighting by regex rules, with one rule set per language: .ks programs (statements,
// dtypes, numbers, op calls, # comments) and generated OpenCL C or kernel IR prints (keywords,
// types, address-space qualifiers, builtins, numbers, // and /* */ comments).
#pragma once
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace ks {

class RuleHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  enum class Language { Ks, OpenCl };
  RuleHighlighter(Language language, QTextDocument* doc);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  std::vector<Rule> rules_;
  bool cComments_ = false;  // OpenCL: // and /* */ comments, which span lines, after the rules
  QTextCharFormat comment_;
};

}  // namespace ks
