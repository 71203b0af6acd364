// The op table of the .ks language: signatures parsed from one readable string per op, argument
// binding and conversion, and the calls into the op:: functions of the program builder.
#include "engine/program/op_registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

#include "engine/program/autograd.h"
#include "engine/program/prim_ops.h"

namespace ks {

// ------------------------------------------------------------------ OpArg
OpArg OpArg::ofTensor(Value v, SourceLoc l) {
  OpArg a;
  a.kind = Kind::Tensor;
  a.tensor = v;
  a.loc = std::move(l);
  return a;
}
OpArg OpArg::ofInt(int64_t v, SourceLoc l) {
  OpArg a;
  a.kind = Kind::Int;
  a.i = v;
  a.loc = std::move(l);
  return a;
}
OpArg OpArg::ofFloat(double v, SourceLoc l) {
  OpArg a;
  a.kind = Kind::Float;
  a.f = v;
  a.loc = std::move(l);
  return a;
}
OpArg OpArg::ofBool(bool v, SourceLoc l) {
  OpArg a;
  a.kind = Kind::Bool;
  a.i = v ? 1 : 0;
  a.loc = std::move(l);
  return a;
}
OpArg OpArg::ofString(std::string v, SourceLoc l) {
  OpArg a;
  a.kind = Kind::String;
  a.s = std::move(v);
  a.loc = std::move(l);
  return a;
}

std::string OpArg::describe() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::None: return "none";
    case Kind::Tensor: return "a tensor " + std::string(dtypeName(tensor.dtype())) + shapeStr(tensor.shape());
    case Kind::Int: return "the int " + std::to_string(i);
    case Kind::Float: os << "the number " << f; return os.str();
    case Kind::Bool: return i ? "true" : "false";
    case Kind::String: return "the string \"" + s + "\"";
    case Kind::List: return "a list of " + std::to_string(list.size()) + " items";
  }
  return "?";
}

// ------------------------------------------------------------------ OpCall
void OpCall::fail(int k, const std::string& expected) const {
  const OpArg& a = args_.at(k);
  throw Error(ErrorCode::Parse,
              "argument '" + op_.params.at(k).name + "' expects " + expected + ", found " + a.describe(),
              a.loc.known() ? a.loc : where_, op_.name);
}

Value OpCall::tensor(int k) const {
  const OpArg& a = args_.at(k);
  if (a.kind != OpArg::Kind::Tensor) fail(k, "a tensor");
  return a.tensor;
}

Operand OpCall::operand(int k) const {
  const OpArg& a = args_.at(k);
  switch (a.kind) {
    case OpArg::Kind::Tensor: return Operand(a.tensor);
    case OpArg::Kind::Int: return Operand(a.i);
    case OpArg::Kind::Float: return Operand(a.f);
    case OpArg::Kind::Bool: return Operand(a.i != 0);
    default: fail(k, "a tensor or a number");
  }
}

std::optional<Value> OpCall::optTensor(int k) const {
  if (args_.at(k).kind == OpArg::Kind::None) return std::nullopt;
  return tensor(k);
}

std::vector<Value> OpCall::tensors(int k) const {
  const OpArg& a = args_.at(k);
  if (a.kind != OpArg::Kind::List) fail(k, "a list of tensors");
  std::vector<Value> r;
  for (const OpArg& e : a.list) {
    if (e.kind != OpArg::Kind::Tensor) fail(k, "a list of tensors");
    r.push_back(e.tensor);
  }
  return r;
}

// Sizes, axes and amounts beyond 2^48 are never meaningful and could overflow shape arithmetic.
constexpr int64_t kMaxIntArg = int64_t{1} << 48;

int64_t OpCall::integer(int k) const {
  const OpArg& a = args_.at(k);
  if (a.kind != OpArg::Kind::Int) fail(k, "an int");
  if (a.i > kMaxIntArg || a.i < -kMaxIntArg) fail(k, "an int of magnitude at most 2^48");
  return a.i;
}

std::optional<int64_t> OpCall::optInteger(int k) const {
  if (args_.at(k).kind == OpArg::Kind::None) return std::nullopt;
  return integer(k);
}

double OpCall::number(int k) const {
  const OpArg& a = args_.at(k);
  if (a.kind == OpArg::Kind::Float) return a.f;
  if (a.kind == OpArg::Kind::Int) return static_cast<double>(a.i);
  fail(k, "a number");
}

std::optional<double> OpCall::optNumber(int k) const {
  if (args_.at(k).kind == OpArg::Kind::None) return std::nullopt;
  return number(k);
}

bool OpCall::boolean(int k) const {
  const OpArg& a = args_.at(k);
  if (a.kind != OpArg::Kind::Bool) fail(k, "true or false");
  return a.i != 0;
}

