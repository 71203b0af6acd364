// Reverse-mode autograd: one vector-Jacobian rule per primitive node kind, applied to the
// structural nodes between y and the leaves in reverse dependency order.
#include "engine/program/autograd.h"

#include <cmath>
#include <numbers>
#include <unordered_map>
#include <unordered_set>

#include "engine/program/prim_ops.h"

namespace ks::op {

namespace {

using prim::make;

// Adjoints are kept in the compute type (f32 for f16 values), so the backward pass never does
// arithmetic in f16; a Cast's rule converts between the compute types of its ends.
class Backward {
 public:
  explicit Backward(ProgramBuilder& b) : b_(b), g_(b.graph()) {}

  void run(ClassId y, const std::vector<ClassId>& order, const std::unordered_set<ClassId>& live) {
    live_ = &live;
    adj_[y] = seed(y);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      auto a = adj_.find(*it);
      if (a == adj_.end()) continue;
      const Value gy = a->second;
      const Node n = g_.structural(*it);  // a copy: adding nodes moves the graph's storage
      propagate(*it, n, gy);
    }
  }
  Value adjoint(ClassId c) const { return adj_.at(c); }

 private:
  Value wrap(ClassId c) { return b_.wrap(c); }
  Value k(DType t, double v) { return prim::constant(&b_, t, v); }
  Value bin(BinaryOp o, Value x, Value y) { return prim::binary(o, x, y); }
  Value mul(Value x, Value y) { return bin(BinaryOp::Mul, x, y); }
  Value un(UnaryOp o, Value x) { return prim::unary(x, o); }
  // x converted to the compute type of the adjoint it meets (forward f16 values widen to f32).
  Value asCompute(ClassId c) { return cast(wrap(c), prim::computeType(g_.dtype(c))); }

  Value seed(ClassId y) {
    const DType t = prim::computeType(g_.dtype(y));
    const Shape s = g_.shape(y);
    Value one = k(t, 1.0);
    if (s.empty()) return one;
    return broadcastTo(one, s);
  }

  // Adds the contribution `make()` to c's adjoint; builds it only when c is on a differentiable
  // path to a requested leaf, so the graph gets no nodes nobody reads.
  template <class F>
  void accumulate(ClassId c, F&& contribution) {
    if (!live_->count(c)) return;
    const Value g = contribution();
    auto it = adj_.find(c);
    if (it == adj_.end()) adj_.emplace(c, g);
    else it->second = bin(BinaryOp::Add, it->second, g);
  }

  // A gradient that has y's shape taken back to an operand of shape `s` by summing the axes an
  // Expand broadcast (same rank; size-1 axes of s that are larger in the result).
  Value unexpand(Value g, Shape s) {  // by value: adding nodes moves the graph's shapes
    const Shape gs = g.shape();
    std::vector<int> axes;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (s[i] == 1 && gs[i] != 1) axes.push_back(static_cast<int>(i));
    if (axes.empty()) return g;
    return reshape(prim::reduce(g, ReduceOp::Sum, axes), prim::toVec(s));
  }

  // The reduced result (or its gradient) brought back to the operand's shape.
  Value unreduce(Value r, Shape in, const std::vector<int64_t>& axes) {
    std::vector<int> ax(axes.begin(), axes.end());
    return broadcastTo(reshape(r, prim::keptShape(in, ax)), in);
  }

