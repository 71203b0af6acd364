// The .ks parser: a recursive-descent reader that builds the program while it parses, so every
// name is resolved and every shape checked at the statement that wrote it (file:line:column).
#include <cmath>
#include <filesystem>
#include <limits>
#include <unordered_map>

#include "engine/core/error.h"
#include "engine/io/ks_lexer.h"
#include "engine/io/npy.h"
#include "engine/io/program_source.h"
#include "engine/program/builder.h"
#include "engine/program/op_registry.h"

namespace ks {

namespace {

constexpr int kMaxDepth = 200;                     // nesting of expressions and lists
constexpr int64_t kMaxDim = int64_t{1} << 40;      // one dimension
constexpr int64_t kMaxElements = int64_t{1} << 48;  // a whole tensor

bool isKeyword(const std::string& s) {
  for (const std::string& k : OpRegistry::keywords())
    if (s == k) return true;
  return false;
}

class KsParser {
 public:
  KsParser(const std::string& text, const std::string& file)
      : text_(text), file_(file), toks_(lexKs(text, file)), b_("program") {}

  Program run() {
    while (peek().kind != KsToken::Kind::End) statement();
    b_.setLocation(loc(peek()));
    if (b_.program().outputs.empty())
      throw Error(ErrorCode::Parse, "the program declares no output (add a line such as 'output y')", loc(peek()));
    Program p = b_.finish();
    p.source = text_;
    return p;
  }

 private:
  struct Var {
    OpArg value;
    SourceLoc defined;
  };
  struct Type {
    DType dtype = DType::F32;
    Shape shape;
    bool hasShape = false;
  };