std::vector<int64_t> OpCall::ints(int k) const {
  const OpArg& a = args_.at(k);
  if (a.kind == OpArg::Kind::Int) return {integer(k)};
  if (a.kind != OpArg::Kind::List) fail(k, "a list of ints");
  std::vector<int64_t> r;
  for (const OpArg& e : a.list) {
    if (e.kind != OpArg::Kind::Int) fail(k, "a list of ints");
    if (e.i > kMaxIntArg || e.i < -kMaxIntArg) fail(k, "ints of magnitude at most 2^48");
    r.push_back(e.i);
  }
  return r;
}

std::vector<std::pair<int64_t, int64_t>> OpCall::pairs(int k) const {
  const OpArg& a = args_.at(k);
  if (a.kind != OpArg::Kind::List) fail(k, "a list of [before, after] pairs");
  std::vector<std::pair<int64_t, int64_t>> r;
  for (const OpArg& e : a.list) {
    if (e.kind != OpArg::Kind::List || e.list.size() != 2 || e.list[0].kind != OpArg::Kind::Int ||
        e.list[1].kind != OpArg::Kind::Int)
      fail(k, "a list of [before, after] pairs");
    for (const OpArg& v : e.list)
      if (v.i > kMaxIntArg || v.i < -kMaxIntArg) fail(k, "pads of magnitude at most 2^48");
    r.emplace_back(e.list[0].i, e.list[1].i);
  }
  return r;
}

DType OpCall::dtype(int k) const {
  const OpArg& a = args_.at(k);
  if (a.kind != OpArg::Kind::String) fail(k, "a dtype name such as \"f32\"");
  const auto t = parseDType(a.s);
  if (!t) fail(k, "a dtype name (bool, u8, i8, i16, i32, i64, u32, f16, f32, f64)");
  return *t;
}

std::string OpCall::string(int k) const {
  const OpArg& a = args_.at(k);
  if (a.kind != OpArg::Kind::String) fail(k, "a string");
  return a.s;
}

// ------------------------------------------------------------------ signature parsing
namespace {

// A tiny reader for the signature strings of the table below (trusted text, so errors are bugs).
struct SigReader {
  const std::string& s;
  std::size_t p = 0;
  void ws() {
    while (p < s.size() && s[p] == ' ') ++p;
  }
  bool eat(char c) {
    ws();
    if (p < s.size() && s[p] == c) {
      ++p;
      return true;
    }
    return false;
  }
  std::string word() {
    ws();
    const std::size_t b = p;
    while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '_')) ++p;
    return s.substr(b, p - b);
  }
  std::string until(const char* stops) {
    ws();
    const std::size_t b = p;
    int depth = 0;
    while (p < s.size()) {
      const char c = s[p];
      if (c == '[') ++depth;
      if (c == ']') --depth;
      if (depth == 0 && std::string(stops).find(c) != std::string::npos) break;
      if (depth < 0) break;
      ++p;
    }
    std::string r = s.substr(b, p - b);
    while (!r.empty() && r.back() == ' ') r.pop_back();
    return r;
  }
};

[[noreturn]] void badTable(const std::string& sig, const std::string& why) {
  throw Error(ErrorCode::Internal, "op table entry '" + sig + "': " + why);
}

ArgKind kindOf(const std::string& t, const std::string& sig) {
  static const std::pair<const char*, ArgKind> kinds[] = {
      {"tensor", ArgKind::Tensor},     {"operand", ArgKind::Operand},     {"tensor?", ArgKind::OptTensor},
      {"[tensor]", ArgKind::TensorList}, {"int", ArgKind::Int},           {"int?", ArgKind::OptInt},
      {"float", ArgKind::Float},       {"float?", ArgKind::OptFloat},     {"bool", ArgKind::Bool},
      {"[int]", ArgKind::IntList},     {"[[int, int]]", ArgKind::PairList}, {"dtype", ArgKind::DType},
      {"string", ArgKind::String}};
  for (auto& [n, k] : kinds)
    if (t == n) return k;
  badTable(sig, "unknown type '" + t + "'");
}

// Default values are literals: none, true, false, numbers, "strings", nested lists of those.
OpArg parseLiteral(const std::string& t, const std::string& sig) {
  std::string s = t;
  if (s == "none") return OpArg::none();
  if (s == "true" || s == "false") return OpArg::ofBool(s == "true");
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return OpArg::ofString(s.substr(1, s.size() - 2));
  if (!s.empty() && s.front() == '[') {
    OpArg a;
    a.kind = OpArg::Kind::List;
    SigReader r{s, 1};
    while (true) {
      r.ws();
      if (r.p < s.size() && s[r.p] == ']') break;
      a.list.push_back(parseLiteral(r.until(",]"), sig));
      if (!r.eat(',')) break;
    }
    return a;
  }
  if (s.find_first_of(".eE") != std::string::npos) return OpArg::ofFloat(std::stod(s));
  try {
    return OpArg::ofInt(std::stoll(s));
  } catch (const std::exception&) {
    badTable(sig, "bad default '" + t + "'");
  }
}

}  // namespace

