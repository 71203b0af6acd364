// OpenCL C emission of lowered kernels. Semantics follow HostExecutor (host_executor.h): f16 is
// computed in float and rounded at every value, integer arithmetic wraps (done in unsigned types
// so nothing is undefined), int division by zero gives 0, float -> int casts saturate.
#include "engine/codegen/opencl_emitter.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
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
  Emitter(const LoweredKernel& k, const LoweredLaunch& l) : k_(k), l_(l), align_(varAlignments(l)) {}

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
        case UnaryOp::Tanh: e = (t == DType::F64 ? "ks_tanhd(" : "ks_tanhf(") + x + ")"; break;
        case UnaryOp::Erf: e = (t == DType::F64 ? "erf(" : "ks_erff(") + x + ")"; break;
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

  // Same-size reinterpretation. f16 values live in floats, so their 16 bits go through the
  // half-storage helpers; bool and u8 share uchar, and a nonzero byte read as bool is true.
  std::string bitcast(DType from, DType to, const std::string& x) const {
    if (from == to) return x;
    const std::string bits = from == DType::F16 ? "ks_hbits(" + x + ")" : x;
    if (to == DType::F16) return "ks_hval(as_short(" + bits + "))";
    if (to == DType::Bool) return "((uchar)(as_uchar(" + bits + ") != 0))";
    return "as_" + std::string(ctype(to)) + "(" + bits + ")";
  }

  std::string load(const BufRef& b, const std::string& index, DType t) const {
    if (t == DType::F16) return "vload_half(" + index + ", " + bufExpr(b) + ")";
    return bufExpr(b) + "[" + index + "]";
  }

  // ---- vector groups
  // A register tile computes the same operation for neighbouring lanes: a row of products of one
  // scalar with the lanes of a vector load, then lane-wise accumulation. These statements are
  // written as one vector statement (float8 ...): CPU drivers do not vectorize across the
  // work-items of a loop body, so without this a tile runs on scalar registers. Each lane does
  // the same operations in the same order as the scalar code.
  struct VecLane { std::string vec; int lane = 0; int width = 0; };
  struct BlockPlan {
    std::map<std::size_t, std::string> code;  // statement index -> vector code written in its place
    std::set<std::size_t> skip;               // members written by another statement's code
  };
  std::map<int32_t, VecLane> lanes_;  // scalar variable -> lane of a vector value in the code
  std::map<const std::vector<LStmt>*, BlockPlan> plans_;
  int vectors_ = 0;

  // Statements written lane-wise as one vector statement: float arithmetic, max/min, and the unary
  // functions OpenCL C defines on vectors (the prelude's scalar helpers are left out).
  static bool vectorOp(const LStmt& s, DType t) {
    if (s.kind != LStmtKind::Compute || (t != DType::F32 && t != DType::F64)) return false;
    if (s.opKind == LOpKind::Unary && s.args.size() == 1) {
      switch (static_cast<UnaryOp>(s.op)) {
        case UnaryOp::Tanh:
        case UnaryOp::Erf:
        case UnaryOp::Not:
        case UnaryOp::IsNan:
        case UnaryOp::Sign: return false;
        default: return true;
      }
    }
    if (s.opKind != LOpKind::Binary || s.args.size() != 2) return false;
    const BinaryOp op = static_cast<BinaryOp>(s.op);
    return op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul || op == BinaryOp::Div ||
           op == BinaryOp::Max || op == BinaryOp::Min;
  }
  // A vector statement's expression: max and min written out (the NaN-propagating helpers take
  // scalars), scalar operands widened to the vector type.
  std::string vecExpr(const LStmt& s, DType t, int w, const std::vector<std::string>& vec) const {
    const std::string V = vecType(t, w);
    std::vector<std::string> a;
    for (std::size_t p = 0; p < s.args.size(); ++p) a.push_back(vec[p].empty() ? "((" + V + ")(" + arg(s.args[p]) + "))" : vec[p]);
    if (s.opKind == LOpKind::Unary) return unary(static_cast<UnaryOp>(s.op), t, a[0]);
    return vecBinary(static_cast<BinaryOp>(s.op), t, a[0], a[1]);
  }
  std::string vecBinary(BinaryOp op, DType t, const std::string& a, const std::string& b) const {
    if (op != BinaryOp::Max && op != BinaryOp::Min) return binary(op, t, a, b);
    const char* cmp = op == BinaryOp::Max ? " > " : " < ";
    return "(" + a + " != " + a + " ? " + a + " : " + b + " != " + b + " ? " + b + " : (" + a + cmp + b + " ? " + a + " : " + b + "))";
  }
  const VecLane* laneOf(const LArg& a) const {
    if (a.isConst()) return nullptr;
    auto it = lanes_.find(a.var);
    return it == lanes_.end() ? nullptr : &it->second;
  }
  static bool sameArg(const LArg& a, const LArg& b) { return a.isConst() ? b.isConst() && a.c == b.c : a.var == b.var; }
  static std::string laneSuffix(int j) { return std::string(".s") + "0123456789abcdef"[j]; }

  // Member j's operand at position p is lane j of the vector at that position (vec[p]) or the
  // same operand as the first member's.
  bool memberFits(const LStmt& first, const LStmt& m, const std::vector<std::string>& vec, int j) const {
    if (m.kind != first.kind || m.opKind != first.opKind || m.op != first.op || m.assign != first.assign ||
        !m.mask.empty() || l_.vars[m.dst].dtype != l_.vars[first.dst].dtype)
      return false;
    for (std::size_t p = 0; p < first.args.size(); ++p) {
      if (vec[p].empty()) {
        if (!sameArg(first.args[p], m.args[p])) return false;
      } else {
        const VecLane* l = laneOf(m.args[p]);
        if (!l || l->vec != vec[p] || l->lane != j) return false;
      }
    }
    return true;
  }

  // Groups of statements i < k1 < k2 ... (lanes 0, 1, 2 ...) following the first member's pattern.
  std::vector<std::size_t> findGroup(const std::vector<LStmt>& b, std::size_t i, const std::set<std::size_t>& taken,
                                     std::vector<std::string>& vec, int& width) const {
    const LStmt& s = b[i];
    // Only a statement reading lane 0 of a vector can start a group: without this, every
    // statement of a long block would scan all the ones after it.
    bool readsLane0 = false;
    for (const LArg& a : s.args)
      if (const VecLane* l = laneOf(a); l && l->lane == 0) readsLane0 = true;
    if (!readsLane0) return {};
    for (std::size_t k1 = i + 1; k1 < b.size(); ++k1) {
      if (taken.count(k1)) continue;
      // Which positions are vectors: lane 0 here and lane 1 of the same vector in the candidate.
      vec.assign(s.args.size(), "");
      width = 0;
      bool ok = true;
      for (std::size_t p = 0; p < s.args.size() && ok; ++p) {
        const VecLane* l0 = laneOf(s.args[p]);
        const VecLane* l1 = k1 < b.size() && b[k1].args.size() == s.args.size() ? laneOf(b[k1].args[p]) : nullptr;
        if (l0 && l1 && l0->lane == 0 && l1->lane == 1 && l0->vec == l1->vec) {
          if (width && width != l0->width) ok = false;
          vec[p] = l0->vec, width = l0->width;
        }
      }
      if (!ok || width < 2 || !memberFits(s, b[k1], vec, 1)) continue;
      std::vector<std::size_t> members{i, k1};
      for (std::size_t k = k1 + 1; k < b.size() && static_cast<int>(members.size()) < width; ++k)
        if (!taken.count(k) && memberFits(s, b[k], vec, static_cast<int>(members.size()))) members.push_back(k);
      if (static_cast<int>(members.size()) == width) return members;
    }
    return {};
  }

  std::string vecType(DType t, int w) const { return std::string(ctype(t)) + std::to_string(w); }

  // Plans the vector loads and computed rows of a block (before it is written).
  BlockPlan& planBlock(const std::vector<LStmt>& b) {
    auto found = plans_.find(&b);
    if (found != plans_.end()) return found->second;
    BlockPlan& plan = plans_[&b];
    std::set<std::size_t> taken;
    for (std::size_t i = 0; i < b.size(); ++i) {
      const LStmt& s = b[i];
      if (s.kind == LStmtKind::VLoad) {
        const DType t = bufferDType(k_, l_, s.buf);
        if (t == DType::F32 || t == DType::F64)
          for (std::size_t j = 0; j < s.dsts.size(); ++j)
            lanes_[s.dsts[j]] = {"_" + l_.vars[s.dsts[0]].name, static_cast<int>(j), static_cast<int>(s.dsts.size())};
        continue;
      }
      if (taken.count(i) || s.kind != LStmtKind::Compute || s.assign || !vectorOp(s, l_.vars[s.dst].dtype)) continue;
      std::vector<std::string> vec;
      int width = 0;
      const std::vector<std::size_t> members = findGroup(b, i, taken, vec, width);
      if (members.empty()) continue;
      const DType t = l_.vars[s.dst].dtype;
      const std::string name = "_w" + std::to_string(vectors_++);
      std::string code = vecType(t, width) + " " + name + " = " + vecExpr(s, t, width, vec) + ";";
      for (std::size_t j = 0; j < members.size(); ++j) {
        const int32_t v = b[members[j]].dst;
        code += "\n" + std::string(ctype(t)) + " " + l_.vars[v].name + " = " + name + laneSuffix(static_cast<int>(j)) + ";";
        lanes_[v] = {name, static_cast<int>(j), width};
        taken.insert(members[j]);
        if (j) plan.skip.insert(members[j]);
      }
      plan.code[i] = code;
    }
    return plan;
  }

  static bool combiner(BinaryOp op) {
    return op == BinaryOp::Add || op == BinaryOp::Mul || op == BinaryOp::Max || op == BinaryOp::Min;
  }

  // Accumulations acc_j = acc_j + x_j (or max, min, *) in the direct body of a loop, where x_j are the lanes of a
  // vector and the acc_j are used nowhere else in the loop, run on an accumulator vector that is
  // filled from the scalars before the loop and written back after it.
  void planAccumulators(const LStmt& loop, std::string& pack, std::string& unpack) {
    const std::vector<LStmt>& b = loop.body;
    BlockPlan& plan = planBlock(b);
    struct Acc { std::vector<std::size_t> members; std::string vec; int width; std::vector<int32_t> dsts; };
    std::vector<Acc> groups;
    std::set<std::size_t> taken;
    for (std::size_t i = 0; i < b.size(); ++i) {
      const LStmt& s = b[i];
      if (taken.count(i) || s.kind != LStmtKind::Compute || !s.assign || !vectorOp(s, l_.vars[s.dst].dtype) ||
          s.opKind != LOpKind::Binary || !combiner(static_cast<BinaryOp>(s.op)))
        continue;
      if (s.args[0].isConst() || s.args[0].var != s.dst) continue;
      const VecLane* x = laneOf(s.args[1]);
      if (!x || x->lane != 0) continue;
      Acc a{{i}, x->vec, x->width, {s.dst}};
      for (std::size_t k = i + 1; k < b.size() && static_cast<int>(a.members.size()) < a.width; ++k) {
        const LStmt& m = b[k];
        const VecLane* xl = m.args.size() == 2 ? laneOf(m.args[1]) : nullptr;
        if (taken.count(k) || !m.assign || m.kind != LStmtKind::Compute || m.opKind != s.opKind || m.op != s.op ||
            m.args[0].isConst() || m.args[0].var != m.dst || !xl || xl->vec != a.vec ||
            xl->lane != static_cast<int>(a.members.size()) || l_.vars[m.dst].dtype != l_.vars[s.dst].dtype)
          continue;
        a.members.push_back(k);
        a.dsts.push_back(m.dst);
      }
      if (static_cast<int>(a.members.size()) != a.width) continue;
      for (std::size_t k : a.members) taken.insert(k);
      groups.push_back(std::move(a));
    }
    // One accumulator vector per list of scalars; a scalar in two lists, or used in the loop
    // outside its groups, keeps the scalar code.
    std::map<std::vector<int32_t>, std::string> vectorOf;
    std::map<int32_t, int> listsOf;
    for (const Acc& a : groups)
      if (!vectorOf.count(a.dsts)) {
        vectorOf[a.dsts] = "";
        for (int32_t v : a.dsts) ++listsOf[v];
      }
    std::set<const LStmt*> grouped;
    for (const Acc& a : groups)
      for (std::size_t k : a.members) grouped.insert(&b[k]);
    std::set<int32_t> usedElsewhere;
    std::function<void(const std::vector<LStmt>&)> scan = [&](const std::vector<LStmt>& ss) {
      for (const LStmt& st : ss) {
        if (grouped.count(&st)) continue;
        if (st.kind == LStmtKind::Compute && st.assign) usedElsewhere.insert(st.dst);
        for (const LArg& a : st.args)
          if (!a.isConst()) usedElsewhere.insert(a.var);
        scan(st.body);
      }
    };
    scan(b);
    for (auto& [dsts, name] : vectorOf) {
      bool ok = true;
      for (int32_t v : dsts) ok = ok && listsOf[v] == 1 && !usedElsewhere.count(v);
      if (!ok) continue;
      const DType t = l_.vars[dsts[0]].dtype;
      name = "_a" + std::to_string(vectors_++);
      pack += vecType(t, static_cast<int>(dsts.size())) + " " + name + " = (" + vecType(t, static_cast<int>(dsts.size())) + ")(";
      for (std::size_t j = 0; j < dsts.size(); ++j) {
        pack += (j ? ", " : "") + l_.vars[dsts[j]].name;
        unpack += l_.vars[dsts[j]].name + " = " + name + laneSuffix(static_cast<int>(j)) + ";\n";
      }
      pack += ");\n";
    }
    for (const Acc& a : groups) {
      const std::string& name = vectorOf[a.dsts];
      if (name.empty()) continue;
      const DType t = l_.vars[a.dsts[0]].dtype;
      plan.code[a.members[0]] = name + " = " + vecBinary(static_cast<BinaryOp>(b[a.members[0]].op), t, name, a.vec) + ";";
      for (std::size_t j = 1; j < a.members.size(); ++j) plan.skip.insert(a.members[j]);
    }
  }

  // The vector whose lanes 0..n-1 `args` are, in order ("" when they are not one whole vector).
  std::string wholeVector(const std::vector<LArg>& args) const {
    const VecLane* first = args.empty() ? nullptr : laneOf(args[0]);
    if (!first || first->width != static_cast<int>(args.size())) return "";
    for (std::size_t j = 0; j < args.size(); ++j) {
      const VecLane* l = laneOf(args[j]);
      if (!l || l->vec != first->vec || l->lane != static_cast<int>(j)) return "";
    }
    return first->vec;
  }

  static void writeLines(std::ostringstream& os, const std::string& ind, const std::string& code) {
    std::istringstream in(code);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) os << ind << line << "\n";
  }

  void body(std::ostringstream& os, const std::vector<LStmt>& stmts, int depth) {
    const std::string ind(2 * depth, ' ');
    const std::string IT = k_.wideIndex ? "long" : "int";
    BlockPlan& plan = planBlock(stmts);
    for (std::size_t si = 0; si < stmts.size(); ++si) {
      const LStmt& s = stmts[si];
      if (plan.skip.count(si)) continue;
      if (auto c = plan.code.find(si); c != plan.code.end()) {
        writeLines(os, ind, c->second);
        continue;
      }
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
            case LOpKind::Bitcast: e = bitcast(argType(s.args[0]), t, arg(s.args[0])); break;
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
          os << ind << ctype(t) << w << " " << tmp << " = ";
          if (aligned(s, s.dsts.size())) os << "*((" << vectorPointer(s.buf, t, w, true) << ")(" << bufExpr(s.buf) << " + " << s.index->key << "));\n";
          else os << "vload" << w << "(0, " << bufExpr(s.buf) << " + " << s.index->key << ");\n";
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
          std::string v = wholeVector(s.args);
          if (v.empty()) {
            v = "(" + std::string(ctype(t)) + w + ")(";
            for (std::size_t j = 0; j < s.args.size(); ++j) v += (j ? ", " : "") + arg(s.args[j]);
            v += ")";
          }
          if (aligned(s, s.args.size()))
            os << ind << "*((" << vectorPointer(s.buf, t, w, false) << ")(" << bufExpr(s.buf) << " + " << s.index->key << ")) = " << v << ";\n";
          else os << ind << "vstore" << w << "(" << v << ", 0, " << bufExpr(s.buf) << " + " << s.index->key << ");\n";
          break;
        }
        case LStmtKind::For: {
          const std::string v = l_.vars[s.dst].name;
          std::string pack, unpack;
          planAccumulators(s, pack, unpack);
          writeLines(os, ind, pack);
          os << ind << "for (" << IT << " " << v << " = " << s.begin->key << "; " << v;
          if (s.span != 1) os << " + " << s.span << " <= ";
          else os << " < ";
          os << s.end->key << "; " << v << " += " << s.step << ") {\n";
          body(os, s.body, depth + 1);
          os << ind << "}\n";
          writeLines(os, ind, unpack);
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
    // Local arrays are declared as 16-wide vectors (aligned for every vector access) and used
    // through a scalar pointer.
    for (std::size_t i = 0; i < l_.locals.size(); ++i) {
      const std::string T = ctype(l_.locals[i].dtype), n = "l" + std::to_string(i);
      os << "  __local " << T << "16 " << n << "_v[" << (l_.locals[i].size + 15) / 16 << "];\n";
      os << "  __local " << T << "* " << n << " = (__local " << T << "*)" << n << "_v;\n";
    }
    body(os, l_.body, 1);
    os << "}\n";
    return os.str();
  }

 private:
  // A vector access whose first index is a proven multiple of its width: buffers are aligned to
  // far more than a vector (OpenCL's base address alignment; local arrays are vector arrays).
  bool aligned(const LStmt& s, std::size_t w) const {
    return idx::alignment(s.index, align_) % static_cast<int64_t>(w) == 0;
  }
  std::string vectorPointer(const BufRef& b, DType t, const std::string& w, bool load) const {
    const char* space = b.space == BufRef::Space::Local ? "__local " : "__global ";
    return std::string(load ? "const " : "") + space + ctype(t) + w + "*";
  }

  const LoweredKernel& k_;
  const LoweredLaunch& l_;
  std::vector<int64_t> align_;
};
}  // namespace