  // ---------------------------------------------------------------- tokens
  const KsToken& peek(int ahead = 0) const {
    const std::size_t i = std::min(pos_ + static_cast<std::size_t>(ahead), toks_.size() - 1);
    return toks_[i];
  }
  const KsToken& next() {
    const KsToken& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  SourceLoc loc(const KsToken& t) const { return SourceLoc(file_, t.line, t.column); }

  [[noreturn]] void fail(const KsToken& at, const std::string& expected) const {
    std::string msg = "expected " + expected + ", found " + at.describe();
    if (!open_.empty() && at.line > open_.back().line)
      msg += " (the '" + open_.back().text + "' at " + std::to_string(open_.back().line) + ":" +
             std::to_string(open_.back().column) + " is not closed)";
    throw Error(ErrorCode::Parse, msg, loc(at));
  }
  bool isPunct(const char* p) const { return peek().is(p); }
  bool eat(const char* p) {
    if (!isPunct(p)) return false;
    next();
    return true;
  }
  void expect(const char* p, const std::string& what) {
    if (!eat(p)) fail(peek(), what);
  }
  void open(const KsToken& t) { open_.push_back(t); }
  void close(const char* p, const std::string& what) {
    expect(p, what);
    if (!open_.empty()) open_.pop_back();
  }
  void endOfStatement() {
    if (peek().kind == KsToken::Kind::Newline) {
      next();
      return;
    }
    if (peek().kind == KsToken::Kind::End) return;
    fail(peek(), "end of line");
  }

  // ---------------------------------------------------------------- names
  std::string newName(const char* what) {
    const KsToken& t = peek();
    if (t.kind != KsToken::Kind::Ident) fail(t, std::string("a name for the ") + what);
    if (isKeyword(t.text)) fail(t, std::string("a name for the ") + what + " ('" + t.text + "' is a keyword)");
    auto it = vars_.find(t.text);
    if (it != vars_.end())
      throw Error(ErrorCode::Parse,
                  "duplicate name '" + t.text + "' (first defined at " + std::to_string(it->second.defined.line) +
                      ":" + std::to_string(it->second.defined.column) + "); every name is assigned once",
                  loc(t));
    next();
    return t.text;
  }
  void define(const std::string& name, OpArg v, SourceLoc where) { vars_[name] = Var{std::move(v), std::move(where)}; }

  // ---------------------------------------------------------------- statements
  void statement() {
    const KsToken& t = peek();
    if (t.kind == KsToken::Kind::Newline) {
      next();
      return;
    }
    b_.setLocation(loc(t));
    if (t.kind == KsToken::Kind::Ident) {
      if (t.text == "input") return inputStatement();
      if (t.text == "param") return paramStatement();
      if (t.text == "const") return constStatement();
      if (t.text == "output") return outputStatement();
      if (isUpdateArrow()) return updateStatement();
      return assignment();
    }
    fail(t, "a statement (input, param, const, output or 'name = expression')");
  }

  Type type() {
    const KsToken& t = peek();
    if (t.kind != KsToken::Kind::Ident) fail(t, "a dtype (bool, u8, i8, i16, i32, i64, u32, f16, f32, f64)");
    const auto d = parseDType(t.text);
    if (!d)
      throw Error(ErrorCode::Parse,
                  "unknown dtype '" + t.text + "' (expected bool, u8, i8, i16, i32, i64, u32, f16, f32 or f64)", loc(t));
    next();
    Type ty;
    ty.dtype = *d;
    if (!isPunct("[")) return ty;
    ty.hasShape = true;
    open(next());
    int64_t total = 1;
    if (!isPunct("]")) {
      while (true) {
        const KsToken& dt = peek();
        if (dt.kind != KsToken::Kind::Int) fail(dt, "a dimension (a non-negative integer)");
        if (dt.i > kMaxDim) throw Error(ErrorCode::Parse, "dimension " + dt.text + " is too large", loc(dt));
        next();
        ty.shape.push_back(dt.i);
        if (dt.i != 0 && total > kMaxElements / dt.i)
          throw Error(ErrorCode::Parse, "shape has too many elements (more than 2^48)", loc(dt));
        total *= dt.i;
        if (isPunct("]")) break;
        if (!isPunct(",")) fail(peek(), "',' or ']' after a dimension of the shape");
        next();
      }
    }
    close("]", "']' after the shape");
    return ty;
  }

  void inputStatement() {
    next();
    const KsToken& nameTok = peek();
    const std::string name = newName("input");
    expect(":", "':' and a type after the input name (input x: f32[2, 3])");
    const Type ty = type();
    b_.setLocation(loc(nameTok));
    define(name, OpArg::ofTensor(b_.input(name, ty.dtype, ty.shape), loc(nameTok)), loc(nameTok));
    endOfStatement();
  }

  void paramStatement() {
    next();
    const KsToken& nameTok = peek();
    const std::string name = newName("parameter");
    expect(":", "':' and a type after the parameter name (param w: f32[4, 4] = normal(std=0.1, seed=1))");
    const Type ty = type();
    expect("=", "'=' and an initializer after the parameter type (zeros, ones, full, arange, uniform, normal, data or a list)");
    const ParamInit init = initializer(ty);
    b_.setLocation(loc(nameTok));
    define(name, OpArg::ofTensor(b_.param(name, ty.dtype, ty.shape, init), loc(nameTok)), loc(nameTok));
    endOfStatement();
  }

  ParamInit initializer(const Type& ty) {
    ParamInit init;
    const KsToken& t = peek();
    if (isPunct("[")) {
      init.kind = ParamInit::Kind::Data;
      init.data = std::make_shared<HostTensor>(literalTensor(ty));
      return init;
    }
    if (t.kind != KsToken::Kind::Ident) fail(t, "an initializer (zeros, ones, full, arange, uniform, normal, data or a list)");
    struct Spec {
      const char* name;
      ParamInit::Kind kind;
      std::vector<const char*> params;
      std::vector<double> defaults;  // for the trailing params; NaN = required
    };
    const double req = std::numeric_limits<double>::quiet_NaN();
    static const Spec specs[] = {
        {"zeros", ParamInit::Kind::Zeros, {}, {}},
        {"ones", ParamInit::Kind::Ones, {}, {}},
        {"full", ParamInit::Kind::Full, {"value"}, {req}},
        {"arange", ParamInit::Kind::Arange, {"start", "step"}, {0.0, 1.0}},
        {"uniform", ParamInit::Kind::Uniform, {"lo", "hi", "seed"}, {0.0, 1.0, 0.0}},
        {"normal", ParamInit::Kind::Normal, {"mean", "std", "seed"}, {0.0, 1.0, 0.0}},
        {"data", ParamInit::Kind::Data, {"file"}, {req}},
    };
    const Spec* spec = nullptr;
    for (const Spec& s : specs)
      if (t.text == s.name) spec = &s;
    if (!spec) {
      std::string msg = "unknown initializer '" + t.text + "' (expected zeros, ones, full, arange, uniform, normal, data or a list)";
      int best = 3;
      std::string sugg;
      for (const Spec& s : specs)
        if (editDistance(t.text, s.name) < best) {
          best = editDistance(t.text, s.name);
          sugg = s.name;
        }
      if (!sugg.empty()) msg += "; did you mean '" + sugg + "'?";
      throw Error(ErrorCode::Parse, msg, loc(t));
    }
    const SourceLoc initLoc = loc(t);
    next();
    init.kind = spec->kind;
    std::vector<OpArg> values(spec->params.size());
    std::vector<bool> given(spec->params.size(), false);
    if (isPunct("(")) {
      open(next());
      std::size_t positional = 0;
      bool sawKeyword = false;
      if (!isPunct(")")) {
        while (true) {
          std::size_t slot = positional;
          const KsToken& at = peek();
          if (at.kind == KsToken::Kind::Ident && peek(1).is("=")) {
            slot = spec->params.size();
            for (std::size_t k = 0; k < spec->params.size(); ++k)
              if (at.text == spec->params[k]) slot = k;
            if (slot == spec->params.size()) {
              std::string known;
              for (const char* pn : spec->params) known += (known.empty() ? "" : ", ") + std::string(pn);
              throw Error(ErrorCode::Parse,
                          "initializer '" + std::string(spec->name) + "' has no parameter '" + at.text +
                              "' (parameters: " + (known.empty() ? "none" : known) + ")",
                          loc(at));
            }
            next();
            next();
            sawKeyword = true;
          } else {
            if (sawKeyword) fail(at, "a keyword argument (name=value) after a keyword argument");
            if (positional >= spec->params.size())
              throw Error(ErrorCode::Parse,
                          "initializer '" + std::string(spec->name) + "' takes " + std::to_string(spec->params.size()) +
                              " argument(s)",
                          loc(at));
            ++positional;
          }
          if (given[slot]) throw Error(ErrorCode::Parse, "argument '" + std::string(spec->params[slot]) + "' is given twice", loc(at));
          values[slot] = expression();
          given[slot] = true;
          if (!isPunct(",")) break;
          next();
        }
      }
      close(")", "')' after the initializer's arguments");
    }
    auto num = [&](std::size_t k) -> double {
      if (!given[k]) {
        if (std::isnan(spec->defaults[k]))
          throw Error(ErrorCode::Parse, "initializer '" + std::string(spec->name) + "' needs '" + spec->params[k] + "'", initLoc);
        return spec->defaults[k];
      }
      const OpArg& a = values[k];
      if (a.kind == OpArg::Kind::Int) return static_cast<double>(a.i);
      if (a.kind == OpArg::Kind::Float) return a.f;
      throw Error(ErrorCode::Parse, "argument '" + std::string(spec->params[k]) + "' expects a number, found " + a.describe(),
                  a.loc.known() ? a.loc : initLoc);
    };
    switch (spec->kind) {
      case ParamInit::Kind::Zeros:
      case ParamInit::Kind::Ones: break;
      case ParamInit::Kind::Full: init.a = num(0); break;
      case ParamInit::Kind::Arange:
        init.a = num(0);
        init.b = num(1);
        break;
      case ParamInit::Kind::Uniform:
      case ParamInit::Kind::Normal: {
        init.a = num(0);
        init.b = num(1);
        if (given[2]) {
          const OpArg& s = values[2];
          if (s.kind != OpArg::Kind::Int || s.i < 0)
            throw Error(ErrorCode::Parse, "argument 'seed' expects a non-negative integer, found " + s.describe(),
                        s.loc.known() ? s.loc : initLoc);
          init.seed = static_cast<uint64_t>(s.i);
        }
        if (spec->kind == ParamInit::Kind::Normal && !(init.b >= 0.0))
          throw Error(ErrorCode::Parse, "normal: std must be >= 0", initLoc);
        break;
      }
      case ParamInit::Kind::Data: {
        if (!given[0] || values[0].kind != OpArg::Kind::String)
          throw Error(ErrorCode::Parse, "data needs a file name in quotes: data(\"weights.npy\")", initLoc);
        std::filesystem::path path(values[0].s);
        if (path.is_relative()) path = std::filesystem::path(file_).parent_path() / path;
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec))  // also keeps /dev/zero and fifos from hanging
          throw Error(ErrorCode::Io, "data file " + path.string() + " does not exist or is not a regular file", initLoc);
        try {
          HostTensor t = readNpy(path.string());
          if (t.shape() != ty.shape)
            throw Error(ErrorCode::Shape,
                        "data file " + path.string() + " has shape " + shapeStr(t.shape()) + ", the parameter is " +
                            shapeStr(ty.shape),
                        initLoc);
          init.data = std::make_shared<HostTensor>(std::move(t));
        } catch (const Error& e) {
          if (e.where().line > 0) throw;
          throw Error(e.code(), std::string("data(\"") + values[0].s + "\"): " + e.what(), initLoc);
        }
        break;
      }
    }
    return init;
  }

