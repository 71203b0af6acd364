// A small generator of random, valid tensor programs built through the ProgramBuilder's ops.
#include "engine/check/random_program.h"

#include <algorithm>

#include "engine/program/autograd.h"
#include "engine/program/builder.h"

namespace ks {

namespace {
// splitmix64: tiny, fast, and the same everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed ^ 0x5eed'6b73'7072'6f67ull) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  bool chance(int percent) { return range(0, 99) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[static_cast<std::size_t>(range(0, static_cast<int64_t>(v.size()) - 1))]; }

 private:
  uint64_t s_;
};

Shape randomShape(Rng& r, const RandomProgramOptions& o, int minRank) {
  Shape s(static_cast<std::size_t>(r.range(minRank, o.maxRank)));
  for (Dim& d : s) d = r.chance(8) ? 7 : r.range(1, o.maxDim);
  return s;
}

// Draws one op of a kind on values already in the pool. A kind that does not fit its operands
// returns an invalid Value (or throws a builder error): the caller draws again.
class OpDrawer {
 public:
  OpDrawer(Rng& r, const RandomProgramOptions& o, ProgramBuilder& b, const std::vector<Value>& pool)
      : r_(r), o_(o), b_(b), pool_(pool) {}

  Value unary() {
    Value x = operand();
    switch (r_.range(0, 6)) {
      case 0: return op::exp(op::tanh(x));
      case 1: return op::neg(x);
      case 2: return op::abs(x);
      case 3: return op::sqrt(op::abs(x));
      case 4: return op::tanh(x);
      case 5: return op::sin(x);
      default: return op::relu(x);
    }
  }
  Value binary() {
    Value x = operand(), y = operand();
    switch (r_.range(0, 4)) {
      case 0: return op::add(x, y);
      case 1: return op::sub(x, y);
      case 2: return op::mul(x, y);
      case 3: return op::maximum(x, y);
      default: return op::minimum(x, y);
    }
  }
  Value binaryScalar() {
    Value x = operand();
    return r_.chance(50) ? op::mul(x, scalarOperand()) : op::add(scalarOperand(), x);
  }
  Value reduce() {
    Value x = operand();
    if (x.rank() == 0) return op::sum(x);
    std::vector<int64_t> axes;
    for (int a = 0; a < x.rank(); ++a)
      if (r_.chance(45)) axes.push_back(a);
    if (axes.empty()) axes.push_back(r_.range(0, x.rank() - 1));
    const bool keep = r_.chance(50);
    switch (r_.range(0, 2)) {
      case 0: return op::sum(x, axes, keep);
      case 1: return op::max(x, axes, keep);
      default: return op::min(x, axes, keep);
    }
  }
  Value permute() {
    Value x = operand();
    std::vector<int64_t> axes(static_cast<std::size_t>(x.rank()));
    for (std::size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
    for (std::size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[static_cast<std::size_t>(r_.range(0, static_cast<int64_t>(i) - 1))]);
    return op::permute(x, axes);
  }
  Value reshape() {
    Value x = operand();
    if (x.rank() >= 2 && r_.chance(50)) return op::flatten(x, 0, 1);
    if (x.rank() < o_.maxRank) return op::unsqueeze(x, r_.range(0, x.rank()));
    return op::reshape(x, {-1});
  }
  Value expand() {
    Value x = operand();
    if (x.rank() >= o_.maxRank || numel(x.shape()) * 4 > o_.maxElements) return Value();
    Value u = op::unsqueeze(x, r_.range(0, x.rank()));
    std::vector<int64_t> shape(u.shape().begin(), u.shape().end());
    for (auto& d : shape)
      if (d == 1) d = r_.range(2, 4);
    return op::expand(u, shape);
  }
  Value pad() {
    Value x = operand();
    if (x.rank() == 0) return Value();
    const int64_t axis = r_.range(0, x.rank() - 1), d = x.shape()[static_cast<std::size_t>(axis)];
    int64_t lp = r_.range(d > 1 ? -1 : 0, 2), rp = r_.range(d > 1 ? -1 : 0, 2);
    if (lp < 0 && rp < 0) rp = 1;
    std::vector<std::pair<int64_t, int64_t>> pads(static_cast<std::size_t>(axis) + 1, {0, 0});
    pads.back() = {lp, rp};
    static constexpr double values[] = {0.0, 1.0, -2.5};
    return op::pad(x, pads, values[r_.range(0, 2)]);
  }
  Value narrow() {
    Value x = operand();
    std::vector<int64_t> axes;
    for (int a = 0; a < x.rank(); ++a)
      if (x.shape()[static_cast<std::size_t>(a)] >= 2) axes.push_back(a);
    if (axes.empty()) return Value();
    const int64_t axis = r_.pick(axes), d = x.shape()[static_cast<std::size_t>(axis)];
    const int64_t len = r_.range(1, d - 1);
    return op::narrow(x, axis, r_.range(0, d - len), len);
  }
  Value flip() {
    Value x = operand();
    if (x.rank() == 0) return Value();
    return op::flip(x, {r_.range(0, x.rank() - 1)});
  }
  Value where() {
    Value x = operand(), y = operand();
    Value cond = r_.chance(50) ? op::gt(x, scalarOperand()) : op::lt(x, y);
    return r_.chance(50) ? op::where(cond, x, y) : op::where(cond, scalarOperand(), x);
  }
  Value cast() { return op::cast(op::cast(operand(), DType::I32), DType::F32); }
  // A constant broadcast to a tensor: movement of a replayed scalar gets a kernel of its own.
  Value constantTensor() {
    Value x = operand();
    if (x.rank() == 0) return Value();
    return op::mul(x, op::broadcastTo(b_.scalar(static_cast<double>(r_.range(1, 9)) / 2.0, DType::F32), x.shape()));
  }
  Value contiguous() { return op::contiguous(operand()); }

 private:
  // Mostly extend recent values (chains), sometimes reuse an old one (fan-out: duplicates/stores).
  Value operand() {
    if (pool_.size() > 1 && r_.chance(o_.reusePercent)) return r_.pick(pool_);
    const int64_t back = std::min<int64_t>(2, static_cast<int64_t>(pool_.size()) - 1);
    return pool_[pool_.size() - 1 - static_cast<std::size_t>(r_.range(0, back))];
  }
  Operand scalarOperand() { return Operand(static_cast<double>(r_.range(-8, 8)) / 4.0); }

  Rng& r_;
  const RandomProgramOptions& o_;
  ProgramBuilder& b_;
  const std::vector<Value>& pool_;
};

struct OpKind {
  const char* name;
  int weight;  // relative chance of being drawn
  Value (OpDrawer::*draw)();
};
constexpr OpKind kOpKinds[] = {
    {"unary", 14, &OpDrawer::unary},
    {"binary", 14, &OpDrawer::binary},
    {"binary_scalar", 8, &OpDrawer::binaryScalar},
    {"reduce", 12, &OpDrawer::reduce},
    {"permute", 7, &OpDrawer::permute},
    {"reshape", 7, &OpDrawer::reshape},
    {"expand", 8, &OpDrawer::expand},
    {"pad", 8, &OpDrawer::pad},
    {"narrow", 6, &OpDrawer::narrow},
    {"flip", 6, &OpDrawer::flip},
    {"where", 8, &OpDrawer::where},
    {"cast", 2, &OpDrawer::cast},
    {"constant_tensor", 2, &OpDrawer::constantTensor},
    {"contiguous", 2, &OpDrawer::contiguous},
};

const OpKind& drawKind(Rng& r) {
  int total = 0;
  for (const OpKind& k : kOpKinds) total += k.weight;
  int w = static_cast<int>(r.range(0, total - 1)), k = 0;
  while (w >= kOpKinds[k].weight) w -= kOpKinds[k++].weight;
  return kOpKinds[k];
}

bool inPool(const std::vector<Value>& pool, const Value& v) {
  return std::find_if(pool.begin(), pool.end(), [&](const Value& p) { return p.id() == v.id(); }) != pool.end();
}

// Outputs: the last value, plus up to two other values nothing consumes (so that few ops are
// dead code), plus sometimes an intermediate value that also has consumers.
std::vector<Value> chooseOutputs(Rng& r, ProgramBuilder& b, const std::vector<Value>& pool, std::size_t firstComputed) {
  std::vector<bool> used(b.graph().classCount(), false);
  for (std::size_t c = 0; c < b.graph().classCount(); ++c)
    for (ClassId x : b.graph().structural(ClassId(static_cast<uint32_t>(c))).in) used[x.v] = true;
  std::vector<Value> outs{pool.back()};
  for (std::size_t i = pool.size() - 1; i-- > firstComputed && outs.size() < 3;)
    if (!used[pool[i].id().v]) outs.push_back(pool[i]);
  if (pool.size() > firstComputed + 1 && r.chance(30)) {
    const Value extra = pool[static_cast<std::size_t>(r.range(static_cast<int64_t>(firstComputed), static_cast<int64_t>(pool.size()) - 2))];
    if (!inPool(outs, extra)) outs.push_back(extra);
  }
  return outs;
}
}  // namespace

// Outputs "g_xK": the gradient of sum(y * c) (c a random constant scale) with respect to every
// input y depends on differentiably; inputs reached only through casts to int get none.
void addGradients(ProgramBuilder& b, Rng& r, Value y, int nInputs) {
  Value loss = op::sum(op::mul(y, static_cast<double>(r.range(1, 8)) / 4.0));
  for (int i = 0; i < nInputs; ++i) {
    try {
      const Value x = b.wrap(b.program().inputs[static_cast<std::size_t>(i)].cls);
      b.output("g_x" + std::to_string(i), op::grad(loss, {x})[0]);
    } catch (const Error&) {
      // y does not depend on this input through differentiable values.
    }
  }
}

Program randomProgram(uint64_t seed, const RandomProgramOptions& o, std::map<std::string, int>* opCounts) {
  Rng r(seed);
  ProgramBuilder b("random_" + std::to_string(seed));
  std::vector<Value> pool;
  const int nInputs = static_cast<int>(r.range(1, o.maxInputs));
  for (int i = 0; i < nInputs; ++i) pool.push_back(b.input("x" + std::to_string(i), DType::F32, randomShape(r, o, i == 0 ? 1 : 0)));
  const std::size_t firstComputed = pool.size();

  OpDrawer drawer(r, o, b, pool);
  const int target = static_cast<int>(r.range(o.minOps, std::max(o.minOps, o.maxOps)));
  int made = 0;
  for (int attempt = 0; made < target && attempt < target * 20; ++attempt) {
    const OpKind& kind = drawKind(r);
    try {
      Value v = (drawer.*kind.draw)();
      if (!v.valid() || numel(v.shape()) > o.maxElements || inPool(pool, v)) continue;
      pool.push_back(v);
      ++made;
      if (opCounts) ++(*opCounts)[kind.name];
    } catch (const Error&) {
      // An op that does not fit its operands (shapes that do not broadcast): draw another.
    }
  }
  if (pool.size() == firstComputed) pool.push_back(op::neg(pool.front()));
  const std::vector<Value> outs = chooseOutputs(r, b, pool, firstComputed);
  for (std::size_t i = 0; i < outs.size(); ++i) b.output(i == 0 ? "y" : "y" + std::to_string(i), outs[i]);
  if (o.gradPercent > 0 && r.chance(o.gradPercent)) addGradients(b, r, outs[0], nInputs);
  return b.finish();
}

}  // namespace ks
