// The primitive operations shared by the e-graph and the kernel IR.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace ks {

// Elementwise unary primitives. Composite activations (sigmoid, gelu, ...) are built from these
// by the program builder. Semantics are IEEE (NaN/inf propagate); Round is half to even;
// Not is logical for bool and bitwise for integers.
enum class UnaryOp : uint8_t {
  Neg, Abs, Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Reciprocal, Sin, Cos, Tan, Tanh, Erf,
  Floor, Ceil, Round, Trunc, Not, IsNan, Sign,
};
inline constexpr int kNumUnaryOps = 21;

// Elementwise binary primitives on operands of one dtype (the builder promotes first).
// Div: true division for floats, truncation toward zero for ints. Mod: result takes the divisor's
// sign (Python/PyTorch remainder). Max/Min propagate NaN. Comparisons return bool.
// And/Or/Xor: logical for bool, bitwise for ints.
enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, Mod, Pow, Max, Min, CmpLt, CmpLe, CmpGt, CmpGe, CmpEq, CmpNe, And, Or, Xor,
};
inline constexpr int kNumBinaryOps = 17;

enum class ReduceOp : uint8_t { Sum, Max, Min, Prod };

std::string_view unaryOpName(UnaryOp op);    // "exp"
std::string_view binaryOpName(BinaryOp op);  // "add"
std::string_view reduceOpName(ReduceOp op);  // "sum"
std::optional<UnaryOp> parseUnaryOp(std::string_view s);
std::optional<BinaryOp> parseBinaryOp(std::string_view s);
bool isComparison(BinaryOp op);   // result dtype is bool
BinaryOp combinerOf(ReduceOp op); // the binary op a reduction folds with: sum -> add, prod -> mul, max, min
bool isCommutative(BinaryOp op);

}  // namespace ks
