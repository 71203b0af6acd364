// GEMM epilogues: derived from the graph, run on the host over the product.
#include "engine/plan/gemm_epilogue.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "engine/eval/scalar_ops.h"
#include "engine/plan/strided_view.h"
#include "engine/plan/view_indices.h"

namespace ks {

namespace {

// Window tables past this many entries are not built (the pooling stays a kernel).
constexpr int64_t kMaxWindowEntries = int64_t{1} << 24;

bool isMovement(NodeKind k) {
  return k == NodeKind::Expand || k == NodeKind::Permute || k == NodeKind::Pad || k == NodeKind::Narrow ||
         k == NodeKind::Flip;  // Reshape apart: it keeps the value's layout
}

bool isFloatUnary(UnaryOp u) { return u != UnaryOp::Not && u != UnaryOp::IsNan; }
bool isFloatBinary(BinaryOp b) {
  switch (b) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Max:
    case BinaryOp::Min: return true;
    default: return false;
  }
}

// The other operand of a binary op: a constant, or a leaf read in place (through its Reshape /
// Permute chain) and broadcast by an Expand. Its strides are over the op's shape.
bool sideOperand(const Graph& g, ClassId s, const Shape& shape, EpilogueOp& op, std::vector<ClassId>& extra) {
  if (g.dtype(s) != DType::F32) return false;
  if (g.isConst(s)) {
    op.operand = -1;
    op.constant = static_cast<float>(g.structural(s).value.toDouble());
    return true;
  }
  ClassId t = s;
  if (g.structural(t).kind == NodeKind::Expand) t = g.structural(t).in[0];
  const Shape& ts = g.shape(t);
  if (ts.size() != shape.size()) return false;
  for (const StridedView& w : stridedViews(g, t)) {
    if (!g.isLeaf(w.base)) continue;
    op.strides = w.strides;
    for (std::size_t a = 0; a < ts.size(); ++a)
      if (ts[a] == 1) op.strides[a] = 0;
    const auto it = std::find(extra.begin(), extra.end(), w.base);
    op.operand = static_cast<int>(it - extra.begin());
    if (it == extra.end()) extra.push_back(w.base);
    return true;
  }
  return false;
}

// out[o] = reduce over the window of o: the reduced axes of the Reduce's operand, which is a
// movement view of the value below it.
std::optional<EpilogueOp> windowOp(const Graph& g, ClassId r) {
  const Node& n = g.structural(r);
  if (n.reduceOp() != ReduceOp::Max && n.reduceOp() != ReduceOp::Sum) return std::nullopt;
  const ClassId v = n.in[0];
  const auto vi = viewIndices(g, v, kMaxWindowEntries);
  const Shape& vs = g.shape(v);
  if (!vi || numel(vs) > kMaxWindowEntries) return std::nullopt;
  EpilogueOp op;
  op.kind = EpilogueOp::Kind::Window;
  op.op = n.op;
  op.fill = static_cast<float>(vi->fill);
  op.outElements = numel(g.shape(r));
  // Kept axes first, the reduced ones last (in their order): the order the host reduces in.
  std::vector<int> order, reduced;
  for (int a = 0; a < static_cast<int>(vs.size()); ++a)
    (std::find(n.attr.begin(), n.attr.end(), a) != n.attr.end() ? reduced : order).push_back(a);
  op.windowSize = 1;
  for (int a : reduced) op.windowSize *= vs[a];
  order.insert(order.end(), reduced.begin(), reduced.end());
  const std::vector<int64_t> st = contiguousStrides(vs);
  op.window.resize(static_cast<std::size_t>(numel(vs)));
  std::vector<int64_t> idx(order.size(), 0);
  op.inElements = numel(g.shape(movementRoot(g, v)));
  for (int32_t& e : op.window) {
    int64_t flat = 0;
    for (std::size_t j = 0; j < order.size(); ++j) flat += idx[j] * st[static_cast<std::size_t>(order[j])];
    const int64_t s = vi->src[static_cast<std::size_t>(flat)];
    e = static_cast<int32_t>(s < 0 ? op.inElements : s);
    for (std::size_t j = order.size(); j-- > 0;) {
      if (++idx[j] < vs[order[j]]) break;
      idx[j] = 0;
    }
  }
  return op;
}

// Walks x down to the product, appending the ops bottom-up; false when x is no epilogue chain.
bool descend(const Graph& g, ClassId x, const std::function<bool(ClassId)>& isProduct, GemmEpilogue& ep, int depth) {
  if (isProduct(x)) {
    ep.product = x;
    ep.productElements = numel(g.shape(x));
    return true;
  }
  const Node& n = g.structural(x);
  if (depth > 64 || g.dtype(x) != DType::F32) return false;
  if (n.kind == NodeKind::Reshape) return descend(g, n.in[0], isProduct, ep, depth + 1);
  EpilogueOp op;
  op.op = n.op;
  op.outElements = numel(g.shape(x));
  if (n.kind == NodeKind::Unary && isFloatUnary(n.unaryOp())) {
    op.kind = EpilogueOp::Kind::Unary;
    if (!descend(g, n.in[0], isProduct, ep, depth + 1)) return false;
  } else if (n.kind == NodeKind::Binary && isFloatBinary(n.binaryOp())) {
    op.kind = EpilogueOp::Kind::Binary;
    op.shape = g.shape(x);
    bool ok = false;
    for (int chain = 0; chain < 2 && !ok; ++chain) {
      const std::size_t savedExtra = ep.extra.size(), savedOps = ep.ops.size();
      op.valueLeft = chain == 0;
      ok = g.shape(n.in[chain]) == g.shape(x) && sideOperand(g, n.in[1 - chain], op.shape, op, ep.extra) &&
           descend(g, n.in[chain], isProduct, ep, depth + 1);
      if (!ok) ep.extra.resize(savedExtra), ep.ops.resize(savedOps);
    }
    if (!ok) return false;
  } else if (n.kind == NodeKind::Reduce) {
    auto w = windowOp(g, x);
    if (!w || !descend(g, movementRoot(g, n.in[0]), isProduct, ep, depth + 1)) return false;
    op = std::move(*w);
  } else {
    return false;
  }
  ep.ops.push_back(std::move(op));
  return true;
}

}  // namespace

