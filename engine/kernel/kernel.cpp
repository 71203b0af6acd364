// Construction, editing, hashing and printing of unlowered kernels.
#include "engine/kernel/kernel.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>

#include "engine/core/error.h"

namespace ks {

std::string_view moveKindName(MoveKind m) {
  static constexpr std::string_view names[] = {"reshape", "expand", "permute", "pad", "narrow", "flip"};
  const auto i = static_cast<std::size_t>(m);
  return i < std::size(names) ? names[i] : "?";
}

namespace {
[[noreturn]] void bad(const std::string& msg) { throw Error(ErrorCode::Internal, "kernel IR: " + msg); }
}  // namespace

int32_t Kernel::push(KOp op) {
  for (int32_t s : op.src)
    if (s < 0 || s >= static_cast<int32_t>(ops.size())) bad("operand index out of range");
  ops.push_back(std::move(op));
  return static_cast<int32_t>(ops.size() - 1);
}

int32_t Kernel::param(ParamKind kind, DType t, const Shape& s) {
  KOp o;
  o.kind = KOpKind::Param;
  o.op = static_cast<uint8_t>(kind);
  o.dtype = t;
  o.shape = s;
  return push(std::move(o));
}

int32_t Kernel::constant(Scalar v) {
  KOp o;
  o.kind = KOpKind::Const;
  o.dtype = v.dtype();
  o.value = v;
  return push(std::move(o));
}

int32_t Kernel::move(int32_t x, MoveKind m, std::vector<int64_t> attr, Scalar padValue) {
  KOp o;
  o.kind = KOpKind::Move;
  o.op = static_cast<uint8_t>(m);
  o.dtype = at(x).dtype;
  o.src = {x};
  const Shape& in = at(x).shape;
  switch (m) {
    case MoveKind::Reshape:
    case MoveKind::Expand: o.shape = Shape(attr.begin(), attr.end()); break;
    case MoveKind::Permute:
      for (int64_t a : attr) o.shape.push_back(in.at(a));
      break;
    case MoveKind::Pad:
      o.shape = in;
      o.shape.at(attr.at(0)) += attr.at(1) + attr.at(2);
      o.value = padValue.dtype() == o.dtype ? padValue : padValue.cast(o.dtype);
      break;
    case MoveKind::Narrow:
      o.shape = in;
      o.shape.at(attr.at(0)) = attr.at(2);
      break;
    case MoveKind::Flip: o.shape = in; break;
  }
  o.attr = std::move(attr);
  return push(std::move(o));
}

int32_t Kernel::unary(int32_t x, UnaryOp u) {
  KOp o;
  o.kind = KOpKind::Unary;
  o.op = static_cast<uint8_t>(u);
  o.dtype = u == UnaryOp::IsNan ? DType::Bool : at(x).dtype;
  o.shape = at(x).shape;
  o.src = {x};
  return push(std::move(o));
}

int32_t Kernel::binary(int32_t x, int32_t y, BinaryOp b) {
  KOp o;
  o.kind = KOpKind::Binary;
  o.op = static_cast<uint8_t>(b);
  o.dtype = isComparison(b) ? DType::Bool : at(x).dtype;
  o.shape = at(x).shape.empty() ? at(y).shape : at(x).shape;
  o.src = {x, y};
  return push(std::move(o));
}

int32_t Kernel::cast(int32_t x, DType t) {
  KOp o;
  o.kind = KOpKind::Cast;
  o.dtype = t;
  o.shape = at(x).shape;
  o.src = {x};
  return push(std::move(o));
}

int32_t Kernel::bitcast(int32_t x, DType t) {
  if (dtypeSize(t) != dtypeSize(at(x).dtype)) bad("bitcast between dtypes of different sizes");
  KOp o;
  o.kind = KOpKind::Bitcast;
  o.dtype = t;
  o.shape = at(x).shape;
  o.src = {x};
  return push(std::move(o));
}

int32_t Kernel::where(int32_t cond, int32_t a, int32_t b) {
  KOp o;
  o.kind = KOpKind::Where;
  o.dtype = at(a).dtype;
  for (int32_t s : {cond, a, b})
    if (!at(s).shape.empty()) o.shape = at(s).shape;
  o.src = {cond, a, b};
  return push(std::move(o));
}

int32_t Kernel::reduce(int32_t x, ReduceOp r) {
  KOp o;
  o.kind = KOpKind::Reduce;
  o.op = static_cast<uint8_t>(r);
  o.dtype = at(x).dtype;
  o.shape = at(x).shape;
  if (o.shape.empty()) bad("reduce of a rank-0 value");
  o.shape.pop_back();
  o.src = {x};
  return push(std::move(o));
}

int32_t Kernel::store(int32_t p, int32_t x) {
  KOp o;
  o.kind = KOpKind::Store;
  o.dtype = at(x).dtype;
  o.shape = at(x).shape;
  o.src = {p, x};
  return push(std::move(o));
}

std::vector<int32_t> Kernel::params() const {
  std::vector<int32_t> r;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == KOpKind::Param) r.push_back(static_cast<int32_t>(i));
  return r;
}