  // A list literal of exactly the type's shape (nested, or flat with every element) as a tensor.
  // Read straight from the tokens (no expression values): printed ONNX weights can have millions
  // of elements. Elements are numbers with an optional sign, inf, nan, true or false.
  struct Elem {
    int64_t i = 0;
    double f = 0.0;
    bool isFloat = false;
    bool isBool = false;
    std::size_t tok = 0;
  };
  struct LiteralShape {
    Shape dims;  // -1 until the first list of a level closes
    int rank = -1;  // fixed by the first number
  };

  HostTensor literalTensor(const Type& ty) {
    const KsToken& start = peek();
    if (!isPunct("[")) fail(start, "a list literal such as [1, 2, 3]");
    std::vector<Elem> flat;
    LiteralShape ls;
    literalList(0, ls, flat);
    const Shape got = ls.dims;
    const int64_t n = numel(ty.shape);
    if (got != ty.shape && !(static_cast<int64_t>(flat.size()) == n && got.size() == 1))
      throw Error(ErrorCode::Shape,
                  "the literal has shape " + shapeStr(got) + " but the declared shape is " + shapeStr(ty.shape), loc(start));
    HostTensor t(ty.dtype, ty.shape);
    for (int64_t i = 0; i < n; ++i) setElement(t, i, flat[i]);
    return t;
  }

