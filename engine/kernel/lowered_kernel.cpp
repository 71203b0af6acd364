// Lowered kernel IR: canonical index expressions, printing and verification.
#include "engine/kernel/lowered_kernel.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "engine/core/error.h"

namespace ks {

namespace {
// An index expression's key is its whole text (shared subexpressions written out), so a chain of
// divisions and remainders that does not simplify grows geometrically: one convolution candidate
// of ResNet-18 reached a 547 MB key and took the process past 23 GB. A schedule whose index text
// passes this bound is refused like any schedule lowering cannot do (the tuner records it as
// skipped; the cost model gives it no estimate).
constexpr std::size_t kMaxIndexKeyChars = std::size_t{1} << 20;

const std::string& boundedKey(const std::string& key) {
  if (key.size() > kMaxIndexKeyChars)
    throw Error(ErrorCode::Unsupported, "an index expression of this schedule is " + std::to_string(key.size()) +
                                            " characters long (the limit is " + std::to_string(kMaxIndexKeyChars) +
                                            "): its divisions and remainders do not simplify");
  return key;
}

struct LinForm {
  std::vector<std::pair<int64_t, Idx>> terms;
  int64_t c = 0;
};

LinForm asLin(const Idx& a) {
  LinForm f;
  if (a->kind == IdxKind::Lin) {
    f.terms = a->terms;
    f.c = a->c;
  } else {
    f.terms.push_back({1, a});
  }
  return f;
}

int64_t floorDiv(int64_t a, int64_t k) {
  int64_t q = a / k;
  if ((a % k != 0) && ((a < 0) != (k < 0))) --q;
  return q;
}

std::vector<std::pair<int64_t, Idx>> mergeTerms(const std::vector<std::pair<int64_t, Idx>>& in) {
  std::map<std::string, std::pair<int64_t, Idx>> merged;
  for (auto& [k, atom] : in) {
    auto it = merged.find(atom->key);
    if (it == merged.end()) merged.emplace(atom->key, std::make_pair(k, atom));
    else it->second.first += k;
  }
  std::vector<std::pair<int64_t, Idx>> terms;
  for (auto& [key, t] : merged)
    if (t.first != 0) terms.push_back(t);
  return terms;
}

Idx makeLin(LinForm f) {
  std::vector<std::pair<int64_t, Idx>> terms = mergeTerms(f.terms);
  if (terms.size() == 1 && terms[0].first == 1 && f.c == 0) return terms[0].second;
  auto n = std::make_shared<IdxNode>();
  n->kind = IdxKind::Lin;
  n->terms = terms;
  n->c = f.c;
  n->lo = n->hi = f.c;
  std::string key;
  for (auto& [k, atom] : terms) {
    const int64_t a = k * atom->lo, b = k * atom->hi;
    n->lo += std::min(a, b);
    n->hi += std::max(a, b);
    if (!key.empty()) key += " + ";
    key += k == 1 ? atom->key : std::to_string(k) + "*" + atom->key;
  }
  if (f.c != 0 || key.empty()) key += (key.empty() ? "" : " + ") + std::to_string(f.c);
  n->key = boundedKey(terms.empty() || (terms.size() == 1 && f.c == 0 && terms[0].first == 1) ? key : "(" + key + ")");
  if (terms.empty()) n->key = f.c < 0 ? "(" + std::to_string(f.c) + ")" : std::to_string(f.c);
  return n;
}

Idx atom(IdxKind kind, Idx a, Idx b, int64_t c) {
  auto n = std::make_shared<IdxNode>();
  n->kind = kind;
  n->a = a;
  n->b = b;
  n->c = c;
  switch (kind) {
    case IdxKind::Div:
      n->lo = a->lo / c, n->hi = a->hi / c;
      n->key = boundedKey("(" + a->key + " / " + std::to_string(c) + ")");
      break;
    case IdxKind::Mod:
      if (a->lo >= 0) n->lo = 0, n->hi = std::min(c - 1, a->hi);
      else if (a->hi <= 0) n->lo = -(c - 1), n->hi = 0;
      else n->lo = -(c - 1), n->hi = c - 1;
      n->key = boundedKey("(" + a->key + " % " + std::to_string(c) + ")");
      break;
    case IdxKind::Min:
      n->lo = std::min(a->lo, b->lo), n->hi = std::min(a->hi, b->hi);
      n->key = boundedKey("min(" + a->key + ", " + b->key + ")");
      break;
    default: break;
  }
  return n;
}

// Splits a non-negative linear form by divisor k: a = k*D + R with R's constant in [0, k).
void splitByDivisor(const LinForm& f, int64_t k, LinForm& d, LinForm& r) {
  for (auto& t : f.terms) {
    if (t.first % k == 0) d.terms.push_back({t.first / k, t.second});
    else r.terms.push_back(t);
  }
  d.c = floorDiv(f.c, k);
  r.c = f.c - d.c * k;
}
}  // namespace

namespace idx {
Idx var(int32_t id, const std::string& name, int64_t lo, int64_t hi) {
  auto n = std::make_shared<IdxNode>();
  n->kind = IdxKind::Var;
  n->var = id;
  n->lo = lo;
  n->hi = hi;
  n->key = name;
  return n;
}

Idx cst(int64_t c) {
  LinForm f;
  f.c = c;
  return makeLin(f);
}

bool isConst(const Idx& a, int64_t* v) {
  if (a->kind == IdxKind::Lin && a->terms.empty()) {
    if (v) *v = a->c;
    return true;
  }
  return false;
}

Idx add(const Idx& a, const Idx& b) {
  LinForm fa = asLin(a), fb = asLin(b);
  fa.terms.insert(fa.terms.end(), fb.terms.begin(), fb.terms.end());
  fa.c += fb.c;
  return makeLin(fa);
}

Idx addc(const Idx& a, int64_t c) { return c == 0 ? a : add(a, cst(c)); }

Idx mul(const Idx& a, int64_t k) {
  if (k == 1) return a;
  LinForm f = asLin(a);
  for (auto& t : f.terms) t.first *= k;
  f.c *= k;
  return makeLin(f);
}

Idx div(const Idx& a, int64_t k) {
  if (k == 1) return a;
  int64_t v;
  if (isConst(a, &v)) return cst(v / k);
  if (a->lo >= 0 && a->hi < k) return cst(0);
  if (a->lo >= 0 && a->kind == IdxKind::Div) return div(a->a, a->c * k);  // (x/j)/k = x/(j*k)
  if (a->lo >= 0 && a->kind == IdxKind::Mod && a->c % k == 0 && a->a->lo >= 0)
    return mod(div(a->a, k), a->c / k);  // (x % (k*m)) / k = (x/k) % m
  if (a->lo >= 0) {
    LinForm d, r;
    splitByDivisor(asLin(a), k, d, r);
    const Idx rest = makeLin(r);
    if (rest->lo >= 0 && !d.terms.empty()) return add(makeLin(d), div(rest, k));
  }
  return atom(IdxKind::Div, a, nullptr, k);
}

Idx mod(const Idx& a, int64_t k) {
  if (k == 1) return cst(0);
  int64_t v;
  if (isConst(a, &v)) return cst(v % k);
  if (a->lo >= 0 && a->hi < k) return a;
  if (a->lo >= 0 && a->kind == IdxKind::Mod && a->c % k == 0) return mod(a->a, k);  // (x % (k*m)) % k = x % k
  if (a->lo >= 0) {
    LinForm d, r;
    splitByDivisor(asLin(a), k, d, r);
    const Idx rest = makeLin(r);
    if (rest->lo >= 0 && !d.terms.empty()) return mod(rest, k);
  }
  return atom(IdxKind::Mod, a, nullptr, k);
}

Idx min(const Idx& a, const Idx& b) {
  if (a->hi <= b->lo) return a;
  if (b->hi <= a->lo) return b;
  return a->key < b->key ? atom(IdxKind::Min, a, b, 0) : atom(IdxKind::Min, b, a, 0);
}

Idx within(const Idx& a, int64_t lo, int64_t hi) {
  if (a->lo >= lo && a->hi <= hi) return a;
  if (isConst(a) || std::max(lo, a->lo) > std::min(hi, a->hi)) return a;  // nothing to narrow
  auto n = std::make_shared<IdxNode>();
  n->kind = IdxKind::Within;
  n->a = a->kind == IdxKind::Within ? a->a : a;
  n->lo = std::max(lo, a->lo);
  n->hi = std::min(hi, a->hi);
  n->key = "(+" + n->a->key + ")";
  return n;
}

namespace {
int64_t pow2Factor(int64_t v) {
  if (v == 0) return kMaxAlignment;
  const auto u = static_cast<uint64_t>(v < 0 ? -v : v);
  return std::min<int64_t>(kMaxAlignment, static_cast<int64_t>(u & (~u + 1)));
}
}  // namespace

int64_t alignment(const Idx& a, const std::vector<int64_t>& varAlign) {
  switch (a->kind) {
    case IdxKind::Var:
      return a->var >= 0 && static_cast<std::size_t>(a->var) < varAlign.size() ? varAlign[a->var] : 1;
    case IdxKind::Lin: {
      int64_t r = pow2Factor(a->c);
      for (const auto& [k, t] : a->terms) r = std::min(r, std::min(kMaxAlignment, pow2Factor(k) * alignment(t, varAlign)));
      return r;
    }
    case IdxKind::Mod: return std::min(alignment(a->a, varAlign), pow2Factor(a->c));
    case IdxKind::Min: return std::min(alignment(a->a, varAlign), alignment(a->b, varAlign));
    case IdxKind::Within: return alignment(a->a, varAlign);  // the same value, a narrower range
    case IdxKind::Div: return 1;
  }
  return 1;
}

std::pair<Idx, int64_t> splitConst(const Idx& a) {
  if (a->kind != IdxKind::Lin) return {a, 0};
  if (a->terms.empty()) return {nullptr, a->c};
  LinForm f = asLin(a);
  const int64_t c = f.c;
  f.c = 0;
  return {makeLin(f), c};
}
}  // namespace idx

void Mask::require(const Idx& e, int64_t lo, int64_t hi) {
  if (e->lo >= lo && e->hi < hi) return;
  for (const Term& t : terms)
    if (t.e->key == e->key && t.lo >= lo && t.hi <= hi) return;
  terms.push_back({e, lo, hi});
}

void Mask::append(const Mask& m) {
  for (const Term& t : m.terms) require(t.e, t.lo, t.hi);
}

std::string Mask::key() const {
  if (terms.empty()) return "(1)";
  std::string s;
  for (const Term& t : terms) {
    if (!s.empty()) s += " && ";
    s += "(" + std::to_string(t.lo) + " <= " + t.e->key + " && " + t.e->key + " < " + std::to_string(t.hi) + ")";
  }
  return "(" + s + ")";
}

DType bufferDType(const LoweredKernel& k, const LoweredLaunch& l, const BufRef& b) {
  switch (b.space) {
    case BufRef::Space::Param: return k.params.at(b.id).dtype;
    case BufRef::Space::Temp: return k.temps.at(b.id).dtype;
    case BufRef::Space::Local: return l.locals.at(b.id).dtype;
  }
  return DType::F32;
}

namespace {
std::string bufName(const BufRef& b) {
  static const char* p[] = {"p", "t", "l"};
  return p[static_cast<int>(b.space)] + std::to_string(b.id);
}

std::string argStr(const LoweredLaunch& l, const LArg& a) {
  return a.isConst() ? a.c.str() : l.vars.at(a.var).name;
}

void printBody(std::ostringstream& os, const LoweredLaunch& l, const std::vector<LStmt>& body, int depth) {
  const std::string ind(2 * depth, ' ');
  for (const LStmt& s : body) {
    os << ind;
    switch (s.kind) {
      case LStmtKind::Special: {
        static const char* names[] = {"global_id", "local_id", "group_id"};
        os << l.vars[s.dst].name << " = " << names[s.op] << "(" << s.axis << ")\n";
        break;
      }
      case LStmtKind::Compute: {
        os << l.vars[s.dst].name << (s.assign ? " := " : " = ");
        switch (s.opKind) {
          case LOpKind::Copy: os << argStr(l, s.args[0]); break;
          case LOpKind::Unary: os << unaryOpName(static_cast<UnaryOp>(s.op)) << " " << argStr(l, s.args[0]); break;
          case LOpKind::Binary:
            os << binaryOpName(static_cast<BinaryOp>(s.op)) << " " << argStr(l, s.args[0]) << ", " << argStr(l, s.args[1]);
            break;
          case LOpKind::Cast: os << "cast " << argStr(l, s.args[0]); break;
          case LOpKind::Bitcast: os << "bitcast " << argStr(l, s.args[0]); break;
          case LOpKind::Where:
            os << "where " << argStr(l, s.args[0]) << ", " << argStr(l, s.args[1]) << ", " << argStr(l, s.args[2]);
            break;
          case LOpKind::MaskSelect:
            os << "select " << s.mask.key() << ", " << argStr(l, s.args[0]) << ", " << argStr(l, s.args[1]);
            break;
        }
        os << " : " << dtypeName(l.vars[s.dst].dtype) << "\n";
        break;
      }
      case LStmtKind::Load:
        os << l.vars[s.dst].name << " = load " << bufName(s.buf) << "[" << s.index->key << "]";
        if (!s.mask.empty()) os << " if " << s.mask.key();
        os << " : " << dtypeName(l.vars[s.dst].dtype) << "\n";
        break;
      case LStmtKind::VLoad:
        for (std::size_t i = 0; i < s.dsts.size(); ++i) os << (i ? ", " : "") << l.vars[s.dsts[i]].name;
        os << " = vload" << s.dsts.size() << " " << bufName(s.buf) << "[" << s.index->key << "]\n";
        break;
      case LStmtKind::Store:
        os << "store " << bufName(s.buf) << "[" << s.index->key << "] = " << argStr(l, s.args[0]);
        if (!s.mask.empty()) os << " if " << s.mask.key();
        os << "\n";
        break;
      case LStmtKind::VStore:
        os << "vstore" << s.args.size() << " " << bufName(s.buf) << "[" << s.index->key << "] = ";
        for (std::size_t i = 0; i < s.args.size(); ++i) os << (i ? ", " : "") << argStr(l, s.args[i]);
        os << "\n";
        break;
      case LStmtKind::For:
        os << "for " << l.vars[s.dst].name << " = " << s.begin->key << "; " << l.vars[s.dst].name;
        if (s.span != 1) os << " + " << s.span << " <= ";
        else os << " < ";
        os << s.end->key << "; += " << s.step << " {\n";
        printBody(os, l, s.body, depth + 1);
        os << ind << "}\n";
        break;
      case LStmtKind::If:
        os << "if " << s.mask.key() << " {\n";
        printBody(os, l, s.body, depth + 1);
        os << ind << "}\n";
        break;
      case LStmtKind::Barrier: os << "barrier\n"; break;
    }
  }
}
}  // namespace

std::string LoweredKernel::print() const {
  std::ostringstream os;
  os << "lowered " << name << " [" << schedule.str() << "]\n";
  for (std::size_t i = 0; i < params.size(); ++i) {
    static const char* kinds[] = {"read", "rw", "scalar"};
    os << "  p" << i << ": " << kinds[static_cast<int>(params[i].kind)] << " " << dtypeName(params[i].dtype) << "["
       << params[i].numel << "]\n";
  }
  for (std::size_t i = 0; i < temps.size(); ++i)
    os << "  t" << i << ": temp " << dtypeName(temps[i].dtype) << "[" << temps[i].numel << "]\n";
  for (std::size_t li = 0; li < launches.size(); ++li) {
    const LoweredLaunch& l = launches[li];
    os << "launch " << li << " " << l.name << " global=[" << l.global[0] << ", " << l.global[1] << ", " << l.global[2]
       << "] local=[" << l.local[0] << ", " << l.local[1] << ", " << l.local[2] << "]\n";
    for (std::size_t i = 0; i < l.locals.size(); ++i)
      os << "  l" << i << ": local " << dtypeName(l.locals[i].dtype) << "[" << l.locals[i].size << "]\n";
    printBody(os, l, l.body, 1);
  }
  return os.str();
}

namespace {
struct Verifier {
  const LoweredKernel& k;
  const LoweredLaunch& l;
  std::vector<bool> defined;
  std::string err;

