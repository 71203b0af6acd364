// Element types, their properties, and PyTorch's type-promotion rules.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ks {

// Order is part of the session-file format: append only.
enum class DType : uint8_t { Bool, U8, I8, I16, I32, I64, U32, F16, F32, F64 };
inline constexpr int kNumDTypes = 10;

// The three kinds PyTorch promotes between: a value of a higher kind wins.
enum class DTypeKind : uint8_t { Bool, Int, Float };

std::string_view dtypeName(DType t);                   // "f32"
std::optional<DType> parseDType(std::string_view s);   // accepts "f32", "float32", "int64", ...
std::size_t dtypeSize(DType t);
DTypeKind dtypeKind(DType t);
inline bool isFloat(DType t) { return dtypeKind(t) == DTypeKind::Float; }
inline bool isInt(DType t) { return dtypeKind(t) == DTypeKind::Int; }  // bool is not an int
inline bool isBool(DType t) { return t == DType::Bool; }
bool isSigned(DType t);  // floats and signed ints

// torch.promote_types for two tensors of the same priority.
DType promoteTypes(DType a, DType b);

// The default dtype PyTorch gives a Python scalar of a kind (bool, int64, float32).
DType defaultDType(DTypeKind k);

// One operand of an n-ary op, as PyTorch's result_type sees it.
struct PromotionOperand {
  DType dtype;
  enum class Priority : uint8_t { Scalar, ZeroDim, Tensor } priority;
};
// torch.result_type: tensors with dims win over 0-dim tensors, which win over Python scalars,
// unless a lower-priority operand is of a higher kind (then it picks the dtype of that kind).
DType resultType(const PromotionOperand* ops, std::size_t n);

// Accumulator dtype of a sum/prod (PyTorch: bool and ints sum in int64, floats in themselves;
// f16 accumulates in f32 and is rounded at the end).
DType sumResultType(DType t);

}  // namespace ks