// ------------------------------------------------------------------ registry
void OpRegistry::add(const std::string& signature, const std::string& category, const std::string& summary,
                     std::function<std::vector<Value>(const OpCall&)> fn, bool multi) {
  OpInfo op;
  op.signature = signature;
  op.category = category;
  op.summary = summary;
  op.multiResult = multi;
  op.fn = std::move(fn);
  SigReader r{signature};
  op.name = r.word();
  if (op.name.empty() || !r.eat('(')) badTable(signature, "expected name(");
  if (!r.eat(')')) {
    do {
      OpParam prm;
      prm.name = r.word();
      if (prm.name.empty() || !r.eat(':')) badTable(signature, "expected 'name: type'");
      prm.kind = kindOf(r.until(",=)"), signature);
      if (r.eat('=')) {
        prm.defaultText = r.until(",)");
        prm.defaultValue = parseLiteral(prm.defaultText, signature);
        prm.hasDefault = true;
      } else if (!op.params.empty() && op.params.back().hasDefault) {
        badTable(signature, "a parameter without default follows one with a default");
      }
      op.params.push_back(std::move(prm));
    } while (r.eat(','));
    if (!r.eat(')')) badTable(signature, "expected ')'");
  }
  if (find(op.name)) badTable(signature, "duplicate op name");
  ops_.push_back(std::move(op));
}

const OpInfo* OpRegistry::find(const std::string& name) const {
  for (const OpInfo& op : ops_)
    if (op.name == name) return &op;
  return nullptr;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> r;
  for (const OpInfo& op : ops_) r.push_back(op.name);
  return r;
}

