// The .ks printer: the original text when a program came from text, otherwise one statement per
// e-class in class order, so that parsing the text rebuilds the same e-graph (same cache key).
#include "engine/io/ks_printer.h"

#include <charconv>
#include <cmath>
#include <set>
#include <sstream>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/io/npy.h"
#include "engine/io/program_source.h"
#include "engine/program/op_registry.h"

namespace ks {

std::string formatKsNumber(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  // Integral values get ".0" so they read back as floats: "-0.0" keeps its sign, and "3.0"
  // says what it is.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

namespace {

bool validIdent(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  for (const std::string& k : OpRegistry::keywords())
    if (s == k) return false;
  return true;
}

// Temporaries are t<class>; user names that look like one get a trailing '_'.
bool looksLikeTemp(const std::string& s) {
  if (s.size() < 2 || s[0] != 't') return false;
  for (std::size_t i = 1; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

std::string sanitize(const std::string& raw) {
  std::string s;
  for (char c : raw) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v_" + s;
  while (!validIdent(s) || looksLikeTemp(s)) s += "_";
  return s;
}

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string typeStr(DType t, const Shape& s) { return std::string(dtypeName(t)) + ints(std::vector<int64_t>(s.begin(), s.end())); }

std::string element(const HostTensor& t, int64_t i) {
  if (t.dtype() == DType::Bool) return t.getInt(i) ? "true" : "false";
  if (isFloat(t.dtype())) return formatKsNumber(t.getDouble(i));
  return std::to_string(t.getInt(i));
}

// Nested list literal, rows of the last axis on their own lines for anything bigger than a row.
void literal(std::ostringstream& os, const HostTensor& t, std::size_t axis, int64_t& k) {
  const Shape& s = t.shape();
  os << "[";
  for (int64_t i = 0; i < s[axis]; ++i) {
    if (i) os << (axis + 1 < s.size() ? ",\n  " : ", ");
    if (axis + 1 == s.size()) os << element(t, k++);
    else literal(os, t, axis + 1, k);
  }
  os << "]";
}

std::string literal(const HostTensor& t) {
  std::ostringstream os;
  int64_t k = 0;
  if (t.shape().empty()) return element(t, 0);
  literal(os, t, 0, k);
  return os.str();
}

std::string scalarStr(const Scalar& v) {
  if (v.dtype() == DType::Bool) return v.toBool() ? "true" : "false";
  if (isFloat(v.dtype())) return formatKsNumber(v.toDouble());
  return std::to_string(v.toInt());
}

std::string initStr(const ParamInit& in, DType t, const Shape& s) {
  switch (in.kind) {
    case ParamInit::Kind::Zeros: return "zeros";
    case ParamInit::Kind::Ones: return "ones";
    case ParamInit::Kind::Full: return "full(" + formatKsNumber(in.a) + ")";
    case ParamInit::Kind::Arange: return "arange(start=" + formatKsNumber(in.a) + ", step=" + formatKsNumber(in.b) + ")";
    case ParamInit::Kind::Uniform:
      return "uniform(lo=" + formatKsNumber(in.a) + ", hi=" + formatKsNumber(in.b) + ", seed=" + std::to_string(in.seed) + ")";
    case ParamInit::Kind::Normal:
      return "normal(mean=" + formatKsNumber(in.a) + ", std=" + formatKsNumber(in.b) + ", seed=" + std::to_string(in.seed) + ")";
    case ParamInit::Kind::Data: {
      if (!in.data) throw Error(ErrorCode::Internal, "parameter data is missing");
      HostTensor d = in.data->castTo(t).reshaped(s);
      if (s.empty()) return "[" + element(d, 0) + "]";
      return literal(d);
    }
  }
  return "zeros";
}

// High-level names whose builder op adds exactly this one node for these operand dtypes.
const char* exactUnaryName(UnaryOp u, DType t) {
  const bool f3264 = t == DType::F32 || t == DType::F64;
  switch (u) {
    case UnaryOp::Neg: return t == DType::Bool ? nullptr : "neg";
    case UnaryOp::Abs: return t == DType::Bool ? nullptr : "abs";
    case UnaryOp::Sign: return t == DType::Bool ? nullptr : "sign";
    case UnaryOp::Not: return t == DType::Bool ? "logical_not" : nullptr;
    case UnaryOp::IsNan: return isFloat(t) ? "isnan" : nullptr;
    case UnaryOp::Trunc: return nullptr;
    default: break;
  }
  if (!f3264) return nullptr;
  switch (u) {
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Exp2: return "exp2";
    case UnaryOp::Log: return "log";
    case UnaryOp::Log2: return "log2";
    case UnaryOp::Sqrt: return "sqrt";
    case UnaryOp::Rsqrt: return "rsqrt";
    case UnaryOp::Reciprocal: return "reciprocal";
    case UnaryOp::Sin: return "sin";
    case UnaryOp::Cos: return "cos";
    case UnaryOp::Tan: return "tan";
    case UnaryOp::Tanh: return "tanh";
    case UnaryOp::Erf: return "erf";
    case UnaryOp::Floor: return "floor";
    case UnaryOp::Ceil: return "ceil";
    case UnaryOp::Round: return "round";
    default: return nullptr;
  }
}

const char* exactBinaryName(BinaryOp b, DType t) {
  if (b == BinaryOp::And || b == BinaryOp::Or || b == BinaryOp::Xor) {
    if (t != DType::Bool) return nullptr;
    return b == BinaryOp::And ? "logical_and" : b == BinaryOp::Or ? "logical_or" : "logical_xor";
  }
  if (t == DType::F16 && !isComparison(b)) return nullptr;  // the builder computes f16 in f32
  switch (b) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "mod";
    case BinaryOp::Pow: return "pow";
    case BinaryOp::Max: return "maximum";
    case BinaryOp::Min: return "minimum";
    case BinaryOp::CmpLt: return "<";
    case BinaryOp::CmpLe: return "<=";
    case BinaryOp::CmpGt: return ">";
    case BinaryOp::CmpGe: return ">=";
    case BinaryOp::CmpEq: return "==";
    case BinaryOp::CmpNe: return "!=";
    default: return nullptr;
  }
}

// Writes the parameter's data as NAME.npy under `weights` and answers its data(...) initializer.
std::string weightFile(const KsWeightFiles& weights, const std::string& name, const ParamInit& in, DType t,
                       const Shape& s) {
  if (!in.data) throw Error(ErrorCode::Internal, "parameter data is missing");
  const std::string file = name + ".npy";
  writeNpy((weights.dir / file).string(), in.data->castTo(t).reshaped(s));
  const std::string ref = weights.reference.empty() || weights.reference.back() == '/' ? weights.reference + file
                                                                                         : weights.reference + "/" + file;
  return "data(\"" + ref + "\")";
}

}  // namespace

std::string printKsGraph(const Program& p, const KsWeightFiles* weights) {
  if (weights) {
    if (weights->reference.find_first_of("\"\\\n") != std::string::npos)
      throw Error(ErrorCode::Usage, "the weights folder '" + weights->reference +
                                        "' cannot be written in a .ks string (it holds a quote, backslash or newline)");
    std::error_code ec;
    std::filesystem::create_directories(weights->dir, ec);
    if (ec || !std::filesystem::is_directory(weights->dir))
      throw Error(ErrorCode::Io, "cannot create the weights folder " + weights->dir.string() + ": " + ec.message());
  }
  const Graph& g = p.graph;
  std::ostringstream os;
  os << "# " << (p.name.empty() ? "program" : p.name)
     << ": printed from its e-graph, one statement per e-class (low-level ops where needed)\n";

  // Names: leaves keep their (sanitized, unique) names; every other class is t<id>.
  std::set<std::string> used;
  std::unordered_map<uint32_t, std::string> leafName;
  for (uint32_t i = 0; i < g.leaves().size(); ++i) {
    std::string n = sanitize(g.leaf(i).name);
    while (used.count(n)) n += "_";
    used.insert(n);
    leafName[i] = n;
  }
  std::unordered_map<uint32_t, const ProgramParam*> paramOf;
  for (const ProgramParam& pp : p.params) paramOf[pp.leaf] = &pp;
  std::vector<std::string> name(g.classCount());
  for (uint32_t c = 0; c < g.classCount(); ++c) {
    const Node& n = g.structural(ClassId{c});
    name[c] = n.kind == NodeKind::Leaf ? leafName.at(n.ref) : "t" + std::to_string(c);
  }
  auto in = [&](const Node& n, std::size_t k) { return name.at(n.in.at(k).v); };

  for (uint32_t c = 0; c < g.classCount(); ++c) {
    const ClassId cls{c};
    const Node& n = g.structural(cls);
    const std::string& v = name[c];
    const DType t = g.dtype(cls);
    const Shape& s = g.shape(cls);
    switch (n.kind) {
      case NodeKind::Const: os << "const " << v << ": " << dtypeName(t) << " = " << scalarStr(n.value) << "\n"; break;
      case NodeKind::Leaf: {
        const LeafInfo& l = g.leaf(n.ref);
        if (l.kind == LeafKind::Input) {
          os << "input " << v << ": " << typeStr(l.dtype, l.shape) << "\n";
        } else if (l.kind == LeafKind::Param) {
          auto it = paramOf.find(n.ref);
          if (it == paramOf.end()) throw Error(ErrorCode::Internal, "parameter leaf '" + l.name + "' has no ProgramParam");
          const ParamInit& init = it->second->init;
          os << "param " << v << ": " << typeStr(l.dtype, l.shape) << " = "
             << (weights && init.kind == ParamInit::Kind::Data ? weightFile(*weights, v, init, l.dtype, l.shape)
                                                                : initStr(init, l.dtype, l.shape))
             << "\n";
        } else {
          if (!l.data) throw Error(ErrorCode::Internal, "constant leaf '" + l.name + "' has no data");
          os << "const " << v << ": " << typeStr(l.dtype, l.shape) << " = " << literal(*l.data) << "\n";
        }
        break;
      }
      case NodeKind::Expand: os << v << " = expand(" << in(n, 0) << ", " << ints(n.attr) << ")\n"; break;
      case NodeKind::Permute: os << v << " = permute(" << in(n, 0) << ", " << ints(n.attr) << ")\n"; break;
      case NodeKind::Reshape: os << v << " = reshape(" << in(n, 0) << ", " << ints(n.attr) << ")\n"; break;
      case NodeKind::Pad:
        os << v << " = pad_axis(" << in(n, 0) << ", " << n.attr.at(0) << ", " << n.attr.at(1) << ", " << n.attr.at(2)
           << ", value=" << scalarStr(n.value) << ")\n";
        break;
      case NodeKind::Narrow:
        os << v << " = narrow(" << in(n, 0) << ", " << n.attr.at(0) << ", " << n.attr.at(1) << ", " << n.attr.at(2) << ")\n";
        break;
      case NodeKind::Flip: os << v << " = flip(" << in(n, 0) << ", " << ints(n.attr) << ")\n"; break;
      case NodeKind::Reduce:
        os << v << " = reduce_" << reduceOpName(n.reduceOp()) << "(" << in(n, 0) << ", " << ints(n.attr) << ")\n";
        break;
      case NodeKind::Cast: os << v << " = cast(" << in(n, 0) << ", \"" << dtypeName(t) << "\")\n"; break;
      case NodeKind::Bitcast: os << v << " = bitcast(" << in(n, 0) << ", \"" << dtypeName(t) << "\")\n"; break;
      case NodeKind::Unary: {
        const DType it = g.dtype(n.in.at(0));
        if (const char* hn = exactUnaryName(n.unaryOp(), it)) os << v << " = " << hn << "(" << in(n, 0) << ")\n";
        else os << v << " = unary(" << in(n, 0) << ", \"" << unaryOpName(n.unaryOp()) << "\")\n";
        break;
      }
      case NodeKind::Binary: {
        const DType it = g.dtype(n.in.at(0));
        const char* hn = exactBinaryName(n.binaryOp(), it);
        if (!hn) os << v << " = binary(" << in(n, 0) << ", " << in(n, 1) << ", \"" << binaryOpName(n.binaryOp()) << "\")\n";
        else if (std::isalpha(static_cast<unsigned char>(hn[0]))) os << v << " = " << hn << "(" << in(n, 0) << ", " << in(n, 1) << ")\n";
        else os << v << " = " << in(n, 0) << " " << hn << " " << in(n, 1) << "\n";
        break;
      }
      case NodeKind::Where: {
        const bool plain = g.shape(n.in[0]) == s && g.shape(n.in[1]) == s && g.shape(n.in[2]) == s &&
                           !g.isConst(n.in[0]) && !g.isConst(n.in[1]) && !g.isConst(n.in[2]) &&
                           g.dtype(n.in[0]) == DType::Bool;
        os << v << " = " << (plain ? "where(" : "select(") << in(n, 0) << ", " << in(n, 1) << ", " << in(n, 2) << ")\n";
        break;
      }
      case NodeKind::Contiguous: os << v << " = contiguous(" << in(n, 0) << ")\n"; break;
      case NodeKind::ToDevice:
      case NodeKind::Kernel:
        throw Error(ErrorCode::Unsupported,
                    "cannot print a compiled graph as .ks (class " + std::to_string(c) + " is a " +
                        std::string(nodeKindName(n.kind)) + " node)");
    }
  }
  std::set<std::string> outNames;
  for (const ProgramOutput& o : p.outputs) {
    std::string n = sanitize(o.name);
    while (outNames.count(n)) n += "_";
    outNames.insert(n);
    if (n == name.at(o.cls.v)) os << "output " << n << "\n";
    else os << "output " << n << " = " << name.at(o.cls.v) << "\n";
  }
  return os.str();
}

std::string printKs(const Program& p) { return p.source.empty() ? printKsGraph(p) : p.source; }

}  // namespace ks
