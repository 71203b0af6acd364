// Interpreters for unlowered and lowered kernels; scalar semantics from eval/scalar_ops.h.
#include "engine/kernel/interpreter.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/eval/scalar_ops.h"

namespace ks {

namespace {
template <class T>
KVal fl(DType t, T v) {
  KVal r;
  r.f = roundToDType(t, static_cast<double>(v));
  return r;
}
KVal in(DType t, int64_t v) {
  KVal r;
  r.i = wrapInt(t, v);
  return r;
}
KVal bl(bool b) {
  KVal r;
  r.i = b ? 1 : 0;
  return r;
}

template <class T>
KVal unaryFloat(UnaryOp op, DType t, T x) {
  if (op == UnaryOp::IsNan) return bl(std::isnan(x));
  return fl(t, floatUnary<T>(op, x));
}

template <class T>
KVal binaryFloat(BinaryOp op, DType t, T a, T b) {
  const T r = floatBinary<T>(op, a, b);
  return isComparison(op) ? bl(r != T(0)) : fl(t, r);
}
}  // namespace

KVal kvalOf(const Scalar& s) {
  KVal v;
  if (isFloat(s.dtype())) v.f = s.toDouble();
  else v.i = s.toInt();
  return v;
}

KVal evalUnary(UnaryOp op, DType t, KVal x) {
  if (t == DType::F64) return unaryFloat<double>(op, t, x.f);
  if (isFloat(t)) return unaryFloat<float>(op, t, static_cast<float>(x.f));
  if (op == UnaryOp::IsNan) return bl(false);
  const auto r = intUnary(op, x.i, t);
  if (!r) throw Error(ErrorCode::DType, std::string(unaryOpName(op)) + " of an integer value (" + std::string(dtypeName(t)) + ") is not defined");
  return in(t, *r);
}

KVal evalBinary(BinaryOp op, DType t, KVal a, KVal b) {
  if (t == DType::F64) return binaryFloat<double>(op, t, a.f, b.f);
  if (isFloat(t)) return binaryFloat<float>(op, t, static_cast<float>(a.f), static_cast<float>(b.f));
  const int64_t r = intBinary(op, a.i, b.i, t);
  return isComparison(op) ? bl(r != 0) : in(t, r);
}

KVal evalCast(DType from, DType to, KVal x) {
  KVal r;
  if (isFloat(from)) {
    if (isFloat(to)) r.f = roundToDType(to, x.f);
    else r.i = floatToInt(to, x.f);
  } else {
    if (isFloat(to)) r.f = roundToDType(to, static_cast<double>(x.i));
    else r.i = wrapInt(to, x.i);
  }
  return r;
}

namespace {
uint64_t bitsOf(DType t, KVal x) {
  switch (t) {
    case DType::F16: return floatToHalf(static_cast<float>(x.f));
    case DType::F32: {
      const float f = static_cast<float>(x.f);
      uint32_t b = 0;
      std::memcpy(&b, &f, sizeof b);
      return b;
    }
    case DType::F64: {
      uint64_t b = 0;
      std::memcpy(&b, &x.f, sizeof b);
      return b;
    }
    default: {
      const std::size_t n = dtypeSize(t);
      const uint64_t mask = n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
      return static_cast<uint64_t>(x.i) & mask;
    }
  }
}
}  // namespace

KVal evalBitcast(DType from, DType to, KVal x) {
  const uint64_t b = bitsOf(from, x);
  KVal r;
  switch (to) {
    case DType::F16: r.f = halfToFloat(static_cast<uint16_t>(b)); break;
    case DType::F32: {
      float f = 0;
      const uint32_t b32 = static_cast<uint32_t>(b);
      std::memcpy(&f, &b32, sizeof f);
      r.f = f;
      break;
    }
    case DType::F64: std::memcpy(&r.f, &b, sizeof b); break;
    case DType::Bool: r.i = b != 0; break;
    default: r.i = wrapInt(to, static_cast<int64_t>(b)); break;
  }
  return r;
}

KVal reduceIdentity(ReduceOp r, DType at) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (r) {
    case ReduceOp::Sum: return evalCast(DType::F64, at, KVal{0.0, 0});
    case ReduceOp::Prod: return evalCast(DType::F64, at, KVal{1.0, 0});
    case ReduceOp::Max:
      if (at == DType::Bool) return KVal{0, 0};
      return isFloat(at) ? KVal{-inf, 0} : KVal{0, floatToInt(at, -1e300)};
    case ReduceOp::Min:
      if (at == DType::Bool) return KVal{0, 1};
      return isFloat(at) ? KVal{inf, 0} : KVal{0, floatToInt(at, 1e300)};
  }
  return KVal{};
}

