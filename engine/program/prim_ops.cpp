// Internal primitive-node helpers for the composite ops (no promotion, no broadcasting).
#include "engine/program/prim_ops.h"

namespace ks::op::prim {

Node make(NodeKind k, std::vector<ClassId> in, std::vector<int64_t> attr, uint8_t opcode) {
  Node n;
  n.kind = k;
  n.in = std::move(in);
  n.attr = std::move(attr);
  n.op = opcode;
  return n;
}

Value unary(Value x, UnaryOp u) {
  return x.builder()->add(make(NodeKind::Unary, {x.id()}, {}, static_cast<uint8_t>(u)));
}

Value binary(BinaryOp b, Value x, Value y) {
  return x.builder()->add(make(NodeKind::Binary, {x.id(), y.id()}, {}, static_cast<uint8_t>(b)));
}

Value where(Value cond, Value a, Value b) {
  return cond.builder()->add(make(NodeKind::Where, {cond.id(), a.id(), b.id()}));
}

Value reduce(Value x, ReduceOp r, const std::vector<int>& axes) {
  if (axes.empty()) return x;
  return x.builder()->add(make(NodeKind::Reduce, {x.id()}, std::vector<int64_t>(axes.begin(), axes.end()),
                               static_cast<uint8_t>(r)));
}

Value constant(ProgramBuilder* b, DType t, double v) { return b->scalar(v, t); }

std::vector<int64_t> keptShape(const Shape& s, const std::vector<int>& axes) {
  std::vector<int64_t> r(s.begin(), s.end());
  for (int a : axes) r[a] = 1;
  return r;
}

std::vector<int64_t> toVec(const Shape& s) { return std::vector<int64_t>(s.begin(), s.end()); }

void fail(Value x, ErrorCode code, const char* name, const std::string& msg) {
  throw Error(code, msg, x.valid() ? x.builder()->location() : SourceLoc{}, name);
}

std::string describe(Value x) { return std::string(dtypeName(x.dtype())) + shapeStr(x.shape()); }

}  // namespace ks::op::prim
