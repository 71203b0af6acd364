// Static cost of an e-node: roofline of its own FLOPs and of the bytes a leaf brings in.
#include "engine/tune/term_cost.h"

#include "engine/core/shape.h"

namespace ks {

namespace {
// FLOPs an element of an op costs. Ops without an instruction of their own are library calls
// worth many multiplies (measured on PoCL: pow over [128, 256] took 1.8 ms where x*x took 9 us),
// so a term that squares with a multiply beats one that calls pow.
double elementFlops(const Node& n) {
  if (n.kind == NodeKind::Binary) return n.binaryOp() == BinaryOp::Pow ? 32 : n.binaryOp() == BinaryOp::Mod ? 4 : 1;
  if (n.kind != NodeKind::Unary) return 1;
  switch (n.unaryOp()) {
    case UnaryOp::Exp: case UnaryOp::Exp2: case UnaryOp::Log: case UnaryOp::Log2: case UnaryOp::Sin: case UnaryOp::Cos:
    case UnaryOp::Tan: case UnaryOp::Tanh: case UnaryOp::Erf:
      return 8;
    case UnaryOp::Sqrt: case UnaryOp::Rsqrt: case UnaryOp::Reciprocal:
      return 2;
    default:
      return 1;
  }
}
}  // namespace

double termNodeNs(const Graph& g, NodeId id, const DeviceRates& rates) {
  constexpr double kToken = 1e-3;  // ns: a movement op or a constant
  const Node& n = g.node(id);
  const ClassId c = g.classOf(id);
  const double out = static_cast<double>(numel(g.shape(c)));
  double flops = 0, bytes = 0;
  switch (n.kind) {
    case NodeKind::Leaf:
      bytes = out * dtypeSize(g.dtype(c));
      break;
    case NodeKind::Reduce:
      flops = static_cast<double>(numel(g.shape(n.in[0])));
      break;
    case NodeKind::Unary:
    case NodeKind::Binary:
      flops = out * elementFlops(n);
      break;
    case NodeKind::Where:
    case NodeKind::Cast:
    case NodeKind::Bitcast:
      flops = out;
      break;
    case NodeKind::Contiguous:
      bytes = 2 * out * dtypeSize(g.dtype(c));
      break;
    default:
      break;
  }
  return kToken + roofline(flops, bytes, rates, 0).ns();
}

}  // namespace ks