std::optional<GemmEpilogue> epilogueOf(const Graph& g, ClassId e, const std::function<bool(ClassId)>& isProduct) {
  GemmEpilogue ep;
  if (!descend(g, e, isProduct, ep, 0) || ep.ops.empty()) return std::nullopt;
  return ep;
}

StructuralUses structuralUses(const Graph& g, const std::vector<ClassId>& outputs) {
  StructuralUses u;
  u.count.assign(g.classCount(), 0);
  u.first.assign(g.classCount(), ClassId());
  for (ClassId c : g.topoOrder(outputs))
    for (ClassId x : g.structural(c).in) {
      const ClassId f = g.find(x);
      if (u.count[f.v]++ == 0) u.first[f.v] = c;
    }
  return u;
}

std::optional<ClassId> epilogueEnd(const Graph& g, ClassId c, const StructuralUses& uses,
                                   const std::vector<ClassId>& outputs) {
  c = g.find(c);
  const auto isC = [&g, c](ClassId x) { return g.find(x) == c; };
  std::optional<ClassId> end;
  ClassId x = c, value = c;  // value: the last class an op made; x: value through movement nodes
  bool reshapesOnly = true;
  for (;;) {
    if (std::find(outputs.begin(), outputs.end(), x) != outputs.end() || uses.count[x.v] != 1) break;
    const ClassId y = uses.first[x.v];
    const Node& n = g.structural(y);
    if (g.dtype(y) != DType::F32) break;
    if (n.kind == NodeKind::Reshape || isMovement(n.kind)) {
      reshapesOnly = reshapesOnly && n.kind == NodeKind::Reshape;
      x = y;
      continue;
    }
    // An elementwise op reads the value itself (through Reshapes only), a window any view of it.
    const bool elementwise = reshapesOnly && ((n.kind == NodeKind::Unary && isFloatUnary(n.unaryOp())) ||
                                              (n.kind == NodeKind::Binary && isFloatBinary(n.binaryOp())));
    const bool window = n.kind == NodeKind::Reduce && movementRoot(g, n.in[0]) == value;
    if ((!elementwise && !window) || !epilogueOf(g, y, isC)) break;
    end = value = x = y;
    reshapesOnly = true;
  }
  return end;
}

