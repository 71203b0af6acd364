// Row kernels (one-pass normalizations): a kernel whose output rows each need reductions over the
// same row (softmax, layer norm) runs one work-group per row. Every reduce whose value is the same
// for all elements of an output row is computed once by the group, each item reducing the
// elements it also outputs (kept in registers), the partials combined through local memory and
// broadcast back; the elementwise work then reads the reduced values from registers.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/kernel/kernel.h"
#include "engine/kernel/lowered_kernel.h"

namespace ks {

// One reduce the row group computes: the op and the element of it the row reads.
struct RowReduce {
  int32_t reduce = -1;
  std::vector<Idx> idx;
  Mask mask;
};

struct RowPlan {
  std::vector<RowReduce> reduces;  // in op order (a reduce's operands before it)
  std::string why;                 // why the kernel is no row kernel ("" when it is)
};

// The reduces below `values` read at output element `lane`, where `variant` holds the variables
// that move along the output row (and the reduced indices inside a row reduce). A reduce whose
// element mentions none of them is a row reduce; its operand is walked too. A reduce that varies
// along the row makes the kernel no row kernel (why).
RowPlan rowReduces(const Kernel& k, const std::vector<int32_t>& values, const std::vector<Idx>& lane,
                   const std::set<int32_t>& variant);

// The plan for the kernel's primary stores, with symbolic row and column variables; `why` says
// why the kernel cannot be a row kernel. `rowLength` is the grid's N.
RowPlan planRows(const Kernel& k, int64_t* rowLength = nullptr);

// Whether an index expression mentions one of `vars` (a variable whose range is one value does not
// count: it is a constant).
bool mentions(const Idx& e, const std::set<int32_t>& vars);

}  // namespace ks
