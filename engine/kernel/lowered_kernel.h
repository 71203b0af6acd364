// The lowered kernel IR: work-item indices, loops, loads/stores with index expressions,
// accumulators in registers or local memory, barriers; one or more launches per kernel.
//
// Rules (checked by verifyLowered):
// - a variable is defined (Special, Compute without `assign`, Load, VLoad, For) before any use,
//   and only once; an `assign` Compute writes a variable defined earlier in an enclosing scope;
// - Barrier statements appear at the top level of a launch body or inside For loops whose bounds
//   are the same for every item of a work-group, never inside an If (the interpreter runs the items
//   of a group in lock-step between barriers; the emitter keeps every item reaching every barrier);
// - Loads read Param/Temp/Local buffers, Stores write ReadWrite params, Temps or Locals, with
//   the buffer's dtype; index expressions are affine forms of index variables with div/mod/min.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/scalar.h"
#include "engine/graph/ops.h"
#include "engine/kernel/kernel.h"
#include "engine/kernel/schedule.h"

namespace ks {

// ---------------------------------------------------------------- index expressions
// Integer expressions over index variables, kept in a canonical form: a linear combination of
// atoms (variables, div, mod, min) plus a constant, with a known value range. The canonical text
// `key` is both the identity (for common-subexpression elimination) and valid C.
struct IdxNode;
using Idx = std::shared_ptr<const IdxNode>;
// Within: the value of `a` where it is used, which the mask guarding every use bounds to [lo, hi]
// (a padded axis' source index): an atom, so sums and divisions of it simplify as of a value
// that is never negative.
enum class IdxKind : uint8_t { Var, Lin, Div, Mod, Min, Within };
struct IdxNode {
  IdxKind kind = IdxKind::Lin;
  int32_t var = -1;                             // Var: variable id
  std::vector<std::pair<int64_t, Idx>> terms;   // Lin: coefficient * atom
  int64_t c = 0;                                // Lin: constant; Div/Mod: divisor
  Idx a, b;                                     // Div/Mod: dividend; Min: operands
  int64_t lo = 0, hi = 0;                       // inclusive range of the value
  std::string key;
};
namespace idx {
Idx var(int32_t id, const std::string& name, int64_t lo, int64_t hi);
Idx cst(int64_t c);
Idx add(const Idx& a, const Idx& b);
Idx addc(const Idx& a, int64_t c);
Idx mul(const Idx& a, int64_t k);
Idx div(const Idx& a, int64_t k);  // C truncation
Idx mod(const Idx& a, int64_t k);  // C remainder
Idx min(const Idx& a, const Idx& b);
// a, known (by a mask that guards every use) to lie in [lo, hi]; key "(+a)".
Idx within(const Idx& a, int64_t lo, int64_t hi);
bool isConst(const Idx& a, int64_t* v = nullptr);
// Splits a into (base, constant) so that a == base + constant; base is nullptr for a constant.
std::pair<Idx, int64_t> splitConst(const Idx& a);
// The largest power of two (at most kMaxAlignment) that divides every value of `a`, given that of
// every variable (varAlign[id]; variables past its end count as 1).
inline constexpr int64_t kMaxAlignment = int64_t{1} << 20;
int64_t alignment(const Idx& a, const std::vector<int64_t>& varAlign);
}  // namespace idx

// A conjunction of range conditions lo <= e < hi (empty: always true).
struct Mask {
  struct Term { Idx e; int64_t lo, hi; };
  std::vector<Term> terms;
  bool empty() const { return terms.empty(); }
  void require(const Idx& e, int64_t lo, int64_t hi);  // drops conditions the ranges prove
  void append(const Mask& m);
  std::string key() const;  // C text: "(0 <= x && x < 4)"; "1" when empty
};

// ---------------------------------------------------------------- statements
struct LVar {
  std::string name;
  DType dtype = DType::I32;
  bool isIndex = false;  // an integer index variable (Idx), printed with the launch's index type
};

struct LArg {
  int32_t var = -1;  // -1: constant
  Scalar c;
  static LArg ofVar(int32_t v) { LArg a; a.var = v; return a; }
  static LArg ofConst(Scalar s) { LArg a; a.c = s; return a; }
  bool isConst() const { return var < 0; }
};

struct BufRef {
  enum class Space : uint8_t { Param, Temp, Local } space = Space::Param;
  int32_t id = 0;
  bool operator==(const BufRef&) const = default;
};

enum class LStmtKind : uint8_t { Special, Compute, Load, VLoad, Store, VStore, For, If, Barrier };
enum class SpecialKind : uint8_t { GlobalId, LocalId, GroupId };
enum class LOpKind : uint8_t { Copy, Unary, Binary, Cast, Where, MaskSelect, Bitcast };

struct LStmt {
  LStmtKind kind = LStmtKind::Compute;
  int32_t dst = -1;            // Special/Compute/Load: the variable; For: the loop variable
  bool assign = false;         // Compute: update an existing variable
  LOpKind opKind = LOpKind::Copy;
  uint8_t op = 0;              // UnaryOp / BinaryOp (Compute); SpecialKind (Special)
  int axis = 0;                // Special: NDRange axis
  std::vector<LArg> args;      // Compute operands (MaskSelect: {a, b} = mask ? a : b); Store: {value}
  std::vector<int32_t> dsts;   // VLoad: one variable per component
  BufRef buf;                  // Load/VLoad/Store/VStore
  Idx index;                   // Load/Store: element index; VLoad/VStore: first element
  Mask mask;                   // Load/Store guard (false: load gives 0, store skipped); If; MaskSelect
  Idx begin, end;              // For: var = begin; var + span <= end; var += step
  int64_t step = 1, span = 1;
  std::vector<LStmt> body;     // For / If
};

struct LocalArray { DType dtype = DType::F32; int64_t size = 0; };

struct LoweredLaunch {
  std::string name;
  int64_t global[3] = {1, 1, 1};
  int64_t local[3] = {0, 0, 0};  // 0: the driver chooses
  std::vector<LVar> vars;
  std::vector<LocalArray> locals;
  std::vector<LStmt> body;
  int64_t items() const { return global[0] * global[1] * global[2]; }
};

struct LParam { ParamKind kind = ParamKind::Read; DType dtype = DType::F32; int64_t numel = 0; };
struct LTemp { DType dtype = DType::F32; int64_t numel = 0; };

struct LoweredKernel {
  std::string name;
  Schedule schedule;
  std::vector<LParam> params;  // the Kernel's params, in op order
  std::vector<LTemp> temps;    // scratch buffers the device allocates (split-reduction partials)
  std::vector<LoweredLaunch> launches;  // run in order
  bool wideIndex = false;      // an index may exceed 2^31-1: index variables are 64-bit
  bool needsFp64 = false;
  std::string print() const;
};

// Per variable of a launch: the largest power of two that divides each of its values (a loop
// variable whose begin and step are multiples of it; 1 for every other variable). Vector loads and
// stores whose first index is a multiple of their width are aligned: the emitter writes them as
// vector accesses (one wide load of local memory instead of w narrow ones), and the interpreter
// checks every such index it evaluates.
std::vector<int64_t> varAlignments(const LoweredLaunch& l);

// "" when valid, otherwise the first violation ("launch 0: v7 used before it is defined").
std::string verifyLowered(const LoweredKernel& k);

// dtype of a buffer reference
DType bufferDType(const LoweredKernel& k, const LoweredLaunch& l, const BufRef& b);

}  // namespace ks