namespace {
[[noreturn]] void usage(const std::string& m) { throw Error(ErrorCode::Usage, "interpreter: " + m); }

std::vector<KVal> readTensor(const HostTensor& t) {
  std::vector<KVal> v(static_cast<std::size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloat(t.dtype())) v[i].f = t.getDouble(i);
    else v[i].i = t.getInt(i);
  }
  return v;
}

void writeTensor(HostTensor& t, const std::vector<KVal>& v) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloat(t.dtype())) t.setDouble(i, v[i].f);
    else t.setInt(i, v[i].i);
  }
}

void checkBuffers(const std::vector<int32_t>& params, const std::vector<DType>& dtypes,
                  const std::vector<int64_t>& numels, const std::vector<HostTensor>& buffers) {
  if (buffers.size() != params.size())
    usage("expected " + std::to_string(params.size()) + " buffers, got " + std::to_string(buffers.size()));
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].dtype() != dtypes[i] || buffers[i].numel() != numels[i])
      usage("buffer " + std::to_string(i) + " is " + std::string(dtypeName(buffers[i].dtype())) +
            shapeStr(buffers[i].shape()) + ", the kernel wants " + std::string(dtypeName(dtypes[i])) + "[" +
            std::to_string(numels[i]) + "]");
}

}  // namespace