  void propagate(ClassId c, const Node& n, Value gy) {
    switch (n.kind) {
      case NodeKind::Const:
      case NodeKind::Leaf:
      case NodeKind::Bitcast:  // reinterprets bits: the result is integer or comes from one
      case NodeKind::Kernel:
      case NodeKind::ToDevice: return;
      case NodeKind::Contiguous: return accumulate(n.in[0], [&] { return gy; });
      case NodeKind::Cast: return accumulate(n.in[0], [&] { return cast(gy, prim::computeType(g_.dtype(n.in[0]))); });
      case NodeKind::Reshape: return accumulate(n.in[0], [&] { return reshape(gy, prim::toVec(g_.shape(n.in[0]))); });
      case NodeKind::Expand: return accumulate(n.in[0], [&] { return unexpand(gy, g_.shape(n.in[0])); });
      case NodeKind::Flip: return accumulate(n.in[0], [&] { return flip(gy, n.attr); });
      case NodeKind::Permute: {
        std::vector<int64_t> inv(n.attr.size());
        for (std::size_t i = 0; i < n.attr.size(); ++i) inv[n.attr[i]] = static_cast<int64_t>(i);
        return accumulate(n.in[0], [&] { return permute(gy, inv); });
      }
      case NodeKind::Pad: return accumulate(n.in[0], [&] { return padAxis(gy, n.attr[0], -n.attr[1], -n.attr[2]); });
      case NodeKind::Narrow: {
        const int64_t dim = g_.shape(n.in[0])[n.attr[0]];
        return accumulate(n.in[0], [&] { return padAxis(gy, n.attr[0], n.attr[1], dim - n.attr[1] - n.attr[2]); });
      }
      case NodeKind::Reduce: return reduceRule(c, n, gy);
      case NodeKind::Unary: return unaryRule(c, n, gy);
      case NodeKind::Binary: return binaryRule(c, n, gy);
      case NodeKind::Where: {
        Value cond = wrap(n.in[0]);
        accumulate(n.in[1], [&] { return prim::where(cond, gy, k(gy.dtype(), 0.0)); });
        accumulate(n.in[2], [&] { return prim::where(cond, k(gy.dtype(), 0.0), gy); });
        return;
      }
    }
  }

  Value padAxis(Value g, int64_t axis, int64_t lp, int64_t rp) {
    if (lp == 0 && rp == 0) return g;
    Node p = make(NodeKind::Pad, {g.id()}, {axis, lp, rp});
    p.value = Scalar::of(g.dtype(), 0.0);
    return b_.add(std::move(p));
  }

  void reduceRule(ClassId c, const Node& n, Value gy) {
    const ClassId xc = n.in[0];
    const Shape in = g_.shape(xc);
    Value g = unreduce(gy, in, n.attr);
    switch (n.reduceOp()) {
      case ReduceOp::Sum: return accumulate(xc, [&] { return g; });
      case ReduceOp::Prod:  // d prod / d x_i = prod / x_i (x_i = 0 gives NaN or inf; PyTorch special-cases it)
        return accumulate(xc, [&] { return mul(g, bin(BinaryOp::Div, unreduce(asCompute(c), in, n.attr), asCompute(xc))); });
      case ReduceOp::Max:
      case ReduceOp::Min: {
        // Ties share the gradient evenly, as torch.amax/amin do. The count is at least 1: a plan
        // may take x and its max from producers that round differently (an OpenBLAS product and
        // a fused kernel's own), and then no element equals the max; 0/0 would turn the whole
        // gradient into NaN, where the path through the max (a softmax's shift) adds nothing.
        Value x = asCompute(xc);
        Value hit = cast(bin(BinaryOp::CmpEq, x, unreduce(asCompute(c), in, n.attr)), x.dtype());
        std::vector<int> ax(n.attr.begin(), n.attr.end());
        Value count = bin(BinaryOp::Max, unreduce(prim::reduce(hit, ReduceOp::Sum, ax), in, n.attr), k(x.dtype(), 1.0));
        return accumulate(xc, [&] { return mul(g, bin(BinaryOp::Div, hit, count)); });
      }
    }
  }

