// Names of the primitive operations (used by printers, DOT, JSON and the session file).
#include "engine/graph/ops.h"

#include <array>

namespace ks {

namespace {
constexpr std::array<std::string_view, kNumUnaryOps> kUnary{
    "neg", "abs", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
    "tan", "tanh", "erf", "floor", "ceil", "round", "trunc", "not", "isnan", "sign"};
constexpr std::array<std::string_view, kNumBinaryOps> kBinary{
    "add", "sub", "mul", "div", "mod", "pow", "max", "min", "lt", "le", "gt", "ge", "eq", "ne",
    "and", "or", "xor"};
constexpr std::array<std::string_view, 4> kReduce{"sum", "max", "min", "prod"};

template <class E, std::size_t N>
std::optional<E> parse(const std::array<std::string_view, N>& names, std::string_view s) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}
// A code past the list (a file is checked on load, but a label must never read past it) is "?".
template <class E, std::size_t N>
std::string_view name(const std::array<std::string_view, N>& names, E op) {
  const auto i = static_cast<std::size_t>(op);
  return i < N ? names[i] : "?";
}
}  // namespace

std::string_view unaryOpName(UnaryOp op) { return name(kUnary, op); }
std::string_view binaryOpName(BinaryOp op) { return name(kBinary, op); }
std::string_view reduceOpName(ReduceOp op) { return name(kReduce, op); }
std::optional<UnaryOp> parseUnaryOp(std::string_view s) { return parse<UnaryOp>(kUnary, s); }
std::optional<BinaryOp> parseBinaryOp(std::string_view s) { return parse<BinaryOp>(kBinary, s); }

bool isComparison(BinaryOp op) { return op >= BinaryOp::CmpLt && op <= BinaryOp::CmpNe; }
BinaryOp combinerOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return BinaryOp::Add;
    case ReduceOp::Prod: return BinaryOp::Mul;
    case ReduceOp::Max: return BinaryOp::Max;
    case ReduceOp::Min: return BinaryOp::Min;
  }
  return BinaryOp::Add;
}
bool isCommutative(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: case BinaryOp::Mul: case BinaryOp::Max: case BinaryOp::Min:
    case BinaryOp::CmpEq: case BinaryOp::CmpNe: case BinaryOp::And: case BinaryOp::Or:
    case BinaryOp::Xor: return true;
    default: return false;
  }
}

}  // namespace ks