  void fail(const std::string& m) {
    if (err.empty()) err = m;
  }
  void use(int32_t v, const char* what) {
    if (v < 0 || v >= static_cast<int32_t>(defined.size())) return fail(std::string(what) + ": bad variable id");
    if (!defined[v]) fail(l.vars[v].name + " used before it is defined");
  }
  void useIdx(const Idx& e) {
    if (!e) return fail("missing index expression");
    if (e->kind == IdxKind::Var) return use(e->var, "index");
    for (auto& t : e->terms) useIdx(t.second);
    if (e->a) useIdx(e->a);
    if (e->b) useIdx(e->b);
  }
  void useMask(const Mask& m) {
    for (auto& t : m.terms) useIdx(t.e);
  }
  void define(int32_t v) {
    if (v < 0 || v >= static_cast<int32_t>(defined.size())) return fail("bad variable id");
    if (defined[v]) fail(l.vars[v].name + " defined twice");
    defined[v] = true;
  }
  void checkBuf(const BufRef& b, bool store) {
    switch (b.space) {
      case BufRef::Space::Param:
        if (b.id < 0 || b.id >= static_cast<int32_t>(k.params.size())) return fail("bad param id");
        if (store && k.params[b.id].kind != ParamKind::ReadWrite) fail("store into a read-only param p" + std::to_string(b.id));
        break;
      case BufRef::Space::Temp:
        if (b.id < 0 || b.id >= static_cast<int32_t>(k.temps.size())) fail("bad temp id");
        break;
      case BufRef::Space::Local:
        if (b.id < 0 || b.id >= static_cast<int32_t>(l.locals.size())) fail("bad local id");
        break;
    }
  }
  void body(const std::vector<LStmt>& stmts, bool top, bool barrierOk) {
    std::vector<int32_t> scope;
    for (const LStmt& s : stmts) {
      for (const LArg& a : s.args)
        if (!a.isConst()) use(a.var, "operand");
      switch (s.kind) {
        case LStmtKind::Special:
          define(s.dst), scope.push_back(s.dst);
          break;
        case LStmtKind::Compute:
          useMask(s.mask);
          if (s.assign) use(s.dst, "assign");
          else define(s.dst), scope.push_back(s.dst);
          if ((s.opKind == LOpKind::Where && s.args.size() != 3) || (s.opKind == LOpKind::Binary && s.args.size() != 2) ||
              (s.opKind == LOpKind::MaskSelect && s.args.size() != 2) || s.args.empty())
            fail(l.vars[s.dst].name + ": wrong operand count");
          break;
        case LStmtKind::Load:
          checkBuf(s.buf, false), useIdx(s.index), useMask(s.mask);
          if (s.dst >= 0 && s.dst < static_cast<int32_t>(l.vars.size()) &&
              l.vars[s.dst].dtype != bufferDType(k, l, s.buf))
            fail(l.vars[s.dst].name + ": load dtype differs from the buffer's");
          define(s.dst), scope.push_back(s.dst);
          break;
        case LStmtKind::VLoad:
          checkBuf(s.buf, false), useIdx(s.index);
          for (int32_t d : s.dsts) define(d), scope.push_back(d);
          break;
        case LStmtKind::Store:
        case LStmtKind::VStore:
          checkBuf(s.buf, true), useIdx(s.index), useMask(s.mask);
          for (const LArg& a : s.args) {
            const DType t = a.isConst() ? a.c.dtype() : l.vars[a.var].dtype;
            if (t != bufferDType(k, l, s.buf)) fail("stored value dtype differs from the buffer's");
          }
          break;
        case LStmtKind::For:
          useIdx(s.begin), useIdx(s.end);
          define(s.dst);
          body(s.body, false, barrierOk);  // the interpreter checks the bounds are the same for the group
          defined[s.dst] = false;  // the loop variable is scoped to the loop
          break;
        case LStmtKind::If:
          useMask(s.mask);
          body(s.body, false, false);
          break;
        case LStmtKind::Barrier:
          if (!barrierOk) fail("barrier inside a condition");
          break;
      }
      if (!err.empty()) return;
    }
    if (!top)
      for (int32_t v : scope) defined[v] = false;
  }
};
}  // namespace

namespace {
void alignLoops(const std::vector<LStmt>& body, std::vector<int64_t>& a) {
  for (const LStmt& s : body) {
    if (s.kind == LStmtKind::For && s.dst >= 0 && static_cast<std::size_t>(s.dst) < a.size()) {
      // every value is begin + j * step
      const int64_t step = idx::alignment(idx::cst(s.step), a);
      a[s.dst] = std::min(idx::alignment(s.begin, a), step);
    }
    if (s.kind == LStmtKind::For || s.kind == LStmtKind::If) alignLoops(s.body, a);
  }
}
}  // namespace

std::vector<int64_t> varAlignments(const LoweredLaunch& l) {
  std::vector<int64_t> a(l.vars.size(), 1);
  alignLoops(l.body, a);
  return a;
}

std::string verifyLowered(const LoweredKernel& k) {
  for (std::size_t i = 0; i < k.launches.size(); ++i) {
    const LoweredLaunch& l = k.launches[i];
    Verifier v{k, l, std::vector<bool>(l.vars.size(), false), {}};
    v.body(l.body, true, true);
    if (!v.err.empty()) return "launch " + std::to_string(i) + ": " + v.err;
    for (int a = 0; a < 3; ++a)
      if (l.local[a] > 0 && l.global[a] % l.local[a] != 0)
        return "launch " + std::to_string(i) + ": global size not a multiple of the local size";
  }
  return {};
}

}  // namespace ks
