// ks::Error: every failure the engine reports, with what failed and where in the program.
#pragma once
#include <stdexcept>
#include <string>

namespace ks {

// A place in a program's source: a .ks file position or an ONNX node name.
struct SourceLoc {
  SourceLoc() = default;
  SourceLoc(std::string f, int l = 0, int c = 0, std::string n = {})
      : file(std::move(f)), line(l), column(c), node(std::move(n)) {}
  std::string file;
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based; 0 = unknown
  std::string node;  // ONNX node name or other symbolic place
  bool known() const { return !file.empty() || line > 0 || !node.empty(); }
  std::string str() const;  // "file:line:col" / "file (node 'x')"
};

enum class ErrorCode {
  Shape, DType, Axis, Parse, Unsupported, Io, Device, Build, Launch, Allocation,
  Invariant, Cancelled, Usage, Internal,
};
const char* errorCodeName(ErrorCode c);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message, SourceLoc where = {}, std::string op = {});
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }  // without the place prefix
  const SourceLoc& where() const { return where_; }
  const std::string& op() const { return op_; }
  // A copy that carries a place (keeps an existing one).
  Error at(const SourceLoc& where) const;

 private:
  static std::string format(const std::string& msg, const SourceLoc& where, const std::string& op);
  ErrorCode code_;
  std::string message_;
  SourceLoc where_;
  std::string op_;
};

}  // namespace ks