  void literalList(std::size_t level, LiteralShape& ls, std::vector<Elem>& out) {
    const KsToken& openTok = peek();
    DepthGuard g(*this, openTok);
    if (ls.rank >= 0 && static_cast<int>(level) >= ls.rank)
      throw Error(ErrorCode::Shape, "ragged list literal (a list where a number was expected)", loc(openTok));
    if (level == ls.dims.size()) ls.dims.push_back(-1);
    open(next());
    int64_t count = 0;
    while (!isPunct("]")) {
      if (isPunct("[")) {
        literalList(level + 1, ls, out);
      } else {
        const std::size_t at = pos_;
        if (ls.rank < 0) ls.rank = static_cast<int>(level) + 1;
        if (ls.rank != static_cast<int>(level) + 1)
          throw Error(ErrorCode::Shape, "ragged list literal (a number where a list was expected)", loc(peek()));
        out.push_back(literalNumber());
        out.back().tok = at;
      }
      ++count;
      if (isPunct("]")) break;
      if (!isPunct(",")) fail(peek(), "',' or ']' in the list");
      next();
    }
    close("]", "']' to close the list");
    if (ls.dims[level] < 0) ls.dims[level] = count;
    else if (ls.dims[level] != count)
      throw Error(ErrorCode::Shape, "ragged list literal (rows of different lengths)", loc(openTok));
  }

  Elem literalNumber() {
    bool negative = false;
    while (isPunct("-") || isPunct("+")) negative ^= next().is("-");
    const KsToken& t = peek();
    Elem e;
    if (t.kind == KsToken::Kind::Int) {
      e.i = negative ? -t.i : t.i;
    } else if (t.kind == KsToken::Kind::Float) {
      e.isFloat = true;
      e.f = negative ? -t.f : t.f;
    } else if (t.kind == KsToken::Kind::Ident && (t.text == "inf" || t.text == "nan")) {
      e.isFloat = true;
      e.f = t.text == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      if (negative) e.f = -e.f;
    } else if (t.kind == KsToken::Kind::Ident && (t.text == "true" || t.text == "false") && !negative) {
      e.isBool = true;
      e.i = t.text == "true";
    } else {
      fail(t, "a number in the literal");
    }
    next();
    return e;
  }

  void setElement(HostTensor& t, int64_t i, const Elem& v) {
    const KsToken& tok = toks_[v.tok];
    const SourceLoc where = loc(tok);
    const DType d = t.dtype();
    if (!v.isFloat) {
      if (d == DType::Bool && v.i != 0 && v.i != 1)
        throw Error(ErrorCode::Parse, "a bool constant takes true, false, 0 or 1, found " + tok.describe(), where);
      if (isFloat(d)) t.setDouble(i, static_cast<double>(v.i));
      else t.setInt(i, v.i);
      return;
    }
    if (!isFloat(d))
      throw Error(ErrorCode::Parse, "a " + std::string(dtypeName(d)) + " constant takes integers, found " + tok.describe(), where);
    t.setDouble(i, v.f);
  }

