// Tokens of the .ks program format: names, numbers, strings, punctuation, line ends.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ks {

struct KsToken {
  enum class Kind : uint8_t { Ident, Int, Float, String, Punct, Newline, End } kind = Kind::End;
  std::string text;  // as written (String: the unquoted contents; Punct: "(", "<=", ...)
  int line = 1;      // 1-based
  int column = 1;    // 1-based, in bytes
  int64_t i = 0;     // Int value
  double f = 0.0;    // Float value
  // "'foo'", "the number 3", "end of line", "end of file": how errors name what was found.
  std::string describe() const;
  bool is(const char* punct) const { return kind == Kind::Punct && text == punct; }
};

// Splits .ks text into tokens. Comments (# to end of line) and blank lines vanish; line ends
// inside ( ) or [ ] are ignored so long lists may span lines. Throws ks::Error (Parse) with
// file:line:column for a bad character, an unterminated string or a malformed number.
std::vector<KsToken> lexKs(const std::string& text, const std::string& file);

}  // namespace ks
