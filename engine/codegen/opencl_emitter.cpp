// OpenCL C emission of lowered kernels. Semantics follow HostExecutor (host_executor.h): f16 is
// computed in float and rounded at every value, integer arithmetic wraps (done in unsigned types
// so nothing is undefined), int division by zero gives 0, float -> int casts saturate.
#include "engine/codegen/opencl_emitter.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "engine/core/error.h"

namespace ks {

namespace {
const char* ctype(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::U8: return "uchar";
    case DType::I8: return "char";
    case DType::I16: return "short";
    case DType::I32: return "int";
    case DType::I64: return "long";
    case DType::U32: return "uint";
    case DType::F16:
    case DType::F32: return "float";
    case DType::F64: return "double";
  }
  return "float";
}
const char* storageType(DType t) { return t == DType::F16 ? "half" : ctype(t); }
// Unsigned type wide enough to do t's wrapping arithmetic in.
const char* utype(DType t) { return t == DType::I64 ? "ulong" : "uint"; }

std::string literal(const Scalar& s) {
  const DType t = s.dtype();
  if (isFloat(t)) {
    const double v = s.toDouble();
    const char* T = t == DType::F64 ? "double" : "float";
    if (std::isnan(v)) return std::string("((") + T + ")NAN)";
    if (std::isinf(v)) return std::string("((") + T + ")" + (v < 0 ? "-" : "") + "INFINITY)";
    char buf[64];
    if (t == DType::F64) std::snprintf(buf, sizeof buf, "(%a)", v);
    else std::snprintf(buf, sizeof buf, "(%af)", v);
    return buf;
  }
  const int64_t v = s.toInt();
  if (t == DType::I64 && v == INT64_MIN) return "((long)(-9223372036854775807L - 1))";
  return "((" + std::string(ctype(t)) + ")" + std::to_string(v) + (t == DType::I64 ? "L" : t == DType::U32 ? "u" : "") + ")";
}

class Emitter {
 public:
  Emitter(const LoweredKernel& k, const LoweredLaunch& l) : k_(k), l_(l) {}

  std::string arg(const LArg& a) const { return a.isConst() ? literal(a.c) : l_.vars[a.var].name; }
  DType argType(const LArg& a) const { return a.isConst() ? a.c.dtype() : l_.vars[a.var].dtype; }

  std::string bufExpr(const BufRef& b) const {
    static const char* p[] = {"p", "t", "l"};
    return p[static_cast<int>(b.space)] + std::to_string(b.id);
  }

  static std::string round16(DType t, const std::string& e) { return t == DType::F16 ? "ks_rh(" + e + ")" : e; }

  std::string unary(UnaryOp op, DType t, const std::string& x) const {
    if (isFloat(t)) {
      const std::string F = t == DType::F64 ? "(double)" : "(float)";
      std::string e;
      switch (op) {
        case UnaryOp::Neg: e = "(-" + x + ")"; break;
        case UnaryOp::Abs: e = "fabs(" + x + ")"; break;
        case UnaryOp::Exp: e = "exp(" + x + ")"; break;
        case UnaryOp::Exp2: e = "exp2(" + x + ")"; break;
        case UnaryOp::Log: e = "log(" + x + ")"; break;
        case UnaryOp::Log2: e = "log2(" + x + ")"; break;
        case UnaryOp::Sqrt: e = "sqrt(" + x + ")"; break;
        case UnaryOp::Rsqrt: e = "(" + F + "1 / sqrt(" + x + "))"; break;
        case UnaryOp::Reciprocal: e = "(" + F + "1 / " + x + ")"; break;
        case UnaryOp::Sin: e = "sin(" + x + ")"; break;
        case UnaryOp::Cos: e = "cos(" + x + ")"; break;
        case UnaryOp::Tan: e = "tan(" + x + ")"; break;
        case UnaryOp::Tanh: e = "tanh(" + x + ")"; break;
        case UnaryOp::Erf: e = "erf(" + x + ")"; break;
        case UnaryOp::Floor: e = "floor(" + x + ")"; break;
        case UnaryOp::Ceil: e = "ceil(" + x + ")"; break;
        case UnaryOp::Round: e = "rint(" + x + ")"; break;
        case UnaryOp::Trunc: e = "trunc(" + x + ")"; break;
        case UnaryOp::Not: e = "(" + F + "(" + x + " == 0))"; break;
        case UnaryOp::IsNan: return "((uchar)(isnan(" + x + ") != 0))";
        case UnaryOp::Sign: e = "(" + F + "((" + x + " > 0) - (" + x + " < 0)))"; break;
      }
      return round16(t, e);
    }
    const std::string T = ctype(t), U = utype(t);
    switch (op) {
      case UnaryOp::Neg: return "((" + T + ")(0 - (" + U + ")" + x + "))";
      case UnaryOp::Abs: return "((" + T + ")(" + x + " < 0 ? 0 - (" + U + ")" + x + " : (" + U + ")" + x + "))";
      case UnaryOp::Not: return t == DType::Bool ? "((uchar)(" + x + " == 0))" : "((" + T + ")(~" + x + "))";
      case UnaryOp::IsNan: return "((uchar)0)";
      case UnaryOp::Sign: return "((" + T + ")((" + x + " > 0) - (" + x + " < 0)))";
      default: return x;
    }
  }