  void constStatement() {
    next();
    const KsToken& nameTok = peek();
    const std::string name = newName("constant");
    expect(":", "':' and a type after the constant name (const c: f32[3] = [1, 2, 3])");
    const Type ty = type();
    expect("=", "'=' and a value after the constant type");
    b_.setLocation(loc(nameTok));
    Value v;
    if (ty.shape.empty()) {
      const KsToken& at = peek();
      const OpArg s = expression();
      Scalar sc;
      if (s.kind == OpArg::Kind::Int || s.kind == OpArg::Kind::Bool) {
        if (ty.dtype == DType::Bool && s.i != 0 && s.i != 1)
          throw Error(ErrorCode::Parse, "a bool constant takes true, false, 0 or 1, found " + s.describe(), loc(at));
        sc = isFloat(ty.dtype) ? Scalar::of(ty.dtype, static_cast<double>(s.i)) : Scalar::ofInt(ty.dtype, s.i);
      } else if (s.kind == OpArg::Kind::Float) {
        if (!isFloat(ty.dtype))
          throw Error(ErrorCode::Parse, "a " + std::string(dtypeName(ty.dtype)) + " constant takes an integer, found " + s.describe(),
                      loc(at));
        sc = Scalar::of(ty.dtype, s.f);
      } else {
        fail(at, "a number for a scalar constant");
      }
      v = b_.wrap(b_.graph().addConst(sc));
    } else {
      v = b_.constant(literalTensor(ty), name);
    }
    define(name, OpArg::ofTensor(v, loc(nameTok)), loc(nameTok));
    endOfStatement();
  }

  void outputStatement() {
    next();
    while (true) {
      const KsToken& t = peek();
      if (t.kind != KsToken::Kind::Ident || isKeyword(t.text)) fail(t, "an output name");
      next();
      OpArg v;
      if (eat("=")) {
        v = expression();
      } else {
        auto it = vars_.find(t.text);
        if (it == vars_.end()) undefined(t);
        v = it->second.value;
      }
      if (v.kind != OpArg::Kind::Tensor)
        throw Error(ErrorCode::Parse, "output '" + t.text + "' must be a tensor, found " + v.describe(), loc(t));
      b_.setLocation(loc(t));
      b_.output(t.text, v.tensor);
      if (!eat(",")) break;
    }
    endOfStatement();
  }

  void assignment() {
    std::vector<std::pair<std::string, SourceLoc>> targets;
    while (true) {
      const KsToken& t = peek();
      const SourceLoc l = loc(t);
      if (t.kind == KsToken::Kind::Ident && !isKeyword(t.text) && !peek(1).is("=") && !peek(1).is(",")) {
        if (peek(1).is("(")) fail(t, "a statement; an expression must be assigned to a name ('y = " + t.text + "(...)')");
        fail(peek(1), "'=' after the name '" + t.text + "'");
      }
      targets.emplace_back(newName("result"), l);
      for (std::size_t k = 0; k + 1 < targets.size(); ++k)
        if (targets[k].first == targets.back().first)
          throw Error(ErrorCode::Parse, "duplicate name '" + targets.back().first + "' on the left side", l);
      if (eat("=")) break;
      expect(",", "',' or '=' after the name");
    }
    const KsToken& rhs = peek();
    OpArg v = expression();
    if (targets.size() == 1 && v.kind == OpArg::Kind::List && lastWasMulti_ && v.list.size() == 1) {
      define(targets[0].first, v.list[0], targets[0].second);  // g = grad(loss, [w])
    } else if (targets.size() == 1) {
      if (v.kind == OpArg::Kind::List && lastWasMulti_)
        throw Error(ErrorCode::Parse,
                    "the right side gives " + std::to_string(v.list.size()) + " results; name each one (a, b = ...)", loc(rhs));
      define(targets[0].first, std::move(v), targets[0].second);
    } else {
      if (v.kind != OpArg::Kind::List || v.list.size() != targets.size())
        throw Error(ErrorCode::Parse,
                    std::to_string(targets.size()) + " names on the left, but the right side gives " +
                        (v.kind == OpArg::Kind::List ? std::to_string(v.list.size()) + " values" : v.describe()),
                    loc(rhs));
      for (std::size_t k = 0; k < targets.size(); ++k) define(targets[k].first, v.list[k], targets[k].second);
    }
    endOfStatement();
  }

  // `name <-` with '<' and '-' side by side: an update statement, not a comparison.
  bool isUpdateArrow() const {
    const KsToken& lt = peek(1);
    const KsToken& minus = peek(2);
    return lt.is("<") && minus.is("-") && minus.line == lt.line && minus.column == lt.column + 1;
  }