void runKernel(const Kernel& k, std::vector<HostTensor>& buffers) {
  const auto params = k.params();
  std::vector<DType> dts;
  std::vector<int64_t> ns;
  for (int32_t p : params) {
    dts.push_back(k.at(p).dtype);
    ns.push_back(k.at(p).paramKind() == ParamKind::Scalar ? 1 : numel(k.at(p).shape));
  }
  checkBuffers(params, dts, ns, buffers);
  std::vector<std::vector<KVal>> val(k.size());
  std::size_t pi = 0;
  for (std::size_t i = 0; i < k.size(); ++i) {
    const KOp& o = k.ops[i];
    std::vector<KVal>& out = val[i];
    const int64_t n = numel(o.shape);
    auto get = [&](int32_t s, int64_t e) -> KVal { return val[s].size() == 1 ? val[s][0] : val[s][e]; };
    switch (o.kind) {
      case KOpKind::Param: out = readTensor(buffers[pi++]); break;
      case KOpKind::Const: out = {kvalOf(o.value)}; break;
      case KOpKind::Move: {
        const Shape& is = k.at(o.src[0]).shape;
        out.resize(n);
        for (int64_t e = 0; e < n; ++e) {
          std::vector<int64_t> c = unravelIndex(e, o.shape), ic = c;
          bool pad = false;
          switch (o.moveKind()) {
            case MoveKind::Reshape: ic = unravelIndex(e, is); break;
            case MoveKind::Expand:
              for (std::size_t a = 0; a < is.size(); ++a)
                if (is[a] == 1) ic[a] = 0;
              break;
            case MoveKind::Permute:
              for (std::size_t a = 0; a < o.attr.size(); ++a) ic[o.attr[a]] = c[a];
              break;
            case MoveKind::Flip:
              for (int64_t a : o.attr) ic[a] = is[a] - 1 - c[a];
              break;
            case MoveKind::Narrow: ic[o.attr[0]] += o.attr[1]; break;
            case MoveKind::Pad:
              ic[o.attr[0]] -= o.attr[1];
              pad = ic[o.attr[0]] < 0 || ic[o.attr[0]] >= is[o.attr[0]];
              break;
          }
          out[e] = pad ? kvalOf(o.value) : val[o.src[0]][ravelIndex(ic, is)];
        }
        break;
      }
      case KOpKind::Unary: {
        const DType t = k.at(o.src[0]).dtype;
        out.resize(n);
        for (int64_t e = 0; e < n; ++e) out[e] = evalUnary(o.unaryOp(), t, get(o.src[0], e));
        break;
      }
      case KOpKind::Binary: {
        const DType t = k.at(o.src[0]).dtype;
        out.resize(n);
        for (int64_t e = 0; e < n; ++e) out[e] = evalBinary(o.binaryOp(), t, get(o.src[0], e), get(o.src[1], e));
        break;
      }
      case KOpKind::Cast: {
        const DType t = k.at(o.src[0]).dtype;
        out.resize(n);
        for (int64_t e = 0; e < n; ++e) out[e] = evalCast(t, o.dtype, get(o.src[0], e));
        break;
      }
      case KOpKind::Bitcast: {
        const DType t = k.at(o.src[0]).dtype;
        out.resize(n);
        for (int64_t e = 0; e < n; ++e) out[e] = evalBitcast(t, o.dtype, get(o.src[0], e));
        break;
      }
      case KOpKind::Where:
        out.resize(n);
        for (int64_t e = 0; e < n; ++e) out[e] = get(o.src[0], e).i ? get(o.src[1], e) : get(o.src[2], e);
        break;
      case KOpKind::Reduce: {
        const int64_t K = k.at(o.src[0]).shape.back();
        const DType at = o.dtype == DType::F16 ? DType::F32 : o.dtype;
        const BinaryOp comb = combinerOf(o.reduceOp());
        const KVal ident = reduceIdentity(o.reduceOp(), at);
        out.resize(n);
        for (int64_t e = 0; e < n; ++e) {
          KVal acc = ident;
          for (int64_t r = 0; r < K; ++r) acc = evalBinary(comb, at, acc, val[o.src[0]][e * K + r]);
          out[e] = at == o.dtype ? acc : evalCast(at, o.dtype, acc);
        }
        break;
      }
      case KOpKind::Store: {
        std::size_t bi = 0;
        for (; bi < params.size() && params[bi] != o.src[0]; ++bi) {}
        std::vector<KVal> v = val[o.src[1]];
        if (static_cast<int64_t>(v.size()) == 1 && n != 1) v.assign(n, v[0]);
        writeTensor(buffers[bi], v);
        break;
      }
    }
  }
}

// ------------------------------------------------------------------------- lowered kernels
namespace {
struct Machine {
  const LoweredKernel& k;
  const LoweredLaunch* l = nullptr;
  std::vector<std::vector<KVal>>& params;
  std::vector<std::vector<KVal>>& temps;
  std::vector<std::vector<KVal>> locals;
  int64_t gid[3], lid[3], grp[3];
  std::vector<KVal>* vars = nullptr;
  std::vector<int64_t> align;  // varAlignments of the launch

  // The first index of a vector access, checked against the alignment the emitter relies on.
  int64_t vectorBase(const LStmt& s, std::size_t w) const {
    const int64_t base = eval(s.index);
    const auto wi = static_cast<int64_t>(w);
    if (idx::alignment(s.index, align) % wi == 0 && base % wi != 0)
      throw Error(ErrorCode::Invariant, "interpreter: vector access at " + std::to_string(base) + " proven a multiple of " +
                                            std::to_string(w) + " in " + l->name);
    return base;
  }

