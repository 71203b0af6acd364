// Internal helpers shared by the *_ops.cpp files: primitive nodes without promotion or broadcasting.
#pragma once
#include <string>
#include <vector>

#include "engine/program/builder.h"

namespace ks::op::prim {

// The dtype arithmetic runs in: f16 is a storage type, computed in f32 (DESIGN.md §2.1).
inline DType computeType(DType t) { return t == DType::F16 ? DType::F32 : t; }

Node make(NodeKind k, std::vector<ClassId> in, std::vector<int64_t> attr = {}, uint8_t opcode = 0);
Value unary(Value x, UnaryOp u);
// Operands must already have one dtype and one shape (or be rank-0 constants).
Value binary(BinaryOp b, Value x, Value y);
Value where(Value cond, Value a, Value b);
// Reduce in x's own dtype over normalized, sorted axes (no-op for none); the axes are removed.
Value reduce(Value x, ReduceOp r, const std::vector<int>& axes);
// A rank-0 constant of dtype t.
Value constant(ProgramBuilder* b, DType t, double v);
// The shape with the listed (normalized) axes set to 1.
std::vector<int64_t> keptShape(const Shape& s, const std::vector<int>& axes);
std::vector<int64_t> toVec(const Shape& s);

[[noreturn]] void fail(Value x, ErrorCode code, const char* name, const std::string& msg);
std::string describe(Value x);  // "f32[2, 3]"

}  // namespace ks::op::prim