  // p <- expr: the value of param p for the next step. Every read of p in this program sees the
  // old value, so the update is an extra result of the program, not a rebinding of the name.
  void updateStatement() {
    const KsToken& nameTok = next();
    const SourceLoc where = loc(nameTok);
    next();
    next();
    auto it = vars_.find(nameTok.text);
    if (it == vars_.end()) undefined(nameTok);
    const Program& prog = b_.program();
    std::size_t k = 0;
    while (k < prog.params.size() &&
           !(prog.params[k].name == nameTok.text && it->second.value.kind == OpArg::Kind::Tensor &&
             it->second.value.tensor.id() == prog.params[k].cls))
      ++k;
    if (k == prog.params.size())
      throw Error(ErrorCode::Parse, "'<-' updates a param; '" + nameTok.text + "' is not a param", where);
    for (const ProgramUpdate& u : prog.updates)
      if (u.param == k)
        throw Error(ErrorCode::Parse,
                    "param '" + nameTok.text + "' is updated twice (first at " + std::to_string(u.where.line) + ":" +
                        std::to_string(u.where.column) + "); each param takes one '<-' per program",
                    where);
    const KsToken& rhs = peek();
    const OpArg v = expression();
    b_.setLocation(loc(rhs));
    Value nv;
    if (v.kind == OpArg::Kind::Tensor) {
      nv = v.tensor;
    } else if (v.isNumber()) {
      nv = b_.scalar(v.kind == OpArg::Kind::Float ? v.f : static_cast<double>(v.i), b_.graph().dtype(prog.params[k].cls));
    } else {
      throw Error(ErrorCode::Parse,
                  "the new value of '" + nameTok.text + "' must be a tensor or a number, found " + v.describe(), loc(rhs));
    }
    b_.update(k, nv, where);
    endOfStatement();
  }

  [[noreturn]] void undefined(const KsToken& t) const {
    std::string msg = "undefined name '" + t.text + "'";
    std::string best;
    int bestD = 3;
    for (auto& [n, v] : vars_) {
      const int d = editDistance(t.text, n);
      if (d < bestD || (d == bestD && !best.empty() && n < best)) {
        bestD = d;
        best = n;
      }
    }
    if (!best.empty()) msg += "; did you mean '" + best + "'?";
    else if (OpRegistry::instance().find(t.text)) msg += " ('" + t.text + "' is an op: call it as " + t.text + "(...))";
    throw Error(ErrorCode::Parse, msg, loc(t));
  }

  // ---------------------------------------------------------------- expressions
  struct DepthGuard {
    KsParser& p;
    explicit DepthGuard(KsParser& pp, const KsToken& at) : p(pp) {
      if (++p.depth_ > kMaxDepth) throw Error(ErrorCode::Parse, "expression is nested too deeply", p.loc(at));
    }
    ~DepthGuard() { --p.depth_; }
  };

  OpArg expression() {
    lastWasMulti_ = false;
    return comparison();
  }

  OpArg comparison() {
    OpArg lhs = additive();
    while (true) {
      const KsToken& t = peek();
      static const char* ops[] = {"<", "<=", ">", ">=", "==", "!="};
      const char* op = nullptr;
      for (const char* o : ops)
        if (t.is(o)) op = o;
      if (!op) return lhs;
      next();
      OpArg rhs = additive();
      lhs = infix(t, lhs, rhs);
    }
  }

  OpArg additive() {
    OpArg lhs = term();
    while (isPunct("+") || isPunct("-")) {
      const KsToken& t = next();
      OpArg rhs = term();
      lhs = infix(t, lhs, rhs);
    }
    return lhs;
  }

  OpArg term() {
    OpArg lhs = unary();
    while (isPunct("*") || isPunct("/") || isPunct("@")) {
      const KsToken& t = next();
      OpArg rhs = unary();
      lhs = infix(t, lhs, rhs);
    }
    return lhs;
  }

  OpArg unary() {
    const KsToken& t = peek();
    DepthGuard g(*this, t);
    if (t.is("-") || t.is("+")) {
      next();
      OpArg x = unary();
      if (t.is("+")) {
        if (!x.isNumber() && x.kind != OpArg::Kind::Tensor) fail(t, "a number or tensor after unary '+'");
        return x;
      }
      switch (x.kind) {
        case OpArg::Kind::Int:
        case OpArg::Kind::Bool:
          if (x.i == std::numeric_limits<int64_t>::min()) throw Error(ErrorCode::Parse, "integer overflow", loc(t));
          return OpArg::ofInt(-x.i, loc(t));
        case OpArg::Kind::Float: return OpArg::ofFloat(-x.f, loc(t));
        case OpArg::Kind::Tensor: return OpArg::ofTensor(guard(t, [&] { return op::neg(x.tensor); }), loc(t));
        default: throw Error(ErrorCode::Parse, "unary '-' needs a number or a tensor, found " + x.describe(), loc(t));
      }
    }
    return primary();
  }