  int64_t eval(const Idx& e) const {
    switch (e->kind) {
      case IdxKind::Var: return (*vars)[e->var].i;
      case IdxKind::Lin: {
        int64_t s = e->c;
        for (auto& [c, a] : e->terms) s += c * eval(a);
        return s;
      }
      case IdxKind::Div: return eval(e->a) / e->c;
      case IdxKind::Mod: return eval(e->a) % e->c;
      case IdxKind::Min: return std::min(eval(e->a), eval(e->b));
      case IdxKind::Within: return eval(e->a);
    }
    return 0;
  }
  bool test(const Mask& m) const {
    for (auto& t : m.terms) {
      const int64_t v = eval(t.e);
      if (v < t.lo || v >= t.hi) return false;
    }
    return true;
  }
  KVal arg(const LArg& a) const { return a.isConst() ? kvalOf(a.c) : (*vars)[a.var]; }
  DType argType(const LArg& a) const { return a.isConst() ? a.c.dtype() : l->vars[a.var].dtype; }
  std::vector<KVal>& buffer(const BufRef& b) {
    switch (b.space) {
      case BufRef::Space::Param: return params[b.id];
      case BufRef::Space::Temp: return temps[b.id];
      default: return locals[b.id];
    }
  }
  KVal& at(const BufRef& b, int64_t i, const char* what) {
    std::vector<KVal>& buf = buffer(b);
    if (i < 0 || i >= static_cast<int64_t>(buf.size()))
      throw Error(ErrorCode::Launch, std::string("interpreter: out-of-bounds ") + what + " at " + std::to_string(i) +
                                         " of a buffer of " + std::to_string(buf.size()) + " in " + l->name);
    return buf[i];
  }

  void exec(const std::vector<LStmt>& body) { exec(body.data(), body.data() + body.size()); }
  void exec(const LStmt* first, const LStmt* last) {
    for (const LStmt* sp = first; sp != last; ++sp) {
      const LStmt& s = *sp;
      switch (s.kind) {
        case LStmtKind::Special: {
          const int64_t* src = s.op == 0 ? gid : s.op == 1 ? lid : grp;
          (*vars)[s.dst].i = src[s.axis];
          break;
        }
        case LStmtKind::Compute: {
          const DType t = l->vars[s.dst].dtype;
          KVal r;
          switch (s.opKind) {
            case LOpKind::Copy: r = evalCast(argType(s.args[0]), t, arg(s.args[0])); break;
            case LOpKind::Unary: r = evalUnary(static_cast<UnaryOp>(s.op), argType(s.args[0]), arg(s.args[0])); break;
            case LOpKind::Binary: {
              const DType at = s.assign ? t : argType(s.args[0]);
              r = evalBinary(static_cast<BinaryOp>(s.op), at, arg(s.args[0]), arg(s.args[1]));
              break;
            }
            case LOpKind::Cast: r = evalCast(argType(s.args[0]), t, arg(s.args[0])); break;
            case LOpKind::Bitcast: r = evalBitcast(argType(s.args[0]), t, arg(s.args[0])); break;
            case LOpKind::Where: r = arg(s.args[0]).i ? arg(s.args[1]) : arg(s.args[2]); break;
            case LOpKind::MaskSelect: r = test(s.mask) ? arg(s.args[0]) : arg(s.args[1]); break;
          }
          (*vars)[s.dst] = r;
          break;
        }
        case LStmtKind::Load:
          (*vars)[s.dst] = test(s.mask) ? at(s.buf, eval(s.index), "load") : KVal{};
          break;
        case LStmtKind::VLoad: {
          const int64_t base = vectorBase(s, s.dsts.size());
          for (std::size_t j = 0; j < s.dsts.size(); ++j) (*vars)[s.dsts[j]] = at(s.buf, base + j, "vector load");
          break;
        }
        case LStmtKind::Store:
          if (test(s.mask)) at(s.buf, eval(s.index), "store") = arg(s.args[0]);
          break;
        case LStmtKind::VStore: {
          const int64_t base = vectorBase(s, s.args.size());
          for (std::size_t j = 0; j < s.args.size(); ++j) at(s.buf, base + j, "vector store") = arg(s.args[j]);
          break;
        }
        case LStmtKind::For: {
          const int64_t end = eval(s.end);
          for (int64_t r = eval(s.begin); r + s.span <= end; r += s.step) {
            (*vars)[s.dst].i = r;
            exec(s.body);
          }
          break;
        }
        case LStmtKind::If:
          if (test(s.mask)) exec(s.body);
          break;
        case LStmtKind::Barrier: break;
      }
    }
  }

  // ---- one work-group, items in lock-step between barriers
  int64_t local[3] = {1, 1, 1}, group[3] = {0, 0, 0};
  std::vector<std::vector<KVal>>* states = nullptr;