std::vector<int32_t> Kernel::readParams() const {
  std::vector<int32_t> r;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == KOpKind::Param && ops[i].paramKind() == ParamKind::Read) r.push_back(static_cast<int32_t>(i));
  return r;
}

std::vector<int32_t> Kernel::storeOps() const {
  std::vector<int32_t> r;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == KOpKind::Store) r.push_back(static_cast<int32_t>(i));
  return r;
}

bool Kernel::containsStores() const {
  return std::any_of(ops.begin(), ops.end(), [](const KOp& o) { return o.kind == KOpKind::Store; });
}

bool Kernel::isReduce() const {
  return std::any_of(ops.begin(), ops.end(), [](const KOp& o) { return o.kind == KOpKind::Reduce; });
}

namespace {
template <class Pred>
bool anyUpstream(const Kernel& k, int32_t op, Pred pred) {
  std::vector<int32_t> stack{op};
  std::vector<bool> seen(k.size(), false);
  while (!stack.empty()) {
    const int32_t i = stack.back();
    stack.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    if (pred(k.at(i))) return true;
    for (int32_t s : k.at(i).src) stack.push_back(s);
  }
  return false;
}
}  // namespace

bool Kernel::isPrecededByReduce(int32_t op) const {
  return anyUpstream(*this, op, [](const KOp& o) { return o.kind == KOpKind::Reduce; });
}

bool Kernel::isPrecededByCompute(int32_t op) const {
  return anyUpstream(*this, op, [](const KOp& o) {
    return o.kind == KOpKind::Unary || o.kind == KOpKind::Binary || o.kind == KOpKind::Cast || o.kind == KOpKind::Bitcast ||
           o.kind == KOpKind::Where || o.kind == KOpKind::Reduce;
  });
}

bool Kernel::hasMoveAfterReduce(bool exceptUnitReshapes) const {
  std::vector<bool> afterReduce(ops.size(), false);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const KOp& o = ops[i];
    for (int32_t src : o.src) afterReduce[i] = afterReduce[i] || afterReduce[src] || at(src).kind == KOpKind::Reduce;
    if (!afterReduce[i] || o.kind != KOpKind::Move) continue;
    const bool unit = o.moveKind() == MoveKind::Reshape && gridShape(o.shape) == gridShape(at(o.src[0]).shape);
    if (!(exceptUnitReshapes && unit)) return true;
  }
  return false;
}

std::vector<int32_t> Kernel::append(const Kernel& other) {
  std::vector<int32_t> map(other.size());
  for (std::size_t i = 0; i < other.size(); ++i) {
    KOp o = other.ops[i];
    for (int32_t& s : o.src) s = map[s];
    map[i] = push(std::move(o));
  }
  return map;
}

std::vector<bool> Kernel::dependencies(const std::vector<int32_t>& roots) const {
  std::vector<bool> need(size(), false);
  int32_t top = -1;
  for (int32_t r : roots) need[r] = true, top = std::max(top, r);
  // Operands have smaller indices than their users: one backward sweep reaches every dependency.
  for (int32_t i = top; i >= 0; --i)
    if (need[i])
      for (int32_t s : ops[i].src) need[s] = true;
  return need;
}

Kernel::Subset Kernel::subset(const std::vector<bool>& keep) const {
  Subset r;
  r.map.assign(size(), -1);
  int32_t readIndex = 0;
  for (std::size_t i = 0; i < size(); ++i) {
    const bool isRead = ops[i].kind == KOpKind::Param && ops[i].paramKind() == ParamKind::Read;
    if (keep[i]) {
      KOp o = ops[i];
      for (int32_t& s : o.src) s = r.map[s];
      r.map[i] = r.kernel.push(std::move(o));
      if (isRead) r.readParams.push_back(readIndex);
    }
    if (isRead) ++readIndex;
  }
  return r;
}