  std::string binary(BinaryOp op, DType t, const std::string& a, const std::string& b) const {
    auto cmp = [&](const char* o) { return "((uchar)(" + a + " " + o + " " + b + "))"; };
    switch (op) {
      case BinaryOp::CmpLt: return cmp("<");
      case BinaryOp::CmpLe: return cmp("<=");
      case BinaryOp::CmpGt: return cmp(">");
      case BinaryOp::CmpGe: return cmp(">=");
      case BinaryOp::CmpEq: return cmp("==");
      case BinaryOp::CmpNe: return cmp("!=");
      default: break;
    }
    if (isFloat(t)) {
      const bool d = t == DType::F64;
      const std::string F = d ? "(double)" : "(float)", sfx = d ? "d" : "f";
      std::string e;
      switch (op) {
        case BinaryOp::Add: e = "(" + a + " + " + b + ")"; break;
        case BinaryOp::Sub: e = "(" + a + " - " + b + ")"; break;
        case BinaryOp::Mul: e = "(" + a + " * " + b + ")"; break;
        case BinaryOp::Div: e = "(" + a + " / " + b + ")"; break;
        case BinaryOp::Mod: e = "ks_mod" + sfx + "(" + a + ", " + b + ")"; break;
        case BinaryOp::Pow: e = "pow(" + a + ", " + b + ")"; break;
        case BinaryOp::Max: e = "ks_max" + sfx + "(" + a + ", " + b + ")"; break;
        case BinaryOp::Min: e = "ks_min" + sfx + "(" + a + ", " + b + ")"; break;
        case BinaryOp::And: e = "(" + F + "((" + a + " != 0) && (" + b + " != 0)))"; break;
        case BinaryOp::Or: e = "(" + F + "((" + a + " != 0) || (" + b + " != 0)))"; break;
        case BinaryOp::Xor: e = "(" + F + "((" + a + " != 0) != (" + b + " != 0)))"; break;
        default: break;
      }
      return round16(t, e);
    }
    const std::string T = ctype(t), U = utype(t);
    const bool sgn = isSigned(t);
    if (t == DType::Bool) {
      switch (op) {
        case BinaryOp::Add:
        case BinaryOp::Or:
        case BinaryOp::Max: return "((uchar)(" + a + " | " + b + "))";
        case BinaryOp::Mul:
        case BinaryOp::And:
        case BinaryOp::Min: return "((uchar)(" + a + " & " + b + "))";
        case BinaryOp::Sub:
        case BinaryOp::Xor: return "((uchar)(" + a + " ^ " + b + "))";
        case BinaryOp::Div: return "((uchar)(" + b + " ? " + a + " : 0))";
        case BinaryOp::Mod: return "((uchar)0)";
        case BinaryOp::Pow: return "((uchar)(" + b + " ? " + a + " : 1))";
        default: break;
      }
    }
    switch (op) {
      case BinaryOp::Add: return "((" + T + ")((" + U + ")" + a + " + (" + U + ")" + b + "))";
      case BinaryOp::Sub: return "((" + T + ")((" + U + ")" + a + " - (" + U + ")" + b + "))";
      case BinaryOp::Mul: return "((" + T + ")((" + U + ")" + a + " * (" + U + ")" + b + "))";
      case BinaryOp::Div:
        if (sgn)
          return "((" + T + ")(" + b + " == 0 ? 0 : " + b + " == -1 ? (" + T + ")(0 - (" + U + ")" + a + ") : " + a + " / " + b + "))";
        return "((" + T + ")(" + b + " == 0 ? 0 : " + a + " / " + b + "))";
      case BinaryOp::Mod:
        if (sgn) return "((" + T + ")ks_modi((long)" + a + ", (long)" + b + "))";
        return "((" + T + ")(" + b + " == 0 ? 0 : " + a + " % " + b + "))";
      case BinaryOp::Pow: return "((" + T + ")ks_ipow((long)" + a + ", (long)" + b + "))";
      case BinaryOp::Max: return "(" + a + " > " + b + " ? " + a + " : " + b + ")";
      case BinaryOp::Min: return "(" + a + " < " + b + " ? " + a + " : " + b + ")";
      case BinaryOp::And: return "((" + T + ")(" + a + " & " + b + "))";
      case BinaryOp::Or: return "((" + T + ")(" + a + " | " + b + "))";
      case BinaryOp::Xor: return "((" + T + ")(" + a + " ^ " + b + "))";
      default: break;
    }
    return a;
  }

