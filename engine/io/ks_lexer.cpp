// The .ks tokenizer: one pass over the bytes, positions kept for every token.
#include "engine/io/ks_lexer.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "engine/core/error.h"

namespace ks {

std::string KsToken::describe() const {
  switch (kind) {
    case Kind::Ident: return "'" + text + "'";
    case Kind::Int:
    case Kind::Float: return "the number " + text;
    case Kind::String: return "the string \"" + text + "\"";
    case Kind::Punct: return "'" + text + "'";
    case Kind::Newline: return "end of line";
    case Kind::End: return "end of file";
  }
  return "?";
}

namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

std::string printable(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  if (u >= 32 && u < 127) return std::string("'") + c + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

}  // namespace

std::vector<KsToken> lexKs(const std::string& text, const std::string& file) {
  std::vector<KsToken> out;
  std::size_t p = 0;
  int line = 1, col = 1;
  int depth = 0;  // open ( and [: line ends inside them are not statement ends
  auto fail = [&](const std::string& msg, int l, int c) -> void {
    throw Error(ErrorCode::Parse, msg, SourceLoc(file, l, c));
  };
  auto push = [&](KsToken t) { out.push_back(std::move(t)); };
  while (p < text.size()) {
    const char c = text[p];
    if (c == '\n') {
      if (depth == 0 && !out.empty() && out.back().kind != KsToken::Kind::Newline) {
        KsToken t;
        t.kind = KsToken::Kind::Newline;
        t.line = line;
        t.column = col;
        push(t);
      }
      ++p;
      ++line;
      col = 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++p;
      ++col;
      continue;
    }
    if (c == '#') {
      while (p < text.size() && text[p] != '\n') ++p;
      continue;
    }
    KsToken t;
    t.line = line;
    t.column = col;
    const std::size_t start = p;
    if (identStart(c)) {
      while (p < text.size() && identChar(text[p])) ++p;
      t.kind = KsToken::Kind::Ident;
      t.text = text.substr(start, p - start);
    } else if (digit(c) || (c == '.' && p + 1 < text.size() && digit(text[p + 1]))) {
      bool isFloat = false;
      while (p < text.size() && digit(text[p])) ++p;
      if (p < text.size() && text[p] == '.') {
        isFloat = true;
        ++p;
        while (p < text.size() && digit(text[p])) ++p;
      }
      if (p < text.size() && (text[p] == 'e' || text[p] == 'E')) {
        isFloat = true;
        ++p;
        if (p < text.size() && (text[p] == '+' || text[p] == '-')) ++p;
        if (p >= text.size() || !digit(text[p])) {
          while (p < text.size() && identChar(text[p])) ++p;
          fail("malformed number '" + text.substr(start, p - start) + "' (expected digits after the exponent)", line, col);
        }
        while (p < text.size() && digit(text[p])) ++p;
      }
      if (p < text.size() && (identChar(text[p]) || text[p] == '.')) {
        while (p < text.size() && (identChar(text[p]) || text[p] == '.')) ++p;
        fail("malformed number '" + text.substr(start, p - start) + "'", line, col);
      }
      t.text = text.substr(start, p - start);
      errno = 0;
      if (isFloat) {
        t.kind = KsToken::Kind::Float;
        t.f = std::strtod(t.text.c_str(), nullptr);
        if (errno == ERANGE && std::isinf(t.f)) fail("number " + t.text + " is out of range for a double", line, col);
      } else {
        t.kind = KsToken::Kind::Int;
        t.i = std::strtoll(t.text.c_str(), nullptr, 10);
        if (errno == ERANGE) fail("integer " + t.text + " is out of range (at most 2^63 - 1)", line, col);
      }
    } else if (c == '"') {
      ++p;
      std::string s;
      while (true) {
        if (p >= text.size() || text[p] == '\n') fail("unterminated string (expected '\"' before the end of the line)", line, col);
        if (text[p] == '"') break;
        if (text[p] == '\\' && p + 1 < text.size() && (text[p + 1] == '"' || text[p + 1] == '\\')) ++p;
        s += text[p++];
      }
      ++p;
      t.kind = KsToken::Kind::String;
      t.text = std::move(s);
    } else {
      static const char* twoChar[] = {"<=", ">=", "==", "!="};
      t.kind = KsToken::Kind::Punct;
      for (const char* tc : twoChar)
        if (text.compare(p, 2, tc) == 0) t.text = tc;
      if (t.text.empty()) {
        if (std::string("()[],:=+-*/@<>").find(c) == std::string::npos) {
          if (c == '!') fail("unexpected '!' (did you mean '!=' or logical_not(x)?)", line, col);
          fail("unexpected character " + printable(c), line, col);
        }
        t.text = std::string(1, c);
      }
      p += t.text.size();
      if (c == '(' || c == '[') ++depth;
      if ((c == ')' || c == ']') && depth > 0) --depth;
    }
    col += static_cast<int>(p - start);
    push(std::move(t));
  }
  if (!out.empty() && out.back().kind != KsToken::Kind::Newline) {
    KsToken nl;
    nl.kind = KsToken::Kind::Newline;
    nl.line = line;
    nl.column = col;
    out.push_back(nl);
  }
  KsToken end;
  end.kind = KsToken::Kind::End;
  end.line = line;
  end.column = col;
  out.push_back(end);
  return out;
}

}  // namespace ks