std::vector<int32_t> Kernel::shareCommonOps() {
  std::vector<int32_t> map(size(), -1);
  std::vector<KOp> kept;
  for (std::size_t i = 0; i < size(); ++i) {
    KOp o = ops[i];
    for (int32_t& s : o.src) s = map[s];
    int32_t same = -1;
    if (o.kind != KOpKind::Param && o.kind != KOpKind::Store)
      for (std::size_t j = 0; j < kept.size() && same < 0; ++j)
        if (kept[j] == o) same = static_cast<int32_t>(j);
    if (same >= 0) {
      map[i] = same;
      continue;
    }
    map[i] = static_cast<int32_t>(kept.size());
    kept.push_back(std::move(o));
  }
  ops = std::move(kept);
  return map;
}

uint64_t Kernel::hash() const {
  uint64_t h = 0x6b73'6b65'726e'656cull;
  auto mix = [&h](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  };
  for (const KOp& o : ops) {
    mix(static_cast<uint64_t>(o.kind));
    mix(o.op);
    mix(static_cast<uint64_t>(o.dtype));
    mix(o.shape.size());
    for (Dim d : o.shape) mix(static_cast<uint64_t>(d));
    for (int32_t s : o.src) mix(static_cast<uint64_t>(s));
    mix(0xabcdef);
    for (int64_t a : o.attr) mix(static_cast<uint64_t>(a));
    mix(o.value.hash());
  }
  return h;
}

namespace {
std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

std::string Kernel::print() const {
  std::ostringstream os;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const KOp& o = ops[i];
    os << "%" << i << " = ";
    switch (o.kind) {
      case KOpKind::Param: {
        static constexpr const char* kinds[] = {"param.read", "param.rw", "param.scalar"};
        os << kinds[o.op];
        break;
      }
      case KOpKind::Const: os << "const " << o.value.str(); break;
      case KOpKind::Move:
        os << moveKindName(o.moveKind()) << " " << list(o.attr);
        if (o.moveKind() == MoveKind::Pad && o.value.toDouble() != 0.0) os << " value=" << o.value.str();
        break;
      case KOpKind::Unary: os << unaryOpName(o.unaryOp()); break;
      case KOpKind::Binary: os << binaryOpName(o.binaryOp()); break;
      case KOpKind::Cast: os << "cast"; break;
      case KOpKind::Bitcast: os << "bitcast"; break;
      case KOpKind::Where: os << "where"; break;
      case KOpKind::Reduce: os << "reduce." << reduceOpName(o.reduceOp()); break;
      case KOpKind::Store: os << "store"; break;
    }
    for (std::size_t s = 0; s < o.src.size(); ++s) os << (s ? ", %" : " %") << o.src[s];
    os << " : " << dtypeName(o.dtype) << shapeStr(o.shape) << "\n";
  }
  return os.str();
}

double Kernel::flops() const {
  double f = 0;
  for (const KOp& o : ops) {
    switch (o.kind) {
      case KOpKind::Unary:
      case KOpKind::Binary:
      case KOpKind::Where: f += static_cast<double>(numel(o.shape)); break;
      case KOpKind::Reduce: f += static_cast<double>(numel(ops[o.src[0]].shape)); break;
      default: break;
    }
  }
  return f;
}

int64_t Kernel::bytesMoved() const {
  int64_t b = 0;
  for (const KOp& o : ops)
    if (o.kind == KOpKind::Param) b += numel(o.shape) * static_cast<int64_t>(dtypeSize(o.dtype));
  return b;
}

std::string Kernel::name() const {
  std::vector<std::string> parts;
  for (const KOp& o : ops) {
    std::string p;
    if (o.kind == KOpKind::Unary) p = unaryOpName(o.unaryOp());
    else if (o.kind == KOpKind::Binary) p = binaryOpName(o.binaryOp());
    else if (o.kind == KOpKind::Reduce) p = reduceOpName(o.reduceOp());
    else if (o.kind == KOpKind::Where) p = "where";
    if (!p.empty() && (parts.empty() || parts.back() != p)) parts.push_back(p);
  }
  if (parts.empty()) return "copy";
  if (parts.size() > 4) parts.erase(parts.begin() + 2, parts.end() - 2), parts.insert(parts.begin() + 2, "");
  std::string s;
  for (auto& p : parts) s += (s.empty() ? "" : "_") + p;
  return s;
}