  std::string cast(DType from, DType to, const std::string& x) const {
    if (to == DType::Bool) return "((uchar)(" + x + " != 0))";
    if (isFloat(from) && !isFloat(to)) return "convert_" + std::string(ctype(to)) + "_sat_rtz(" + x + ")";
    if (to == DType::F16) return "ks_rh((float)" + x + ")";
    return "((" + std::string(ctype(to)) + ")" + x + ")";
  }

  std::string load(const BufRef& b, const std::string& index, DType t) const {
    if (t == DType::F16) return "vload_half(" + index + ", " + bufExpr(b) + ")";
    return bufExpr(b) + "[" + index + "]";
  }

  void body(std::ostringstream& os, const std::vector<LStmt>& stmts, int depth) {
    const std::string ind(2 * depth, ' ');
    const std::string IT = k_.wideIndex ? "long" : "int";
    for (const LStmt& s : stmts) {
      switch (s.kind) {
        case LStmtKind::Special: {
          static const char* fn[] = {"get_global_id", "get_local_id", "get_group_id"};
          os << ind << "const " << IT << " " << l_.vars[s.dst].name << " = (" << IT << ")" << fn[s.op] << "(" << s.axis
             << ");\n";
          break;
        }
        case LStmtKind::Compute: {
          const DType t = l_.vars[s.dst].dtype;
          std::string e;
          switch (s.opKind) {
            case LOpKind::Copy: e = cast(argType(s.args[0]), t, arg(s.args[0])); break;
            case LOpKind::Unary: e = unary(static_cast<UnaryOp>(s.op), argType(s.args[0]), arg(s.args[0])); break;
            case LOpKind::Binary: {
              const DType at = s.assign ? t : argType(s.args[0]);
              e = binary(static_cast<BinaryOp>(s.op), at, arg(s.args[0]), arg(s.args[1]));
              break;
            }
            case LOpKind::Cast: e = cast(argType(s.args[0]), t, arg(s.args[0])); break;
            case LOpKind::Where: e = "(" + arg(s.args[0]) + " ? " + arg(s.args[1]) + " : " + arg(s.args[2]) + ")"; break;
            case LOpKind::MaskSelect: e = "(" + s.mask.key() + " ? " + arg(s.args[0]) + " : " + arg(s.args[1]) + ")"; break;
          }
          os << ind;
          if (!s.assign) os << ctype(t) << " ";
          os << l_.vars[s.dst].name << " = " << e << ";\n";
          break;
        }
        case LStmtKind::Load: {
          const DType t = bufferDType(k_, l_, s.buf);
          std::string e = load(s.buf, s.index->key, t);
          if (!s.mask.empty()) e = "(" + s.mask.key() + " ? " + e + " : (" + ctype(t) + ")0)";
          os << ind << ctype(t) << " " << l_.vars[s.dst].name << " = " << e << ";\n";
          break;
        }
        case LStmtKind::VLoad: {
          const DType t = bufferDType(k_, l_, s.buf);
          const std::string w = std::to_string(s.dsts.size()), tmp = "_" + l_.vars[s.dsts[0]].name;
          os << ind << ctype(t) << w << " " << tmp << " = vload" << w << "(0, " << bufExpr(s.buf) << " + " << s.index->key
             << ");\n";
          for (std::size_t j = 0; j < s.dsts.size(); ++j)
            os << ind << ctype(t) << " " << l_.vars[s.dsts[j]].name << " = " << tmp << ".s" << "0123456789abcdef"[j] << ";\n";
          break;
        }
        case LStmtKind::Store: {
          const DType t = bufferDType(k_, l_, s.buf);
          std::string st;
          if (t == DType::F16) st = "vstore_half_rte(" + arg(s.args[0]) + ", " + s.index->key + ", " + bufExpr(s.buf) + ");";
          else st = bufExpr(s.buf) + "[" + s.index->key + "] = " + arg(s.args[0]) + ";";
          os << ind << (s.mask.empty() ? "" : "if " + s.mask.key() + " ") << st << "\n";
          break;
        }
        case LStmtKind::VStore: {
          const DType t = bufferDType(k_, l_, s.buf);
          const std::string w = std::to_string(s.args.size());
          os << ind << "vstore" << w << "((" << ctype(t) << w << ")(";
          for (std::size_t j = 0; j < s.args.size(); ++j) os << (j ? ", " : "") << arg(s.args[j]);
          os << "), 0, " << bufExpr(s.buf) << " + " << s.index->key << ");\n";
          break;
        }
        case LStmtKind::For: {
          const std::string v = l_.vars[s.dst].name;
          os << ind << "for (" << IT << " " << v << " = " << s.begin->key << "; " << v;
          if (s.span != 1) os << " + " << s.span << " <= ";
          else os << " < ";
          os << s.end->key << "; " << v << " += " << s.step << ") {\n";
          body(os, s.body, depth + 1);
          os << ind << "}\n";
          break;
        }
        case LStmtKind::If:
          os << ind << "if " << s.mask.key() << " {\n";
          body(os, s.body, depth + 1);
          os << ind << "}\n";
          break;
        case LStmtKind::Barrier: os << ind << "barrier(CLK_LOCAL_MEM_FENCE);\n"; break;
      }
    }
  }