  template <class F>
  Value guard(const KsToken& at, F&& f) {
    const SourceLoc l = loc(at);
    b_.setLocation(l);
    try {
      return f();
    } catch (const Error& e) {
      throw e.at(l);
    } catch (const std::exception& e) {
      throw Error(ErrorCode::Internal, e.what(), l);
    }
  }

  OpArg infix(const KsToken& opTok, const OpArg& a, const OpArg& b) {
    const std::string& o = opTok.text;
    const SourceLoc l = loc(opTok);
    for (const OpArg* x : {&a, &b})
      if (!x->isNumber() && x->kind != OpArg::Kind::Tensor)
        throw Error(ErrorCode::Parse, "operator '" + o + "' needs tensors or numbers, found " + x->describe(), x->loc.known() ? x->loc : l);
    if (a.isNumber() && b.isNumber()) return fold(opTok, a, b);
    auto operand = [](const OpArg& x) -> Operand {
      if (x.kind == OpArg::Kind::Tensor) return Operand(x.tensor);
      if (x.kind == OpArg::Kind::Float) return Operand(x.f);
      if (x.kind == OpArg::Kind::Bool) return Operand(x.i != 0);
      return Operand(x.i);
    };
    const Operand x = operand(a), y = operand(b);
    Value r = guard(opTok, [&]() -> Value {
      if (o == "+") return op::add(x, y);
      if (o == "-") return op::sub(x, y);
      if (o == "*") return op::mul(x, y);
      if (o == "/") return op::div(x, y);
      if (o == "<") return op::lt(x, y);
      if (o == "<=") return op::le(x, y);
      if (o == ">") return op::gt(x, y);
      if (o == ">=") return op::ge(x, y);
      if (o == "==") return op::eq(x, y);
      if (o == "!=") return op::ne(x, y);
      // '@'
      if (a.kind != OpArg::Kind::Tensor || b.kind != OpArg::Kind::Tensor)
        throw Error(ErrorCode::Parse, "'@' (matmul) needs two tensors", l);
      return op::matmul(a.tensor, b.tensor);
    });
    return OpArg::ofTensor(r, l);
  }

  // Arithmetic on two numbers, as Python does it (ints stay ints except for '/').
  OpArg fold(const KsToken& opTok, const OpArg& a, const OpArg& b) {
    const std::string& o = opTok.text;
    const SourceLoc l = loc(opTok);
    const bool ints = a.kind != OpArg::Kind::Float && b.kind != OpArg::Kind::Float;
    const double x = a.kind == OpArg::Kind::Float ? a.f : static_cast<double>(a.i);
    const double y = b.kind == OpArg::Kind::Float ? b.f : static_cast<double>(b.i);
    if (o == "<") return OpArg::ofBool(ints ? a.i < b.i : x < y, l);
    if (o == "<=") return OpArg::ofBool(ints ? a.i <= b.i : x <= y, l);
    if (o == ">") return OpArg::ofBool(ints ? a.i > b.i : x > y, l);
    if (o == ">=") return OpArg::ofBool(ints ? a.i >= b.i : x >= y, l);
    if (o == "==") return OpArg::ofBool(ints ? a.i == b.i : x == y, l);
    if (o == "!=") return OpArg::ofBool(ints ? a.i != b.i : x != y, l);
    if (o == "@") throw Error(ErrorCode::Parse, "'@' (matmul) needs two tensors, found numbers", l);
    if (o == "/") return OpArg::ofFloat(x / y, l);
    if (ints) {
      int64_t r = 0;
      bool overflow = false;
      if (o == "+") overflow = __builtin_add_overflow(a.i, b.i, &r);
      if (o == "-") overflow = __builtin_sub_overflow(a.i, b.i, &r);
      if (o == "*") overflow = __builtin_mul_overflow(a.i, b.i, &r);
      if (overflow) throw Error(ErrorCode::Parse, "integer overflow", l);
      return OpArg::ofInt(r, l);
    }
    if (o == "+") return OpArg::ofFloat(x + y, l);
    if (o == "-") return OpArg::ofFloat(x - y, l);
    return OpArg::ofFloat(x * y, l);
  }

