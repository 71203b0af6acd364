// Syntax highlighting for generated OpenCL C (and the kernel IR prints): keywords, types,
// address-space qualifiers, builtins, numbers and comments.
#pragma once
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace ks {

class OpenClHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  explicit OpenClHighlighter(QTextDocument* doc);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
  };
  std::vector<Rule> rules_;
  QTextCharFormat comment_;
};

}  // namespace ks