  void unaryRule(ClassId c, const Node& n, Value g) {
    const ClassId xc = n.in[0];
    const DType t = g.dtype();
    auto x = [&] { return asCompute(xc); };
    auto y = [&] { return asCompute(c); };
    auto scaled = [&](double s, Value v) { return mul(g, mul(k(t, s), v)); };
    switch (n.unaryOp()) {
      case UnaryOp::Neg: return accumulate(xc, [&] { return un(UnaryOp::Neg, g); });
      case UnaryOp::Abs: return accumulate(xc, [&] { return mul(g, un(UnaryOp::Sign, x())); });
      case UnaryOp::Exp: return accumulate(xc, [&] { return mul(g, y()); });
      case UnaryOp::Exp2: return accumulate(xc, [&] { return scaled(std::numbers::ln2, y()); });
      case UnaryOp::Log: return accumulate(xc, [&] { return bin(BinaryOp::Div, g, x()); });
      case UnaryOp::Log2: return accumulate(xc, [&] { return bin(BinaryOp::Div, g, mul(x(), k(t, std::numbers::ln2))); });
      case UnaryOp::Sqrt: return accumulate(xc, [&] { return bin(BinaryOp::Div, mul(g, k(t, 0.5)), y()); });
      case UnaryOp::Rsqrt: return accumulate(xc, [&] { return scaled(-0.5, mul(y(), mul(y(), y()))); });
      case UnaryOp::Reciprocal: return accumulate(xc, [&] { return un(UnaryOp::Neg, mul(g, mul(y(), y()))); });
      case UnaryOp::Sin: return accumulate(xc, [&] { return mul(g, un(UnaryOp::Cos, x())); });
      case UnaryOp::Cos: return accumulate(xc, [&] { return un(UnaryOp::Neg, mul(g, un(UnaryOp::Sin, x()))); });
      case UnaryOp::Tan: return accumulate(xc, [&] { return mul(g, bin(BinaryOp::Add, k(t, 1.0), mul(y(), y()))); });
      case UnaryOp::Tanh: return accumulate(xc, [&] { return mul(g, bin(BinaryOp::Sub, k(t, 1.0), mul(y(), y()))); });
      case UnaryOp::Erf:
        return accumulate(xc, [&] { return scaled(2.0 / std::sqrt(std::numbers::pi), un(UnaryOp::Exp, un(UnaryOp::Neg, mul(x(), x())))); });
      case UnaryOp::Floor:
      case UnaryOp::Ceil:
      case UnaryOp::Round:
      case UnaryOp::Trunc:
      case UnaryOp::Sign: return accumulate(xc, [&] { return mul(g, k(t, 0.0)); });  // piecewise constant
      case UnaryOp::Not:
      case UnaryOp::IsNan: return;  // bool results
    }
  }

  void binaryRule(ClassId c, const Node& n, Value g) {
    const ClassId ac = n.in[0], bc = n.in[1];
    const DType t = g.dtype();
    auto a = [&] { return asCompute(ac); };
    auto b = [&] { return asCompute(bc); };
    auto zero = [&] { return k(t, 0.0); };
    switch (n.binaryOp()) {
      case BinaryOp::Add:
        accumulate(ac, [&] { return g; });
        return accumulate(bc, [&] { return g; });
      case BinaryOp::Sub:
        accumulate(ac, [&] { return g; });
        return accumulate(bc, [&] { return un(UnaryOp::Neg, g); });
      case BinaryOp::Mul:
        accumulate(ac, [&] { return mul(g, b()); });
        return accumulate(bc, [&] { return mul(g, a()); });
      case BinaryOp::Div:
        accumulate(ac, [&] { return bin(BinaryOp::Div, g, b()); });
        return accumulate(bc, [&] { return un(UnaryOp::Neg, bin(BinaryOp::Div, mul(g, asCompute(c)), b())); });
      case BinaryOp::Mod:  // a - floor(a / b) * b
        accumulate(ac, [&] { return g; });
        return accumulate(bc, [&] { return un(UnaryOp::Neg, mul(g, un(UnaryOp::Floor, bin(BinaryOp::Div, a(), b())))); });
      case BinaryOp::Pow: {
        // PyTorch's masks: d/da is 0 where b == 0; d/db is 0 where a == 0 and b >= 0.
        accumulate(ac, [&] {
          Value da = mul(b(), bin(BinaryOp::Pow, a(), bin(BinaryOp::Sub, b(), k(t, 1.0))));
          return prim::where(bin(BinaryOp::CmpEq, b(), zero()), zero(), mul(g, da));
        });
        return accumulate(bc, [&] {
          Value mask = bin(BinaryOp::And, bin(BinaryOp::CmpEq, a(), zero()), bin(BinaryOp::CmpGe, b(), zero()));
          return prim::where(mask, zero(), mul(g, mul(asCompute(c), un(UnaryOp::Log, a()))));
        });
      }
      case BinaryOp::Max:
      case BinaryOp::Min: {
        // Equal operands share the gradient (torch.maximum/minimum). A tie with a constant is a
        // kink (relu(x) = max(x, 0) at 0, clamp at a bound) and passes nothing, as PyTorch's relu,
        // relu6 and hardtanh do (torch.clamp alone passes the whole gradient at its bounds).
        const BinaryOp wins = n.binaryOp() == BinaryOp::Max ? BinaryOp::CmpGt : BinaryOp::CmpLt;
        auto share = [&](Value self, Value other, ClassId otherClass) {
          Value winning = prim::where(bin(wins, self, other), g, zero());
          if (g_.isConst(otherClass)) return winning;
          return prim::where(bin(BinaryOp::CmpEq, self, other), mul(g, k(t, 0.5)), winning);
        };
        accumulate(ac, [&] { return share(a(), b(), bc); });
        return accumulate(bc, [&] { return share(b(), a(), ac); });
      }
      default: return;  // comparisons and logic: bool or integer results
    }
  }

