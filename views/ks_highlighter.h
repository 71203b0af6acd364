// Syntax highlighting for .ks programs: statements, dtypes, numbers, op calls, comments.
#pragma once
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace ks {

class KsHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  explicit KsHighlighter(QTextDocument* doc);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  std::vector<Rule> rules_;
};

}  // namespace ks
