// The table of every program-builder op under its .ks name: parameters (positional, keyword,
// defaults), a one-line summary, and how to call the op:: function. The .ks parser calls ops
// through it, the printer and docs read signatures from it, and the GUI's highlighter reads names.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/program/builder.h"

namespace ks {

// What a parameter accepts.
enum class ArgKind : uint8_t {
  Tensor,      // a tensor value
  Operand,     // a tensor or a number (Python-style scalar that promotes like one)
  OptTensor,   // a tensor or none
  TensorList,  // [a, b, ...] of tensors
  Int,
  OptInt,      // an int or none
  Float,       // a number
  OptFloat,    // a number or none
  Bool,
  IntList,     // [1, 2]; a single int is taken as a one-element list
  PairList,    // [[before, after], ...]
  DType,       // "f16" or a bare dtype name: f16
  String,
};

// One evaluated argument (or expression value) of the .ks language.
struct OpArg {
  enum class Kind : uint8_t { None, Tensor, Int, Float, Bool, String, List } kind = Kind::None;
  Value tensor;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  std::vector<OpArg> list;
  SourceLoc loc;  // where the argument was written (for errors)

  static OpArg none() { return {}; }
  static OpArg ofTensor(Value v, SourceLoc l = {});
  static OpArg ofInt(int64_t v, SourceLoc l = {});
  static OpArg ofFloat(double v, SourceLoc l = {});
  static OpArg ofBool(bool v, SourceLoc l = {});
  static OpArg ofString(std::string v, SourceLoc l = {});
  bool isNumber() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
  std::string describe() const;  // "a tensor f32[2, 3]", "the int 3", "a list of 2 items"
};

struct OpParam {
  std::string name;
  ArgKind kind = ArgKind::Tensor;
  bool hasDefault = false;
  OpArg defaultValue;
  std::string defaultText;  // as written in the signature ("-1", "[1, 1]", "none")
};

struct OpInfo;

// The arguments of one call, bound to the op's parameters (defaults filled in). Accessors convert
// and throw ks::Error naming the op, the parameter and the argument's place.
class OpCall {
 public:
  OpCall(const OpInfo& op, ProgramBuilder& b, std::vector<OpArg> bound, SourceLoc where)
      : op_(op), b_(b), args_(std::move(bound)), where_(std::move(where)) {}
  Value tensor(int k) const;
  Operand operand(int k) const;
  std::optional<Value> optTensor(int k) const;
  std::vector<Value> tensors(int k) const;
  int64_t integer(int k) const;
  std::optional<int64_t> optInteger(int k) const;
  double number(int k) const;
  std::optional<double> optNumber(int k) const;
  bool boolean(int k) const;
  std::vector<int64_t> ints(int k) const;
  std::vector<std::pair<int64_t, int64_t>> pairs(int k) const;
  DType dtype(int k) const;
  std::string string(int k) const;
  const OpArg& arg(int k) const { return args_.at(k); }
  const SourceLoc& where() const { return where_; }
  ProgramBuilder& builder() const { return b_; }
  [[noreturn]] void fail(int k, const std::string& expected) const;

 private:
  const OpInfo& op_;
  ProgramBuilder& b_;
  std::vector<OpArg> args_;
  SourceLoc where_;
};

struct OpInfo {
  std::string name;      // .ks name, snake_case
  std::string category;  // "unary", "binary", "reduce", "movement", "nn", "dtype", "low-level"
  std::string signature; // "softmax(x: tensor, axis: int = -1)"
  std::string summary;   // one line for docs and tooltips
  std::vector<OpParam> params;
  bool multiResult = false;  // returns a list of tensors (split, chunk)
  std::function<std::vector<Value>(const OpCall&)> fn;
  bool lowLevel() const { return category == "low-level"; }
};

class OpRegistry {
 public:
  static const OpRegistry& instance();
  const OpInfo* find(const std::string& name) const;
  const std::vector<OpInfo>& ops() const { return ops_; }
  std::vector<std::string> names() const;
  // The known name closest to `name` (edit distance), or "" when nothing is close.
  std::string closest(const std::string& name) const;

  // Binds positional and keyword arguments to parameters, fills defaults, and calls the op.
  // Errors (unknown keyword, missing or extra argument, wrong kind, builder errors) carry `where`
  // or the argument's own place.
  std::vector<Value> call(const OpInfo& op, ProgramBuilder& b, std::vector<OpArg> positional,
                          std::vector<std::pair<std::string, OpArg>> keywords, const SourceLoc& where) const;

  // Words of the language that are not ops, for highlighters and name checks.
  static const std::vector<std::string>& keywords();      // input param const output true false none inf nan
  static const std::vector<std::string>& initializers();  // zeros ones full arange uniform normal data

  // The whole table as Markdown (one section per category): docs/program-format.md embeds it.
  std::string markdownTable() const;

 private:
  OpRegistry();
  // One family each, in the order of the reference table.
  void addDtypeOps();
  void addUnaryOps();
  void addBinaryOps();
  void addReductionOps();
  void addMovementOps();
  void addNnOps();
  void addLowLevelOps();
  void add(const std::string& signature, const std::string& category, const std::string& summary,
           std::function<std::vector<Value>(const OpCall&)> fn, bool multi = false);
  std::vector<OpInfo> ops_;
};

// Edit distance (Levenshtein), used for "did you mean" suggestions.
int editDistance(const std::string& a, const std::string& b);

}  // namespace ks