  ProgramBuilder& b_;
  Graph& g_;
  const std::unordered_set<ClassId>* live_ = nullptr;
  std::unordered_map<ClassId, Value> adj_;
};

std::string leafName(const Graph& g, ClassId c) { return g.leaf(g.structural(c).ref).name; }

// The classes of `order` that depend on `target` through floating-point values only.
std::unordered_set<ClassId> differentiablePath(const Graph& g, const std::vector<ClassId>& order, ClassId target) {
  std::unordered_set<ClassId> live{target};
  for (ClassId c : order) {
    const Node& n = g.structural(c);
    if (!isFloat(g.dtype(c)) || n.kind == NodeKind::Bitcast) continue;
    for (ClassId in : n.in)
      if (live.count(in)) {
        live.insert(c);
        break;
      }
  }
  return live;
}

// Why y does not depend differentiably on `target`: the first class on a path from it to y whose
// value is integer or bool (a comparison, argmax, a cast to int, ...), or nothing at all.
[[noreturn]] void notDifferentiable(ProgramBuilder& b, const std::vector<ClassId>& order, ClassId target,
                                    const std::unordered_set<ClassId>& live, ClassId y) {
  const Graph& g = b.graph();
  std::unordered_set<ClassId> reach{target};
  for (ClassId c : order)
    for (ClassId in : g.structural(c).in)
      if (reach.count(in)) reach.insert(c);
  const std::string name = leafName(g, target);
  if (!reach.count(y))
    throw Error(ErrorCode::Usage, "'" + name + "' is not used in computing the value it differentiates", b.location(),
                "grad");
  for (ClassId c : order) {
    if (live.count(c)) continue;
    for (ClassId in : g.structural(c).in)
      if (live.count(in)) {
        const std::string op = b.originOp(c).empty() ? g.structural(c).label() : b.originOp(c);
        throw Error(ErrorCode::Usage,
                    "the value depends on '" + name + "' only through '" + op + "', which has no derivative (its result is " +
                        std::string(dtypeName(g.dtype(c))) + ")",
                    b.location(), "grad");
      }
  }
  throw Error(ErrorCode::Internal, "no differentiable path to '" + name + "'", b.location(), "grad");
}

}  // namespace

std::vector<Value> grad(Value y, const std::vector<Value>& wrt) {
  ProgramBuilder& b = *y.builder();
  Graph& g = b.graph();
  if (!isFloat(y.dtype()) || numel(y.shape()) != 1)
    throw Error(ErrorCode::Usage,
                "differentiates a floating-point scalar (rank 0 or one element), found " + prim::describe(y),
                b.location(), "grad");
  const std::vector<ClassId> order = g.topoOrder({y.id()});
  std::unordered_set<ClassId> live;
  for (const Value& w : wrt) {
    if (!g.isLeaf(w.id()) || g.leaf(g.structural(w.id()).ref).kind == LeafKind::Constant)
      throw Error(ErrorCode::Usage, "takes gradients with respect to inputs and params, found " + prim::describe(w),
                  b.location(), "grad");
    if (!isFloat(w.dtype()))
      throw Error(ErrorCode::Usage,
                  "'" + leafName(g, w.id()) + "' is " + std::string(dtypeName(w.dtype())) + "; only floating-point values have gradients",
                  b.location(), "grad");
    const std::unordered_set<ClassId> path = differentiablePath(g, order, w.id());
    if (!path.count(y.id())) notDifferentiable(b, order, w.id(), path, y.id());
    live.insert(path.begin(), path.end());
  }
  Backward bw(b);
  bw.run(y.id(), order, live);
  std::vector<Value> r;
  for (const Value& w : wrt) r.push_back(cast(bw.adjoint(w.id()), w.dtype()));
  return r;
}

}  // namespace ks::op