namespace {

// floatBinary's values (NaN propagates through max and min) without branches, so the loops
// vectorize: max(x, y) is x when x is NaN or larger, else y (NaN when y is).
template <BinaryOp B>
inline float op2(float x, float y) {
  if constexpr (B == BinaryOp::Add) return x + y;
  if constexpr (B == BinaryOp::Sub) return x - y;
  if constexpr (B == BinaryOp::Mul) return x * y;
  if constexpr (B == BinaryOp::Div) return x / y;
  if constexpr (B == BinaryOp::Max) return (x != x || x > y) ? x : y;
  if constexpr (B == BinaryOp::Min) return (x != x || x < y) ? x : y;
  return x;
}

template <BinaryOp B>
void constantPass(const float* in, float* out, int64_t n, float k, bool valueLeft) {
  if (valueLeft)
    for (int64_t i = 0; i < n; ++i) out[i] = op2<B>(in[i], k);
  else
    for (int64_t i = 0; i < n; ++i) out[i] = op2<B>(k, in[i]);
}

// One row of the last axis against the operand at `step` (0: one value for the row).
template <BinaryOp B>
void rowPass(const float* v, float* o, const float* x, int64_t n, int64_t step, bool valueLeft) {
  if (step == 0) return constantPass<B>(v, o, n, *x, valueLeft);
  if (valueLeft)
    for (int64_t j = 0; j < n; ++j) o[j] = op2<B>(v[j], x[j * step]);
  else
    for (int64_t j = 0; j < n; ++j) o[j] = op2<B>(x[j * step], v[j]);
}

template <BinaryOp B>
void binaryPass(const EpilogueOp& op, const float* in, float* out, const float* x) {
  if (op.operand < 0) return constantPass<B>(in, out, op.outElements, op.constant, op.valueLeft);
  // Rows of the last axis; the operand's offset follows the other axes like an odometer.
  const std::size_t r = op.shape.size();
  const int64_t inner = r ? op.shape[r - 1] : 1, step = r ? op.strides[r - 1] : 0;
  if (inner == 0) return;
  std::vector<int64_t> idx(r > 1 ? r - 1 : 0, 0);
  int64_t offset = 0;
  for (int64_t row = 0, rows = op.outElements / inner; row < rows; ++row) {
    rowPass<B>(in + row * inner, out + row * inner, x + offset, inner, step, op.valueLeft);
    for (std::size_t a = idx.size(); a-- > 0;) {
      offset += op.strides[a];
      if (++idx[a] < op.shape[a]) break;
      offset -= op.strides[a] * op.shape[a];
      idx[a] = 0;
    }
  }
}

void binary(const EpilogueOp& op, const float* in, float* out, const float* x) {
  switch (static_cast<BinaryOp>(op.op)) {
    case BinaryOp::Add: return binaryPass<BinaryOp::Add>(op, in, out, x);
    case BinaryOp::Sub: return binaryPass<BinaryOp::Sub>(op, in, out, x);
    case BinaryOp::Mul: return binaryPass<BinaryOp::Mul>(op, in, out, x);
    case BinaryOp::Div: return binaryPass<BinaryOp::Div>(op, in, out, x);
    case BinaryOp::Max: return binaryPass<BinaryOp::Max>(op, in, out, x);
    case BinaryOp::Min: return binaryPass<BinaryOp::Min>(op, in, out, x);
    default: return;  // epilogueOf admits no other
  }
}

// The host executor's reduction: from the identity, in the window's row-major order, max
// propagating NaN (a NaN stays; else a NaN or larger value replaces the maximum). `in` has one
// element past the value, the fill the table points to.
void window(const EpilogueOp& op, float* in, float* out) {
  in[op.inElements] = op.fill;
  const int32_t* w = op.window.data();
  const int64_t k = op.windowSize;
  if (static_cast<ReduceOp>(op.op) == ReduceOp::Sum) {
    for (int64_t o = 0; o < op.outElements; ++o, w += k) {
      float acc = 0.0f;
      for (int64_t j = 0; j < k; ++j) acc += in[w[j]];
      out[o] = acc;
    }
    return;
  }
  for (int64_t o = 0; o < op.outElements; ++o, w += k) {
    float acc = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < k; ++j) {
      const float v = in[w[j]];
      acc = acc == acc && (v != v || v > acc) ? v : acc;
    }
    out[o] = acc;
  }
}

}  // namespace

int64_t GemmEpilogue::scratchElements() const {
  int64_t n = 0;
  for (const EpilogueOp& op : ops)
    if (op.kind == EpilogueOp::Kind::Window) n = std::max(n, op.outElements);
  return n + 1;
}

void GemmEpilogue::apply(float* value, float* out, const std::vector<const float*>& operands, float* scratch) const {
  // A window reads its input one element past its end (the fill): value and scratch are one
  // element longer than what they hold; out is only written.
  float* cur = value;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const EpilogueOp& op = ops[i];
    // Elementwise ops work in place; a window writes into the other of value and scratch (sizes
    // only shrink along the chain, so value is large enough for any later window).
    const bool last = i + 1 == ops.size();
    float* dst = last ? out : op.kind != EpilogueOp::Kind::Window ? cur : cur == value ? scratch : value;
    switch (op.kind) {
      case EpilogueOp::Kind::Unary:
        for (int64_t e = 0; e < op.outElements; ++e) dst[e] = floatUnary<float>(static_cast<UnaryOp>(op.op), cur[e]);
        break;
      case EpilogueOp::Kind::Binary: binary(op, cur, dst, op.operand < 0 ? nullptr : operands.at(op.operand)); break;
      case EpilogueOp::Kind::Window: window(op, cur, dst); break;  // cur is value or scratch
    }
    cur = dst;
  }
}

}  // namespace ks