  std::string kernel(const std::string& name) {
    std::ostringstream os;
    os << "__kernel ";
    if (l_.local[0] > 0)
      os << "__attribute__((reqd_work_group_size(" << l_.local[0] << ", " << l_.local[1] << ", " << l_.local[2] << "))) ";
    os << "void " << name << "(";
    bool first = true;
    for (std::size_t i = 0; i < k_.params.size(); ++i) {
      const LParam& p = k_.params[i];
      os << (first ? "" : ", ") << "__global " << (p.kind == ParamKind::ReadWrite ? "" : "const ")
         << storageType(p.dtype) << "* restrict p" << i;
      first = false;
    }
    for (std::size_t i = 0; i < k_.temps.size(); ++i) {
      os << (first ? "" : ", ") << "__global " << storageType(k_.temps[i].dtype) << "* restrict t" << i;
      first = false;
    }
    os << ") {\n";
    for (std::size_t i = 0; i < l_.locals.size(); ++i)
      os << "  __local " << ctype(l_.locals[i].dtype) << " l" << i << "[" << l_.locals[i].size << "];\n";
    body(os, l_.body, 1);
    os << "}\n";
    return os.str();
  }

 private:
  const LoweredKernel& k_;
  const LoweredLaunch& l_;
};
}  // namespace

std::string openclPrelude(bool fp64) {
  std::string s = R"(// Kernelscope OpenCL C: IEEE semantics, f16 as storage (computed in float, rounded per value).
float ks_rh(float x) { ushort h; vstore_half_rte(x, 0, (__private half*)&h); return vload_half(0, (__private half*)&h); }
// NaN tests as x != x: plain compares that vectorize (PoCL's isnan is a call).
float ks_maxf(float a, float b) { return a != a ? a : b != b ? b : (a > b ? a : b); }
float ks_minf(float a, float b) { return a != a ? a : b != b ? b : (a < b ? a : b); }
float ks_modf(float a, float b) { float r = fmod(a, b); if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
long ks_modi(long a, long b) { if (b == 0 || b == -1) return 0; long r = a % b; if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
long ks_ipow(long a, long b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
  ulong r = 1, base = (ulong)a;
  while (b > 0) { if (b & 1) r *= base; base *= base; b >>= 1; }
  return (long)r;
}
)";
  if (fp64)
    s = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + s + R"(double ks_maxd(double a, double b) { return a != a ? a : b != b ? b : (a > b ? a : b); }
double ks_mind(double a, double b) { return a != a ? a : b != b ? b : (a < b ? a : b); }
double ks_modd(double a, double b) { double r = fmod(a, b); if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
)";
  return s;
}

std::string openclKernelName(const std::string& prefix, std::size_t launch) {
  return prefix + "_" + std::to_string(launch);
}

std::string emitOpenCLKernels(const LoweredKernel& k, const std::string& prefix) {
  std::string s = "// " + k.name + " [" + k.schedule.str() + "]\n";
  for (std::size_t i = 0; i < k.launches.size(); ++i) s += Emitter(k, k.launches[i]).kernel(openclKernelName(prefix, i));
  return s;
}

std::string emitOpenCL(const LoweredKernel& k, const std::string& prefix) {
  return openclPrelude(k.needsFp64) + emitOpenCLKernels(k, prefix);
}

std::string openclBuildOptions() { return "-cl-std=CL1.2"; }

}  // namespace ks