namespace {
// Operand count per KOpKind (Param, Const, Move, Unary, Binary, Cast, Where, Reduce, Store, Bitcast).
constexpr std::size_t kArity[] = {0, 0, 1, 1, 2, 1, 3, 1, 2, 1};
constexpr int kNumKOpKinds = 10;

// The op's kind, enum operand and operand count are legal (a kernel read from a file may hold anything).
std::string formProblem(const KOp& o) {
  const int kind = static_cast<int>(o.kind);
  if (kind >= kNumKOpKinds) return "unknown op kind " + std::to_string(kind);
  if (o.src.size() != kArity[kind])
    return "expected " + std::to_string(kArity[kind]) + " operands, found " + std::to_string(o.src.size());
  const int limit = o.kind == KOpKind::Param ? 3 : o.kind == KOpKind::Move ? 6 : o.kind == KOpKind::Unary ? kNumUnaryOps
                  : o.kind == KOpKind::Binary ? kNumBinaryOps : o.kind == KOpKind::Reduce ? 4 : 256;
  if (o.op >= limit) return "unknown operation " + std::to_string(o.op) + " for this op kind";
  int64_t count = 1;
  for (int64_t d : o.shape) {
    if (d < 0) return "negative dimension in its shape " + shapeStr(o.shape);
    if (__builtin_mul_overflow(count, d, &count)) return "more elements than an index can count in its shape " + shapeStr(o.shape);
  }
  return {};
}

// The shape a movement op gives its operand's shape, or an empty optional with `why` set.
std::optional<Shape> movedShape(const KOp& o, const Shape& in, std::string& why) {
  const auto& a = o.attr;
  const int64_t rank = static_cast<int64_t>(in.size());
  auto axisOk = [&](int64_t ax) { return ax >= 0 && ax < rank; };
  switch (o.moveKind()) {
    case MoveKind::Reshape: return Shape(a.begin(), a.end());
    case MoveKind::Expand:
      if (static_cast<int64_t>(a.size()) != rank) return why = "expand changes the rank", std::nullopt;
      for (int64_t i = 0; i < rank; ++i)
        if (a[i] != in[i] && in[i] != 1) return why = "expand of a dimension that is not 1", std::nullopt;
      return Shape(a.begin(), a.end());
    case MoveKind::Permute: {
      std::vector<bool> seen(in.size(), false);
      Shape r;
      for (int64_t ax : a) {
        if (!axisOk(ax) || seen[ax]) return why = "permute axes are not a permutation", std::nullopt;
        seen[ax] = true;
        r.push_back(in[ax]);
      }
      if (r.size() != in.size()) return why = "permute axes are not a permutation", std::nullopt;
      return r;
    }
    case MoveKind::Pad:
    case MoveKind::Narrow: {
      if (a.size() != 3 || !axisOk(a[0])) return why = "expected {axis, ., .} with an axis of the operand", std::nullopt;
      Shape r = in;
      if (o.moveKind() == MoveKind::Pad) {
        if (__builtin_add_overflow(r[a[0]], a[1], &r[a[0]]) || __builtin_add_overflow(r[a[0]], a[2], &r[a[0]]) || r[a[0]] < 0)
          return why = "pads crop more than the dimension or overflow it", std::nullopt;
      } else if (a[1] < 0 || a[2] < 0 || a[2] > in[a[0]] - a[1]) {
        return why = "narrow past the operand's end", std::nullopt;
      } else {
        r[a[0]] = a[2];
      }
      return r;
    }
    case MoveKind::Flip:
      for (int64_t ax : a)
        if (!axisOk(ax)) return why = "flip axis out of range", std::nullopt;
      return in;
  }
  return why = "unknown movement", std::nullopt;
}

// The result shape the op's operands give, when the op has one (Param does not). Lowering
// indexes every operand with its consumer's index, so a shape that differs from this one would
// read past the index's end.
std::optional<Shape> expectedShape(const Kernel& k, const KOp& o, std::string& why) {
  switch (o.kind) {
    case KOpKind::Const: return Shape{};
    case KOpKind::Move: return movedShape(o, k.at(o.src[0]).shape, why);
    case KOpKind::Unary:
    case KOpKind::Cast:
    case KOpKind::Bitcast: return k.at(o.src[0]).shape;
    case KOpKind::Binary: return k.at(o.src[0]).shape.empty() ? k.at(o.src[1]).shape : k.at(o.src[0]).shape;
    case KOpKind::Where: {
      Shape s;
      for (int32_t x : o.src)
        if (!k.at(x).shape.empty()) s = k.at(x).shape;
      return s;
    }
    case KOpKind::Reduce: {
      Shape s = k.at(o.src[0]).shape;
      if (!s.empty()) s.pop_back();
      return s;
    }
    case KOpKind::Store: return k.at(o.src[1]).shape;
    default: return std::nullopt;
  }
}

// The result dtype the builders give the op, when its operands decide it (Param and Cast: any).
std::optional<DType> expectedDType(const Kernel& k, const KOp& o) {
  switch (o.kind) {
    case KOpKind::Const: return o.value.dtype();
    case KOpKind::Unary: return o.unaryOp() == UnaryOp::IsNan ? DType::Bool : k.at(o.src[0]).dtype;
    case KOpKind::Binary: return isComparison(o.binaryOp()) ? DType::Bool : k.at(o.src[0]).dtype;
    case KOpKind::Where: return k.at(o.src[1]).dtype;
    case KOpKind::Move:
    case KOpKind::Reduce: return k.at(o.src[0]).dtype;
    case KOpKind::Store: return k.at(o.src[1]).dtype;
    default: return std::nullopt;
  }
}
}  // namespace