std::string openclPrelude(bool fp64) {
  std::string s = R"(// Kernelscope OpenCL C: IEEE semantics, f16 as storage (computed in float, rounded per value).
float ks_rh(float x) { ushort h; vstore_half_rte(x, 0, (__private half*)&h); return vload_half(0, (__private half*)&h); }
short ks_hbits(float x) { short h; vstore_half_rte(x, 0, (__private half*)&h); return h; }
float ks_hval(short h) { return vload_half(0, (__private half*)&h); }
// NaN tests as x != x: plain compares that vectorize (PoCL's isnan is a call).
float ks_maxf(float a, float b) { return a != a ? a : b != b ? b : (a > b ? a : b); }
float ks_minf(float a, float b) { return a != a ? a : b != b ? b : (a < b ? a : b); }
float ks_modf(float a, float b) { float r = fmod(a, b); if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
// PoCL's tanh gives 0.99999994 at +-inf and for large x, where the float result is exactly +-1
// (a GELU's 1 + tanh(-inf) must be 0, not 6e-8); from |x| >= 10 the rounded tanh is +-1.
float ks_tanhf(float x) { return fabs(x) >= 10.0f ? copysign(1.0f, x) : tanh(x); }
// erf in float: PoCL's builtin costs ~35 ns a call (19x exp; it was half the transformer's time).
// |x| < 1: the Taylor series to x^21 (relative error < 1e-8); beyond: Abramowitz & Stegun 7.1.26
// (absolute error < 1.5e-7). At most 3 ulp from the exact value (OpenCL allows 16), branch-free.
float ks_erff(float x) {
  const float a = fabs(x), z = x * x;
  const float series = x * (1.1283791671f + z * (-0.37612638903f + z * (0.11283791671f + z * (-0.026866170645f +
      z * (0.0052239776254f + z * (-0.00085483270235f + z * (1.2055332982e-4f + z * (-1.4925650358e-5f +
      z * (1.6462114366e-6f + z * (-1.6365844691e-7f + z * 1.4807192816e-8f))))))))));
  const float t = 1.0f / (1.0f + 0.3275911f * a);
  const float tail = 1.0f - t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f +
      t * 1.061405429f)))) * exp(-z);
  return a < 1.0f ? series : copysign(tail, x);
}
long ks_modi(long a, long b) { if (b == 0 || b == -1) return 0; long r = a % b; if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
long ks_ipow(long a, long b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
  ulong r = 1, base = (ulong)a;
  while (b > 0) { if (b & 1) r *= base; base *= base; b >>= 1; }
  return (long)r;
}
)";
  if (fp64)
    s = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + s + R"(double ks_tanhd(double x) { return fabs(x) >= 20.0 ? copysign(1.0, x) : tanh(x); }
double ks_maxd(double a, double b) { return a != a ? a : b != b ? b : (a > b ? a : b); }
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
