// Static cost of an e-node: roofline of its own FLOPs and of the bytes a leaf brings in.
#include "engine/tune/term_cost.h"

#include "engine/core/shape.h"

namespace ks {

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