std::string verifyKernel(const Kernel& k) {
  for (std::size_t i = 0; i < k.size(); ++i) {
    const KOp& o = k.ops[i];
    auto where = "op " + std::to_string(i) + ": ";
    if (std::string p = formProblem(o); !p.empty()) return where + p;
    for (int32_t s : o.src)
      if (s < 0 || s >= static_cast<int32_t>(i)) return where + "uses %" + std::to_string(s) + " before it is defined";
    std::string why;
    const std::optional<Shape> shape = expectedShape(k, o, why);
    if (!why.empty()) return where + why;
    if (shape && *shape != o.shape)
      return where + "shape " + shapeStr(o.shape) + " differs from the " + shapeStr(*shape) + " its operands give";
    if (const std::optional<DType> t = expectedDType(k, o); t && *t != o.dtype)
      return where + "dtype " + std::string(dtypeName(o.dtype)) + " differs from the " + std::string(dtypeName(*t)) +
             " its operands give";
    switch (o.kind) {
      case KOpKind::Store: {
        if (o.src.size() != 2) return where + "store needs {param, value}";
        const KOp& p = k.at(o.src[0]);
        const KOp& v = k.at(o.src[1]);
        if (p.kind != KOpKind::Param || p.paramKind() != ParamKind::ReadWrite)
          return where + "store into something other than a read-write param";
        if (numel(p.shape) != numel(v.shape) || p.dtype != v.dtype)
          return where + "stored value " + std::string(dtypeName(v.dtype)) + shapeStr(v.shape) +
                 " does not match the param " + std::string(dtypeName(p.dtype)) + shapeStr(p.shape);
        break;
      }
      case KOpKind::Binary: {
        const KOp &x = k.at(o.src[0]), &y = k.at(o.src[1]);
        if (x.dtype != y.dtype) return where + "binary operand dtypes differ";
        if (x.shape != y.shape && !x.shape.empty() && !y.shape.empty()) return where + "binary operand shapes differ";
        break;
      }
      case KOpKind::Where: {
        if (k.at(o.src[0]).dtype != DType::Bool) return where + "where condition is not bool";
        if (k.at(o.src[1]).dtype != k.at(o.src[2]).dtype) return where + "where branch dtypes differ";
        for (int32_t x : o.src)
          if (!k.at(x).shape.empty() && k.at(x).shape != o.shape) return where + "where operand shapes differ";
        break;
      }
      case KOpKind::Reduce:
        if (k.at(o.src[0]).shape.empty()) return where + "reduce of a rank-0 value";
        break;
      case KOpKind::Move:
        if (o.moveKind() == MoveKind::Reshape && numel(o.shape) != numel(k.at(o.src[0]).shape))
          return where + "reshape changes the element count";
        break;
      case KOpKind::Bitcast:
        if (dtypeSize(o.dtype) != dtypeSize(k.at(o.src[0]).dtype)) return where + "bitcast between dtypes of different sizes";
        break;
      default: break;
    }
  }
  return {};
}

}  // namespace ks
