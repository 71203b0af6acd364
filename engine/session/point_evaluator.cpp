// Per-element reference values (see point_evaluator.h).
#include "engine/session/point_evaluator.h"

#include <limits>

#include "engine/core/error.h"

namespace ks {

namespace {
constexpr std::size_t kMemoLimit = 1u << 22;  // entries (~100 MB at most)
constexpr int kMaxDepth = 20000;              // nested nodes of one element (stack use)
// One operand element a reduction accumulates, against one computed element: a load and an add
// in a tight loop, where an elementwise value also allocates and writes its result.
constexpr double kReduceTermWork = 0.25;

struct DepthGuard {
  int& d;
  explicit DepthGuard(int& depth) : d(depth) {
    if (++d > kMaxDepth)
      throw Error(ErrorCode::Unsupported, "the program is nested deeper than the per-element reference follows (" +
                                              std::to_string(kMaxDepth) + " nodes)", {}, "host");
  }
  ~DepthGuard() { --d; }
};
thread_local int depth = 0;
}  // namespace

PointEvaluator::PointEvaluator(const Graph& graph, const std::vector<HostTensor>& leaves, int64_t workBudget)
    : g_(graph), leaves_(leaves), budget_(workBudget) {}

KVal PointEvaluator::at(ClassId c, int64_t flat) {
  c = g_.find(c);
  // A leaf or constant is a load: cheaper to read again than to memoise, and the memo stays for
  // the values that are shared (a softmax row's max and sum).
  const Node& n = g_.structural(c);
  if (n.kind == NodeKind::Const) return kvalOf(n.value);
  if (n.kind == NodeKind::Leaf) return leaf(n, flat);
  const uint64_t key = (static_cast<uint64_t>(c.v) << 40) ^ static_cast<uint64_t>(flat);
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  if (++work_ > budget_)
    throw Error(ErrorCode::Cancelled, "the per-element reference ran past its budget of " + std::to_string(budget_) +
                                          " node visits", {}, "host");
  DepthGuard guard(depth);
  const KVal v = eval(c, flat);
  if (memo_.size() >= kMemoLimit) memo_.clear();
  memo_.emplace(key, v);
  return v;
}

KVal PointEvaluator::leaf(const Node& n, int64_t flat) {
  const LeafInfo& info = g_.leaf(n.ref);
  const bool have = n.ref < leaves_.size() && leaves_[n.ref].dtype() == info.dtype && leaves_[n.ref].shape() == info.shape;
  const HostTensor* t = have ? &leaves_[n.ref] : nullptr;
  if (!t && info.kind == LeafKind::Constant && info.data) t = info.data.get();
  if (!t) throw Error(ErrorCode::Usage, "leaf '" + info.name + "' has no value of its dtype and shape", {}, "host");
  KVal v;
  if (isFloat(info.dtype)) v.f = t->getDouble(flat);
  else v.i = t->getInt(flat);
  return v;
}

KVal PointEvaluator::reduce(const Node& n, ClassId c, int64_t flat) {
  const ClassId src = g_.find(n.in[0]);
  const Shape& inShape = g_.shape(src);
  const std::vector<int64_t> kept = unravelIndex(flat, g_.shape(c));
  std::vector<bool> reduced(inShape.size(), false);
  for (int64_t a : n.attr) reduced[static_cast<std::size_t>(a)] = true;
  std::vector<int64_t> coord(inShape.size(), 0);
  for (std::size_t i = 0, k = 0; i < inShape.size(); ++i)
    if (!reduced[i]) coord[i] = kept[k++];
  const DType t = g_.dtype(c), at = t == DType::F16 ? DType::F32 : t;
  const BinaryOp comb = combinerOf(n.reduceOp());
  KVal acc = reduceIdentity(n.reduceOp(), at);
  for (int64_t a : n.attr)
    if (inShape[static_cast<std::size_t>(a)] == 0) return at == t ? acc : evalCast(at, t, acc);
  // Row-major over the reduced axes, as the host executor accumulates.
  while (true) {
    const KVal x = this->at(src, ravelIndex(coord, inShape));
    acc = evalBinary(comb, at, acc, at == t ? x : evalCast(t, at, x));
    int i = static_cast<int>(n.attr.size()) - 1;
    for (; i >= 0; --i) {
      const std::size_t ax = static_cast<std::size_t>(n.attr[static_cast<std::size_t>(i)]);
      if (++coord[ax] < inShape[ax]) break;
      coord[ax] = 0;
    }
    if (i < 0) break;
  }
  return at == t ? acc : evalCast(at, t, acc);
}

KVal PointEvaluator::eval(ClassId c, int64_t flat) {
  const Node& n = g_.structural(c);
  const Shape& shape = g_.shape(c);
  auto operand = [&](std::size_t i) { return g_.find(n.in[i]); };
  // An operand of an elementwise node: same shape, or a rank-0 Const broadcast.
  auto elem = [&](std::size_t i) {
    const ClassId o = operand(i);
    return at(o, g_.shape(o).empty() ? 0 : flat);
  };
  switch (n.kind) {
    case NodeKind::Const: return kvalOf(n.value);
    case NodeKind::Leaf: return leaf(n, flat);
    case NodeKind::Reshape:
    case NodeKind::Contiguous:
    case NodeKind::ToDevice: return at(operand(0), flat);
    case NodeKind::Expand:
    case NodeKind::Permute:
    case NodeKind::Pad:
    case NodeKind::Narrow:
    case NodeKind::Flip: {
      const Shape& inShape = g_.shape(operand(0));
      const std::vector<int64_t> oc = unravelIndex(flat, shape);
      std::vector<int64_t> ic = oc;
      if (n.kind == NodeKind::Expand) {
        for (std::size_t i = 0; i < ic.size(); ++i) ic[i] = inShape[i] == 1 ? 0 : oc[i];
      } else if (n.kind == NodeKind::Permute) {
        for (std::size_t i = 0; i < n.attr.size(); ++i) ic[static_cast<std::size_t>(n.attr[i])] = oc[i];
      } else if (n.kind == NodeKind::Narrow) {
        ic[static_cast<std::size_t>(n.attr[0])] += n.attr[1];
      } else if (n.kind == NodeKind::Flip) {
        for (int64_t a : n.attr) ic[static_cast<std::size_t>(a)] = inShape[static_cast<std::size_t>(a)] - 1 - oc[static_cast<std::size_t>(a)];
      } else {
        const std::size_t ax = static_cast<std::size_t>(n.attr[0]);
        ic[ax] = oc[ax] - n.attr[1];
        if (ic[ax] < 0 || ic[ax] >= inShape[ax]) return kvalOf(n.value.cast(g_.dtype(c)));
      }
      return at(operand(0), ravelIndex(ic, inShape));
    }
    case NodeKind::Reduce: return reduce(n, c, flat);
    case NodeKind::Cast: return evalCast(g_.dtype(operand(0)), g_.dtype(c), at(operand(0), flat));
    case NodeKind::Unary: return evalUnary(n.unaryOp(), g_.dtype(operand(0)), at(operand(0), flat));
    case NodeKind::Binary: {
      const KVal a = elem(0), b = elem(1);
      return evalBinary(n.binaryOp(), g_.dtype(operand(0)), a, b);
    }
    case NodeKind::Where: return elem(0).i ? elem(1) : elem(2);
    case NodeKind::Bitcast:
    case NodeKind::Kernel: break;
  }
  throw Error(ErrorCode::Unsupported, "the per-element reference cannot evaluate " + n.label(), {}, "host");
}

double hostOracleWork(const Graph& graph, const std::vector<ClassId>& outputs) {
  const std::vector<ClassId> order = graph.topoOrder(outputs);
  std::unordered_map<uint32_t, int> uses;
  for (ClassId c : order)
    for (ClassId d : graph.structural(c).in) ++uses[graph.find(d).v];
  // Products HostExecutor fuses into the sum that reads them (a matmul): never materialised.
  std::unordered_map<uint32_t, bool> summedOnly;
  for (ClassId c : order) {
    const Node& n = graph.structural(c);
    if (n.kind != NodeKind::Reduce || n.reduceOp() != ReduceOp::Sum) continue;
    const ClassId p = graph.find(n.in[0]);
    const Node& pn = graph.structural(p);
    const DType t = graph.dtype(p);
    if (pn.kind == NodeKind::Binary && pn.binaryOp() == BinaryOp::Mul && uses[p.v] == 1 &&
        (t == DType::F32 || t == DType::F64))
      summedOnly[p.v] = true;
  }
  double w = 0;
  for (ClassId c : order) {
    const Node& n = graph.structural(c);
    switch (n.kind) {
      case NodeKind::Const:
      case NodeKind::Leaf:
      case NodeKind::Expand:
      case NodeKind::Permute:
      case NodeKind::Reshape:
      case NodeKind::Narrow:
      case NodeKind::Flip:
      case NodeKind::Contiguous:
      case NodeKind::ToDevice: continue;  // strides over a value, no element is computed
      default: break;
    }
    if (summedOnly.count(c.v)) continue;
    w += static_cast<double>(numel(graph.shape(c)));
    if (n.kind == NodeKind::Reduce) w += kReduceTermWork * static_cast<double>(numel(graph.shape(n.in[0])));
  }
  return w;
}

std::vector<int64_t> sampleIndices(int64_t numel, int64_t count) {
  std::vector<int64_t> r;
  if (numel <= count) {
    for (int64_t i = 0; i < numel; ++i) r.push_back(i);
    return r;
  }
  if (count <= 0) return r;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t i = count == 1 ? 0 : static_cast<int64_t>((static_cast<__int128>(numel - 1) * k) / (count - 1));
    if (r.empty() || r.back() != i) r.push_back(i);
  }
  return r;
}

}  // namespace ks