int editDistance(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string OpRegistry::closest(const std::string& name) const {
  std::string best;
  int bestD = std::numeric_limits<int>::max();
  for (const OpInfo& op : ops_) {
    int d = editDistance(name, op.name);
    // A prefix/suffix relation ("softmx" / "layernorm" / "maxpool2d") counts as close too.
    std::string squashed;
    for (char c : op.name)
      if (c != '_') squashed += c;
    if (squashed == name) d = 0;
    if (d < bestD) {
      bestD = d;
      best = op.name;
    }
  }
  const int limit = std::max<int>(2, static_cast<int>(name.size()) / 3);
  return bestD <= limit ? best : std::string();
}

std::vector<Value> OpRegistry::call(const OpInfo& op, ProgramBuilder& b, std::vector<OpArg> positional,
                                    std::vector<std::pair<std::string, OpArg>> keywords,
                                    const SourceLoc& where) const {
  const std::size_t n = op.params.size();
  if (positional.size() > n)
    throw Error(ErrorCode::Parse,
                "takes at most " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + ", found " +
                    std::to_string(positional.size()) + " (signature: " + op.signature + ")",
                positional[n].loc.known() ? positional[n].loc : where, op.name);
  std::vector<OpArg> bound(n);
  std::vector<bool> given(n, false);
  for (std::size_t k = 0; k < positional.size(); ++k) {
    bound[k] = std::move(positional[k]);
    given[k] = true;
  }
  for (auto& [name, value] : keywords) {
    std::size_t k = 0;
    while (k < n && op.params[k].name != name) ++k;
    if (k == n) {
      std::string known;
      for (const OpParam& p : op.params) known += (known.empty() ? "" : ", ") + p.name;
      throw Error(ErrorCode::Parse,
                  "has no parameter '" + name + "' (parameters: " + (known.empty() ? "none" : known) + ")",
                  value.loc.known() ? value.loc : where, op.name);
    }
    if (given[k])
      throw Error(ErrorCode::Parse, "argument '" + name + "' is given twice", value.loc.known() ? value.loc : where,
                  op.name);
    bound[k] = std::move(value);
    given[k] = true;
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (given[k]) continue;
    if (!op.params[k].hasDefault)
      throw Error(ErrorCode::Parse, "missing argument '" + op.params[k].name + "' (signature: " + op.signature + ")",
                  where, op.name);
    bound[k] = op.params[k].defaultValue;
    bound[k].loc = where;
  }
  const SourceLoc saved = b.location();
  b.setLocation(where);
  try {
    OpCall c(op, b, std::move(bound), where);
    const std::size_t firstClass = b.graph().classCount();
    std::vector<Value> r = op.fn(c);
    b.noteOrigin(firstClass, op.name);
    b.setLocation(saved);
    for (const Value& v : r) {
      // Bounded inputs can still ask for absurd results (expand to 10^24 elements): refuse here,
      // before any later stage multiplies such a shape out.
      double elems = 1.0;
      for (Dim d : v.shape()) elems *= static_cast<double>(d);
      if (elems > static_cast<double>(int64_t{1} << 48))
        throw Error(ErrorCode::Shape, "result shape " + shapeStr(v.shape()) + " has more than 2^48 elements", where, op.name);
    }
    return r;
  } catch (const Error& e) {
    b.setLocation(saved);
    if (e.op().empty() && !e.where().known()) throw Error(e.code(), e.message(), where, op.name);
    throw e.at(where);
  } catch (const std::exception& e) {
    b.setLocation(saved);
    throw Error(ErrorCode::Internal, e.what(), where, op.name);
  }
}

std::string OpRegistry::markdownTable() const {
  std::ostringstream os;
  std::vector<std::string> cats;
  for (const OpInfo& op : ops_)
    if (std::find(cats.begin(), cats.end(), op.category) == cats.end()) cats.push_back(op.category);
  for (const std::string& cat : cats) {
    os << "\n#### " << cat << "\n\n| signature | what it does |\n|---|---|\n";
    for (const OpInfo& op : ops_)
      if (op.category == cat) os << "| `" << op.signature << "` | " << op.summary << " |\n";
  }
  return os.str();
}

const std::vector<std::string>& OpRegistry::keywords() {
  static const std::vector<std::string> k = {"input", "param", "const", "output", "true", "false", "none", "inf", "nan"};
  return k;
}
const std::vector<std::string>& OpRegistry::initializers() {
  static const std::vector<std::string> k = {"zeros", "ones", "full", "arange", "uniform", "normal", "data"};
  return k;
}

const OpRegistry& OpRegistry::instance() {
  static const OpRegistry r;
  return r;
}

// ------------------------------------------------------------------ the table
namespace {

using R = std::vector<Value>;
R one(Value v) { return {v}; }

// conv/pool take per-axis lists of 2; a single int means the same on both axes.
std::vector<int64_t> two(std::vector<int64_t> v) {
  if (v.size() == 1) v.push_back(v[0]);
  return v;
}

// Low-level reduce: exactly one Reduce node in the operand's own dtype.
Value reducePrim(const OpCall& c, ReduceOp r) {
  Value x = c.tensor(0);
  const std::vector<int> ax = normalizeAxes(c.ints(1), x.rank(), "reduce", false);
  if (ax.empty()) throw Error(ErrorCode::Axis, "needs at least one axis", c.where());
  return c.builder().add(op::prim::make(NodeKind::Reduce, {x.id()}, std::vector<int64_t>(ax.begin(), ax.end()),
                                        static_cast<uint8_t>(r)));
}

}  // namespace

OpRegistry::OpRegistry() {
  addDtypeOps();
  addUnaryOps();
  addBinaryOps();
  addReductionOps();
  addMovementOps();
  addNnOps();
  addLowLevelOps();
}

void OpRegistry::addDtypeOps() {
  add("cast(x: tensor, dtype: dtype)", "dtype", "converts to another dtype (float to int truncates)",
      [](const OpCall& c) { return one(op::cast(c.tensor(0), c.dtype(1))); });
  add("to_float(x: tensor)", "dtype", "ints and bool to f32; floats unchanged",
      [](const OpCall& c) { return one(op::toFloat(c.tensor(0))); });
}

void OpRegistry::addUnaryOps() {
  struct U {
    const char* sig;
    const char* what;
    Value (*f)(Value);
  };
  static const U unaries[] = {
      {"neg(x: tensor)", "-x", op::neg},
      {"abs(x: tensor)", "absolute value", op::abs},
      {"exp(x: tensor)", "e^x (ints and bool promote to f32)", op::exp},
      {"exp2(x: tensor)", "2^x", op::exp2},
      {"log(x: tensor)", "natural logarithm", op::log},
      {"log2(x: tensor)", "base-2 logarithm", op::log2},
      {"sqrt(x: tensor)", "square root", op::sqrt},
      {"rsqrt(x: tensor)", "1 / sqrt(x)", op::rsqrt},
      {"reciprocal(x: tensor)", "1 / x", op::reciprocal},
      {"sin(x: tensor)", "sine", op::sin},
      {"cos(x: tensor)", "cosine", op::cos},
      {"tan(x: tensor)", "tangent", op::tan},
      {"tanh(x: tensor)", "hyperbolic tangent", op::tanh},
      {"sigmoid(x: tensor)", "1 / (1 + e^-x)", op::sigmoid},
      {"relu(x: tensor)", "max(x, 0)", op::relu},
      {"silu(x: tensor)", "x * sigmoid(x)", op::silu},
      {"erf(x: tensor)", "error function", op::erf},
      {"floor(x: tensor)", "round down (ints unchanged)", op::floor},
      {"ceil(x: tensor)", "round up (ints unchanged)", op::ceil},
      {"round(x: tensor)", "round half to even (ints unchanged)", op::round},
      {"sign(x: tensor)", "-1, 0 or 1", op::sign},
      {"square(x: tensor)", "x * x", op::square},
      {"logical_not(x: tensor)", "not x, as bool", op::logicalNot},
      {"isnan(x: tensor)", "true where x is NaN", op::isnan},
  };
  for (const U& u : unaries) {
    auto f = u.f;
    add(u.sig, "unary", u.what, [f](const OpCall& c) { return one(f(c.tensor(0))); });
  }
  add("leaky_relu(x: tensor, alpha: float = 0.01)", "unary", "x if x > 0 else alpha * x",
      [](const OpCall& c) { return one(op::leakyRelu(c.tensor(0), c.number(1))); });
  add("elu(x: tensor, alpha: float = 1.0)", "unary", "x if x > 0 else alpha * (e^x - 1)",
      [](const OpCall& c) { return one(op::elu(c.tensor(0), c.number(1))); });
  add("gelu(x: tensor, tanh_approx: bool = false)", "unary", "x * Phi(x) (erf form, or the tanh approximation)",
      [](const OpCall& c) { return one(op::gelu(c.tensor(0), c.boolean(1))); });
  add("softplus(x: tensor, beta: float = 1.0, threshold: float = 20.0)", "unary",
      "log(1 + e^(beta x)) / beta, linear above threshold",
      [](const OpCall& c) { return one(op::softplus(c.tensor(0), c.number(1), c.number(2))); });
}

// NumPy broadcasting, PyTorch promotion; numbers act as Python scalars.
void OpRegistry::addBinaryOps() {
  struct B {
    const char* sig;
    const char* what;
    Value (*f)(Operand, Operand);
  };
  static const B binaries[] = {
      {"add(a: operand, b: operand)", "a + b", op::add},
      {"sub(a: operand, b: operand)", "a - b", op::sub},
      {"mul(a: operand, b: operand)", "a * b", op::mul},
      {"div(a: operand, b: operand)", "a / b (ints truncate toward zero)", op::div},
      {"pow(a: operand, b: operand)", "a ^ b", op::pow},
      {"mod(a: operand, b: operand)", "remainder with the divisor's sign (Python %)", op::mod},
      {"fmod(a: operand, b: operand)", "remainder with the dividend's sign (C fmod)", op::fmod},
      {"maximum(a: operand, b: operand)", "elementwise max (NaN propagates)", op::maximum},
      {"minimum(a: operand, b: operand)", "elementwise min (NaN propagates)", op::minimum},
      {"lt(a: operand, b: operand)", "a < b, as bool", op::lt},
      {"le(a: operand, b: operand)", "a <= b, as bool", op::le},
      {"gt(a: operand, b: operand)", "a > b, as bool", op::gt},
      {"ge(a: operand, b: operand)", "a >= b, as bool", op::ge},
      {"eq(a: operand, b: operand)", "a == b, as bool", op::eq},
      {"ne(a: operand, b: operand)", "a != b, as bool", op::ne},
      {"logical_and(a: operand, b: operand)", "a and b, as bool", op::logicalAnd},
      {"logical_or(a: operand, b: operand)", "a or b, as bool", op::logicalOr},
      {"logical_xor(a: operand, b: operand)", "a xor b, as bool", op::logicalXor},
  };
  for (const B& bi : binaries) {
    auto f = bi.f;
    add(bi.sig, "binary", bi.what, [f](const OpCall& c) { return one(f(c.operand(0), c.operand(1))); });
  }
  add("where(cond: operand, a: operand, b: operand)", "binary", "a where cond is true, else b (a real select)",
      [](const OpCall& c) { return one(op::where(c.operand(0), c.operand(1), c.operand(2))); });
  add("clamp(x: tensor, lo: float? = none, hi: float? = none)", "binary", "limits x to [lo, hi] (either may be none)",
      [](const OpCall& c) { return one(op::clamp(c.tensor(0), c.optNumber(1), c.optNumber(2))); });
}

void OpRegistry::addReductionOps() {
  struct Rd {
    const char* sig;
    const char* what;
    Value (*f)(Value, std::vector<int64_t>, bool);
  };
  static const Rd reductions[] = {
      {"sum(x: tensor, axes: [int] = [], keepdim: bool = false)", "sum over axes ([] = all; ints sum in i64)", op::sum},
      {"mean(x: tensor, axes: [int] = [], keepdim: bool = false)", "mean over axes ([] = all)", op::mean},
      {"max(x: tensor, axes: [int] = [], keepdim: bool = false)", "maximum over axes ([] = all)", op::max},
      {"min(x: tensor, axes: [int] = [], keepdim: bool = false)", "minimum over axes ([] = all)", op::min},
      {"prod(x: tensor, axes: [int] = [], keepdim: bool = false)", "product over axes ([] = all)", op::prod},
  };
  for (const Rd& rd : reductions) {
    auto f = rd.f;
    add(rd.sig, "reduce", rd.what, [f](const OpCall& c) { return one(f(c.tensor(0), c.ints(1), c.boolean(2))); });
  }
  add("var(x: tensor, axes: [int] = [], correction: float = 1.0, keepdim: bool = false)", "reduce",
      "variance (correction 1 = unbiased)",
      [](const OpCall& c) { return one(op::var(c.tensor(0), c.ints(1), c.number(2), c.boolean(3))); });
  add("std(x: tensor, axes: [int] = [], correction: float = 1.0, keepdim: bool = false)", "reduce",
      "standard deviation",
      [](const OpCall& c) { return one(op::std(c.tensor(0), c.ints(1), c.number(2), c.boolean(3))); });
  add("argmax(x: tensor, axis: int, keepdim: bool = false)", "reduce", "index (i64) of the first maximum",
      [](const OpCall& c) { return one(op::argmax(c.tensor(0), c.integer(1), c.boolean(2))); });
  add("argmin(x: tensor, axis: int, keepdim: bool = false)", "reduce", "index (i64) of the first minimum",
      [](const OpCall& c) { return one(op::argmin(c.tensor(0), c.integer(1), c.boolean(2))); });
  add("cumsum(x: tensor, axis: int)", "reduce", "running sum along an axis",
      [](const OpCall& c) { return one(op::cumsum(c.tensor(0), c.integer(1))); });
}

void OpRegistry::addMovementOps() {
  add("reshape(x: tensor, shape: [int])", "movement", "same elements, new shape (one -1 is inferred)",
      [](const OpCall& c) { return one(op::reshape(c.tensor(0), c.ints(1))); });
  add("permute(x: tensor, axes: [int])", "movement", "reorders axes",
      [](const OpCall& c) { return one(op::permute(c.tensor(0), c.ints(1))); });
  add("transpose(x: tensor, a: int = -2, b: int = -1)", "movement", "swaps two axes",
      [](const OpCall& c) { return one(op::transpose(c.tensor(0), c.integer(1), c.integer(2))); });
  add("expand(x: tensor, shape: [int])", "movement", "broadcasts to a shape (-1 keeps a dimension)",
      [](const OpCall& c) { return one(op::expand(c.tensor(0), c.ints(1))); });
  add("broadcast_to(x: tensor, shape: [int])", "movement", "NumPy broadcast_to",
      [](const OpCall& c) {
        const auto s = c.ints(1);
        return one(op::broadcastTo(c.tensor(0), Shape(s.begin(), s.end())));
      });
  add("pad(x: tensor, pads: [[int, int]], value: float = 0.0)", "movement",
      "pads [before, after] per axis from axis 0; negative pads crop",
      [](const OpCall& c) { return one(op::pad(c.tensor(0), c.pairs(1), c.number(2))); });
  add("slice(x: tensor, axis: int, start: int? = none, stop: int? = none, step: int = 1)", "movement",
      "Python slicing x[start:stop:step] along one axis",
      [](const OpCall& c) {
        return one(op::slice(c.tensor(0), c.integer(1), c.optInteger(2), c.optInteger(3), c.integer(4)));
      });
  add("narrow(x: tensor, axis: int, start: int, len: int)", "movement", "len elements from start along an axis",
      [](const OpCall& c) { return one(op::narrow(c.tensor(0), c.integer(1), c.integer(2), c.integer(3))); });
  add("flip(x: tensor, axes: [int])", "movement", "reverses the order along axes",
      [](const OpCall& c) { return one(op::flip(c.tensor(0), c.ints(1))); });
  add("concat(xs: [tensor], axis: int = 0)", "movement", "joins tensors along an existing axis",
      [](const OpCall& c) { return one(op::concat(c.tensors(0), c.integer(1))); });
  add("stack(xs: [tensor], axis: int = 0)", "movement", "joins tensors along a new axis",
      [](const OpCall& c) { return one(op::stack(c.tensors(0), c.integer(1))); });
  add("split(x: tensor, sizes: [int], axis: int = 0)", "movement",
      "splits into pieces of the given sizes (several results: a, b = split(...))",
      [](const OpCall& c) { return op::split(c.tensor(0), c.ints(1), c.integer(2)); }, true);
  add("chunk(x: tensor, chunks: int, axis: int = 0)", "movement", "splits into equal pieces (several results)",
      [](const OpCall& c) { return op::chunk(c.tensor(0), c.integer(1), c.integer(2)); }, true);
  add("squeeze(x: tensor, axes: [int] = [])", "movement", "removes size-1 axes ([] = all of them)",
      [](const OpCall& c) { return one(op::squeeze(c.tensor(0), c.ints(1))); });
  add("unsqueeze(x: tensor, axis: int)", "movement", "inserts a size-1 axis",
      [](const OpCall& c) { return one(op::unsqueeze(c.tensor(0), c.integer(1))); });
  add("flatten(x: tensor, start_axis: int = 0, end_axis: int = -1)", "movement", "merges axes start..end into one",
      [](const OpCall& c) { return one(op::flatten(c.tensor(0), c.integer(1), c.integer(2))); });
  add("repeat(x: tensor, repeats: [int])", "movement", "tiles x (torch.Tensor.repeat)",
      [](const OpCall& c) { return one(op::repeat(c.tensor(0), c.ints(1))); });
  add("contiguous(x: tensor)", "movement", "materializes x into its own buffer",
      [](const OpCall& c) { return one(op::contiguous(c.tensor(0))); });
}

// Neural-network composites.
void OpRegistry::addNnOps() {
  add("matmul(a: tensor, b: tensor)", "nn", "matrix product (1-D, 2-D, batched); infix a @ b",
      [](const OpCall& c) { return one(op::matmul(c.tensor(0), c.tensor(1))); });
  add("linear(x: tensor, w: tensor, b: tensor? = none)", "nn", "x @ w + b with w of shape [in, out]",
      [](const OpCall& c) { return one(op::linear(c.tensor(0), c.tensor(1), c.optTensor(2))); });
  add("conv2d(x: tensor, w: tensor, b: tensor? = none, stride: [int] = [1, 1], padding: [int] = [0, 0], "
      "dilation: [int] = [1, 1], groups: int = 1)",
      "nn", "2-D convolution, NCHW input, weight [out, in/groups, kh, kw]",
      [](const OpCall& c) {
        return one(op::conv2d(c.tensor(0), c.tensor(1), c.optTensor(2), two(c.ints(3)), two(c.ints(4)),
                              two(c.ints(5)), c.integer(6)));
      });
  add("max_pool2d(x: tensor, kernel: [int], stride: [int] = [], padding: [int] = [0, 0], dilation: [int] = [1, 1])",
      "nn", "2-D max pooling (stride [] = kernel; padding is -inf)",
      [](const OpCall& c) {
        return one(op::maxPool2d(c.tensor(0), two(c.ints(1)), two(c.ints(2)), two(c.ints(3)), two(c.ints(4))));
      });
  add("avg_pool2d(x: tensor, kernel: [int], stride: [int] = [], padding: [int] = [0, 0], count_include_pad: bool = true)",
      "nn", "2-D average pooling",
      [](const OpCall& c) {
        return one(op::avgPool2d(c.tensor(0), two(c.ints(1)), two(c.ints(2)), two(c.ints(3)), c.boolean(4)));
      });
  add("softmax(x: tensor, axis: int = -1)", "nn", "e^x / sum(e^x) along an axis (max-subtracted)",
      [](const OpCall& c) { return one(op::softmax(c.tensor(0), c.integer(1))); });
  add("log_softmax(x: tensor, axis: int = -1)", "nn", "log of softmax, computed stably",
      [](const OpCall& c) { return one(op::logSoftmax(c.tensor(0), c.integer(1))); });
  add("layer_norm(x: tensor, weight: tensor? = none, bias: tensor? = none, normalized_dims: int = 1, eps: float = 1e-5)",
      "nn", "normalizes the last normalized_dims axes, then * weight + bias",
      [](const OpCall& c) {
        return one(op::layerNorm(c.tensor(0), c.optTensor(1), c.optTensor(2), c.integer(3), c.number(4)));
      });
  add("rms_norm(x: tensor, weight: tensor? = none, normalized_dims: int = 1, eps: float = 1e-6)", "nn",
      "x / sqrt(mean(x^2) + eps) * weight",
      [](const OpCall& c) { return one(op::rmsNorm(c.tensor(0), c.optTensor(1), c.integer(2), c.number(3))); });
  add("batch_norm(x: tensor, mean: tensor, var: tensor, weight: tensor? = none, bias: tensor? = none, eps: float = 1e-5)",
      "nn", "inference batch norm over channel axis 1",
      [](const OpCall& c) {
        return one(op::batchNorm(c.tensor(0), c.tensor(1), c.tensor(2), c.optTensor(3), c.optTensor(4), c.number(5)));
      });
  add("scaled_dot_product_attention(q: tensor, k: tensor, v: tensor, causal: bool = false, scale: float? = none)",
      "nn", "softmax(q @ k^T * scale) @ v (scale none = 1/sqrt(head dim))",
      [](const OpCall& c) {
        return one(op::scaledDotProductAttention(c.tensor(0), c.tensor(1), c.tensor(2), c.boolean(3), c.optNumber(4)));
      });
  add("embedding(indices: tensor, table: tensor)", "nn", "rows of table picked by integer indices",
      [](const OpCall& c) { return one(op::embedding(c.tensor(0), c.tensor(1))); });
  add("one_hot(indices: tensor, num_classes: int)", "nn", "i64 one-hot encoding in a new last axis",
      [](const OpCall& c) { return one(op::oneHot(c.tensor(0), c.integer(1))); });
  add("cross_entropy(logits: tensor, target: tensor)", "nn", "mean cross-entropy of logits [N, C] and class indices [N]",
      [](const OpCall& c) { return one(op::crossEntropy(c.tensor(0), c.tensor(1))); });
  add("mse(a: tensor, b: tensor)", "nn", "mean squared error",
      [](const OpCall& c) { return one(op::mse(c.tensor(0), c.tensor(1))); });
  add("grad(y: tensor, wrt: [tensor])", "autograd",
      "gradients of the float scalar y with respect to each listed input or param (several results: ga, gb = grad(y, [a, b]))",
      [](const OpCall& c) { return op::grad(c.tensor(0), c.tensors(1)); }, true);
}

// Exactly one graph node each, no promotion or broadcasting. The printer uses these for programs
// that did not come from text (ONNX), so print -> parse is exact.
void OpRegistry::addLowLevelOps() {
  add("reduce_sum(x: tensor, axes: [int])", "low-level",
      "one Reduce node: sum over axes in x's own dtype, axes removed",
      [](const OpCall& c) { return one(reducePrim(c, ReduceOp::Sum)); });
  add("reduce_max(x: tensor, axes: [int])", "low-level",
      "one Reduce node: max over axes, axes removed", [](const OpCall& c) { return one(reducePrim(c, ReduceOp::Max)); });
  add("reduce_min(x: tensor, axes: [int])", "low-level",
      "one Reduce node: min over axes, axes removed", [](const OpCall& c) { return one(reducePrim(c, ReduceOp::Min)); });
  add("reduce_prod(x: tensor, axes: [int])", "low-level",
      "one Reduce node: product over axes, axes removed",
      [](const OpCall& c) { return one(reducePrim(c, ReduceOp::Prod)); });
  add("pad_axis(x: tensor, axis: int, before: int, after: int, value: float = 0.0)", "low-level",
      "one Pad node on one axis (negative amounts crop)", [](const OpCall& c) {
        Value x = c.tensor(0);
        Node n = op::prim::make(NodeKind::Pad, {x.id()}, {c.integer(1), c.integer(2), c.integer(3)});
        const OpArg& v = c.arg(4);
        n.value = (v.kind == OpArg::Kind::Int && !isFloat(x.dtype())) ? Scalar::ofInt(x.dtype(), v.i)
                                                                     : Scalar::of(x.dtype(), c.number(4));
        return one(c.builder().add(std::move(n)));
      });
  add("bitcast(x: tensor, dtype: dtype)", "low-level", "reinterprets the bits as a dtype of the same size",
      [](const OpCall& c) {
        Node n = op::prim::make(NodeKind::Bitcast, {c.tensor(0).id()});
        n.dtype = c.dtype(1);
        return one(c.builder().add(std::move(n)));
      });
  add("unary(x: tensor, op: string)", "low-level",
      "one Unary node (op: neg abs exp exp2 log log2 sqrt rsqrt reciprocal sin cos tan tanh erf floor ceil round "
      "trunc not isnan sign), no promotion",
      [](const OpCall& c) {
        const auto u = parseUnaryOp(c.string(1));
        if (!u) c.fail(1, "a unary primitive name");
        return one(c.builder().add(op::prim::make(NodeKind::Unary, {c.tensor(0).id()}, {}, static_cast<uint8_t>(*u))));
      });
  add("binary(a: tensor, b: tensor, op: string)", "low-level",
      "one Binary node (op: add sub mul div mod pow max min lt le gt ge eq ne and or xor); operands "
      "of one dtype and shape (or rank-0 constants)",
      [](const OpCall& c) {
        const auto bo = parseBinaryOp(c.string(2));
        if (!bo) c.fail(2, "a binary primitive name");
        return one(c.builder().add(
            op::prim::make(NodeKind::Binary, {c.tensor(0).id(), c.tensor(1).id()}, {}, static_cast<uint8_t>(*bo))));
      });
  add("select(cond: tensor, a: tensor, b: tensor)", "low-level", "one Where node; operands already of one shape",
      [](const OpCall& c) {
        return one(c.builder().add(op::prim::make(NodeKind::Where, {c.tensor(0).id(), c.tensor(1).id(), c.tensor(2).id()})));
      });
}

}  // namespace ks
