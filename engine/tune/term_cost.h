// The static cost of one e-node of a candidate term, from the cost model's roofline: what the
// rewrite stage's term choice minimises before anything is kernelized or measured.
#pragma once
#include "engine/graph/graph.h"
#include "engine/tune/cost_model.h"

namespace ks {

// FLOPs of computing the node's elements (a reduce: one per input element) and the bytes of
// reading a leaf, against the device's rates. Movement ops only index (fused into loads) and
// cost a token amount, so a shorter chain of them still wins. Always > 0.
double termNodeNs(const Graph& g, NodeId n, const DeviceRates& rates);

}  // namespace ks
