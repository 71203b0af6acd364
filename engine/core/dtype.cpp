// Element types and PyTorch's promotion lattice.
#include "engine/core/dtype.h"

#include <algorithm>
#include <array>
#include <string>

namespace ks {

namespace {
struct DTypeInfo {
  std::string_view name;
  std::size_t size;
  DTypeKind kind;
  bool isSigned;
};
constexpr std::array<DTypeInfo, kNumDTypes> kInfo{{
    {"bool", 1, DTypeKind::Bool, false},
    {"u8", 1, DTypeKind::Int, false},
    {"i8", 1, DTypeKind::Int, true},
    {"i16", 2, DTypeKind::Int, true},
    {"i32", 4, DTypeKind::Int, true},
    {"i64", 8, DTypeKind::Int, true},
    {"u32", 4, DTypeKind::Int, false},
    {"f16", 2, DTypeKind::Float, true},
    {"f32", 4, DTypeKind::Float, true},
    {"f64", 8, DTypeKind::Float, true},
}};
const DTypeInfo& info(DType t) { return kInfo[static_cast<std::size_t>(t)]; }
}  // namespace

std::string_view dtypeName(DType t) { return info(t).name; }
std::size_t dtypeSize(DType t) { return info(t).size; }
DTypeKind dtypeKind(DType t) { return info(t).kind; }
bool isSigned(DType t) { return info(t).isSigned; }

std::optional<DType> parseDType(std::string_view s) {
  static const std::pair<std::string_view, DType> aliases[] = {
      {"bool", DType::Bool},    {"u8", DType::U8},       {"uint8", DType::U8},     {"i8", DType::I8},
      {"int8", DType::I8},      {"i16", DType::I16},     {"int16", DType::I16},    {"i32", DType::I32},
      {"int32", DType::I32},    {"i64", DType::I64},     {"int64", DType::I64},    {"u32", DType::U32},
      {"uint32", DType::U32},   {"f16", DType::F16},     {"float16", DType::F16},  {"half", DType::F16},
      {"f32", DType::F32},      {"float32", DType::F32}, {"float", DType::F32},    {"f64", DType::F64},
      {"float64", DType::F64},  {"double", DType::F64},
  };
  for (auto& [name, t] : aliases)
    if (name == s) return t;
  return std::nullopt;
}

DType promoteTypes(DType a, DType b) {
  if (a == b) return a;
  const DTypeKind ka = dtypeKind(a), kb = dtypeKind(b);
  if (ka != kb) return ka > kb ? a : b;
  if (ka == DTypeKind::Float) return dtypeSize(a) >= dtypeSize(b) ? a : b;
  // Two ints. Same signedness: the wider one. Mixed: the signed one if strictly wider,
  // otherwise the signed type twice the unsigned one's width (u8+i8 -> i16, u32+i32 -> i64).
  if (isSigned(a) == isSigned(b)) return dtypeSize(a) >= dtypeSize(b) ? a : b;
  const DType s = isSigned(a) ? a : b, u = isSigned(a) ? b : a;
  if (dtypeSize(s) > dtypeSize(u)) return s;
  switch (dtypeSize(u)) {
    case 1: return DType::I16;
    case 2: return DType::I32;
    default: return DType::I64;
  }
}

DType defaultDType(DTypeKind k) {
  switch (k) {
    case DTypeKind::Bool: return DType::Bool;
    case DTypeKind::Int: return DType::I64;
    case DTypeKind::Float: return DType::F32;
  }
  return DType::F32;
}

DType resultType(const PromotionOperand* ops, std::size_t n) {
  using P = PromotionOperand::Priority;
  // Per priority level: the promoted dtype of the operands at that level, if any.
  std::optional<DType> level[3];
  for (std::size_t i = 0; i < n; ++i) {
    auto& slot = level[static_cast<int>(ops[i].priority)];
    DType t = ops[i].dtype;
    if (ops[i].priority == P::Scalar) t = defaultDType(dtypeKind(t));
    slot = slot ? promoteTypes(*slot, t) : t;
  }
  std::optional<DType> result;
  for (int p = 2; p >= 0; --p) {
    if (!level[p]) continue;
    if (!result) {
      result = level[p];
    } else if (dtypeKind(*level[p]) > dtypeKind(*result)) {
      // A lower-priority operand of a higher kind: the higher kind's dtype, taken from that
      // operand for 0-dim tensors and the default dtype for scalars.
      result = p == static_cast<int>(P::Scalar) ? defaultDType(dtypeKind(*level[p])) : *level[p];
    }
  }
  return result.value_or(DType::F32);
}

DType sumResultType(DType t) {
  if (t == DType::Bool || isInt(t)) return DType::I64;
  return t;
}

}  // namespace ks