  void enterItem(int64_t it) {
    const int64_t l0 = it % local[0], l1 = (it / local[0]) % local[1], l2 = it / (local[0] * local[1]);
    const int64_t li[3] = {l0, l1, l2};
    for (int a = 0; a < 3; ++a) grp[a] = group[a], lid[a] = li[a], gid[a] = group[a] * local[a] + li[a];
    vars = &(*states)[static_cast<std::size_t>(it)];
  }
  void execItems(const LStmt* first, const LStmt* last) {
    if (first == last) return;
    for (std::size_t it = 0; it < states->size(); ++it) enterItem(static_cast<int64_t>(it)), exec(first, last);
  }
  static bool hasBarrier(const std::vector<LStmt>& body) {
    for (const LStmt& s : body)
      if (s.kind == LStmtKind::Barrier || (s.kind == LStmtKind::For && hasBarrier(s.body))) return true;
    return false;
  }
  // Every item runs the statements up to a barrier before any item goes past it; a loop holding a
  // barrier runs its iterations in step (its bounds must be the same for every item).
  void execGroup(const std::vector<LStmt>& body) {
    const LStmt* segment = body.data();
    for (const LStmt& s : body) {
      const bool sync = s.kind == LStmtKind::Barrier || (s.kind == LStmtKind::For && hasBarrier(s.body));
      if (!sync) continue;
      execItems(segment, &s);
      segment = &s + 1;
      if (s.kind != LStmtKind::For) continue;
      enterItem(0);
      const int64_t begin = eval(s.begin), end = eval(s.end);
      for (std::size_t it = 1; it < states->size(); ++it) {
        enterItem(static_cast<int64_t>(it));
        if (eval(s.begin) != begin || eval(s.end) != end)
          throw Error(ErrorCode::Launch, "interpreter: a loop around a barrier has different bounds within a work-group in " + l->name);
      }
      for (int64_t r = begin; r + s.span <= end; r += s.step) {
        for (auto& st : *states) st[static_cast<std::size_t>(s.dst)].i = r;
        execGroup(s.body);
      }
    }
    execItems(segment, body.data() + body.size());
  }
};
}  // namespace

void runLowered(const LoweredKernel& k, std::vector<HostTensor>& buffers) {
  std::vector<int32_t> ids;
  std::vector<DType> dts;
  std::vector<int64_t> ns;
  for (std::size_t i = 0; i < k.params.size(); ++i) {
    ids.push_back(static_cast<int32_t>(i));
    dts.push_back(k.params[i].dtype);
    ns.push_back(k.params[i].numel);
  }
  checkBuffers(ids, dts, ns, buffers);
  std::vector<std::vector<KVal>> params, temps;
  for (const HostTensor& t : buffers) params.push_back(readTensor(t));
  for (const LTemp& t : k.temps) temps.emplace_back(static_cast<std::size_t>(t.numel));
  Machine m{k, nullptr, params, temps, {}, {}, {}, {}, nullptr, {}};
  for (const LoweredLaunch& l : k.launches) {
    m.l = &l;
    m.align = varAlignments(l);
    for (int a = 0; a < 3; ++a) m.local[a] = l.local[a] > 0 ? l.local[a] : 1;
    const int64_t items = m.local[0] * m.local[1] * m.local[2];
    std::vector<std::vector<KVal>> state(static_cast<std::size_t>(items), std::vector<KVal>(l.vars.size()));
    m.states = &state;
    for (int64_t g2 = 0; g2 < l.global[2] / m.local[2]; ++g2)
      for (int64_t g1 = 0; g1 < l.global[1] / m.local[1]; ++g1)
        for (int64_t g0 = 0; g0 < l.global[0] / m.local[0]; ++g0) {
          m.locals.clear();
          for (const LocalArray& a : l.locals) m.locals.emplace_back(static_cast<std::size_t>(a.size));
          m.group[0] = g0, m.group[1] = g1, m.group[2] = g2;
          m.execGroup(l.body);
        }
  }
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (k.params[i].kind == ParamKind::ReadWrite) writeTensor(buffers[i], params[i]);
}

}  // namespace ks
