// One e-node of the graph: an operation whose operands are e-classes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/core/ids.h"
#include "engine/core/scalar.h"
#include "engine/graph/ops.h"

namespace ks {

using ClassId = Id<struct ClassTag>;
using NodeId = Id<struct NodeTag>;

// Node kinds of DESIGN.md §2.2. Order is part of the session-file format: append only.
enum class NodeKind : uint8_t {
  Const,       // rank-0 scalar `value`; the only kind a Binary/Where may broadcast implicitly
  Leaf,        // a graph input: program input, parameter or constant tensor; `ref` = leaf index
  Expand,      // attr = target shape (size-1 dims broadcast; rank preserved)
  Permute,     // attr = axes
  Reshape,     // attr = target shape
  Pad,         // attr = {axis, lp, rp}; negative pads crop; `value` fills the new elements
  Narrow,      // attr = {axis, start, len}
  Flip,        // attr = axes
  Reduce,      // op = ReduceOp, attr = axes (sorted); the reduced axes are removed
  Cast,        // dtype = target
  Bitcast,     // dtype = target of the same size
  Unary,       // op = UnaryOp
  Binary,      // op = BinaryOp
  Where,       // in = {cond, a, b}
  Contiguous,  // materializes its operand into its own buffer
  ToDevice,    // device = target device; timeNs = measured copy time
  Kernel,      // in = loads, out = stores, ref = program index, device; timeNs = measured time
};
inline constexpr int kNumNodeKinds = 17;
std::string_view nodeKindName(NodeKind k);

struct Node {
  NodeKind kind = NodeKind::Const;
  uint8_t op = 0;              // UnaryOp / BinaryOp / ReduceOp, as its integer value
  DType dtype = DType::F32;    // Const, Leaf, Cast, Bitcast: the result dtype
  std::vector<ClassId> in;     // operands (Kernel: loads)
  std::vector<int64_t> attr;   // see NodeKind
  Scalar value;                // Const value, Pad fill value
  uint32_t ref = 0;            // Leaf index, Kernel program index
  uint32_t device = 0;         // ToDevice / Kernel: device index in the session's device list
  std::vector<ClassId> out;    // Kernel: the classes it stores
  double timeNs = 0.0;         // measured cost; not part of equality or hash

  UnaryOp unaryOp() const { return static_cast<UnaryOp>(op); }
  BinaryOp binaryOp() const { return static_cast<BinaryOp>(op); }
  ReduceOp reduceOp() const { return static_cast<ReduceOp>(op); }
  bool isStructural() const { return kind != NodeKind::Kernel && kind != NodeKind::ToDevice; }

  bool operator==(const Node& o) const;  // ignores timeNs
  uint64_t hash() const;                 // ignores timeNs
  std::string label() const;             // "add", "reduce sum [1]", "pad axis=1 (1,2)"
};

struct NodeHash {
  std::size_t operator()(const Node& n) const noexcept { return n.hash(); }
};

}  // namespace ks