  OpArg primary() {
    const KsToken& t = peek();
    const SourceLoc l = loc(t);
    switch (t.kind) {
      case KsToken::Kind::Int: next(); return OpArg::ofInt(t.i, l);
      case KsToken::Kind::Float: next(); return OpArg::ofFloat(t.f, l);
      case KsToken::Kind::String: next(); return OpArg::ofString(t.text, l);
      case KsToken::Kind::Ident: break;
      case KsToken::Kind::Punct:
        if (t.is("(")) {
          open(next());
          OpArg v = comparison();
          close(")", "')' to close the parenthesis");
          v.loc = l;
          return v;
        }
        if (t.is("[")) return list();
        fail(t, "an expression (a name, a number, a call, '(' or '[')");
      default: fail(t, "an expression");
    }
    next();
    if (t.text == "true" || t.text == "false") return OpArg::ofBool(t.text == "true", l);
    if (t.text == "none") {
      OpArg n = OpArg::none();
      n.loc = l;
      return n;
    }
    if (t.text == "inf") return OpArg::ofFloat(std::numeric_limits<double>::infinity(), l);
    if (t.text == "nan") return OpArg::ofFloat(std::numeric_limits<double>::quiet_NaN(), l);
    if (isPunct("(")) return call(t);
    auto it = vars_.find(t.text);
    if (it != vars_.end()) {
      OpArg v = it->second.value;
      v.loc = l;
      return v;
    }
    if (parseDType(t.text)) return OpArg::ofString(t.text, l);  // cast(x, f16)
    undefined(t);
  }

  OpArg list() {
    const KsToken& start = peek();
    open(next());
    OpArg r;
    r.kind = OpArg::Kind::List;
    r.loc = loc(start);
    if (!isPunct("]")) {
      while (true) {
        DepthGuard g(*this, peek());
        r.list.push_back(comparison());
        if (isPunct("]")) break;
        if (!isPunct(",")) fail(peek(), "',' or ']' in the list");
        next();
        if (isPunct("]")) break;  // a trailing comma is fine
      }
    }
    close("]", "']' to close the list");
    return r;
  }

  OpArg call(const KsToken& nameTok) {
    const OpRegistry& reg = OpRegistry::instance();
    const OpInfo* op = reg.find(nameTok.text);
    if (!op) {
      std::string msg = "unknown op '" + nameTok.text + "'";
      const std::string s = reg.closest(nameTok.text);
      if (!s.empty()) msg += "; did you mean '" + s + "'?";
      else msg += " (docs/program-format.md lists every op)";
      if (vars_.count(nameTok.text)) msg += " ('" + nameTok.text + "' is a value, not an op)";
      throw Error(ErrorCode::Parse, msg, loc(nameTok));
    }
    open(next());
    std::vector<OpArg> positional;
    std::vector<std::pair<std::string, OpArg>> keywords;
    if (!isPunct(")")) {
      while (true) {
        const KsToken& at = peek();
        if (at.kind == KsToken::Kind::Ident && peek(1).is("=")) {
          next();
          next();
          keywords.emplace_back(at.text, expression());
          keywords.back().second.loc = loc(at);
        } else {
          if (!keywords.empty()) fail(at, "a keyword argument (name=value): positional arguments come first");
          positional.push_back(expression());
        }
        if (isPunct(")")) break;
        if (!isPunct(",")) fail(peek(), "',' or ')' in the arguments of '" + nameTok.text + "'");
        next();
      }
    }
    close(")", "')' after the arguments of '" + nameTok.text + "'");
    std::vector<Value> r = reg.call(*op, b_, std::move(positional), std::move(keywords), loc(nameTok));
    if (!op->multiResult) {
      lastWasMulti_ = false;
      return OpArg::ofTensor(r.at(0), loc(nameTok));
    }
    OpArg l;
    l.kind = OpArg::Kind::List;
    l.loc = loc(nameTok);
    for (Value v : r) l.list.push_back(OpArg::ofTensor(v, loc(nameTok)));
    lastWasMulti_ = true;
    return l;
  }

  const std::string& text_;
  std::string file_;
  std::vector<KsToken> toks_;
  std::size_t pos_ = 0;
  ProgramBuilder b_;
  std::unordered_map<std::string, Var> vars_;
  std::vector<KsToken> open_;  // brackets opened and not yet closed (for "is not closed" hints)
  int depth_ = 0;
  bool lastWasMulti_ = false;
};

}  // namespace

Program parseKs(const std::string& text, const std::string& file) {
  try {
    KsParser p(text, file);
    return p.run();
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::Allocation, "out of memory while parsing", SourceLoc(file));
  } catch (const std::exception& e) {
    throw Error(ErrorCode::Internal, e.what(), SourceLoc(file));
  }
}

}  // namespace ks
