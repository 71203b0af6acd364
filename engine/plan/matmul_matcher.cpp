// Matching the matmul form the program builder (and zyx) produce.
#include "engine/plan/matmul_matcher.h"

#include <algorithm>
#include <chrono>

#include "engine/core/median.h"
#include "engine/devices/openblas_gemm.h"
#include "engine/plan/contraction_matcher.h"
#include "engine/plan/gemm_step.h"

namespace ks {

namespace {

// One side of the product: which matrix it reads and how.
struct Side {
  ClassId base;
  bool swapped = false;   // base is a permute of the last two axes of `base`
  int64_t batchElems = 0; // elements per batch in base (0: base has no batch dims -> broadcast)
};

// Walks Expand -> Reshape [-> Permute(last two)] down to a matrix (or batch of matrices).
// `unitAxis` (-1, -2 or -3) is the axis of the reshaped view that holds the 1, e.g. -2 in the
// builder's [..., m, 1, k] and -3 in its [..., 1, n, k].
std::optional<Side> walk(const Graph& g, ClassId c, int unitAxis, const Shape& outShape) {
  const Node* n = &g.structural(c);
  if (n->kind == NodeKind::Expand) {
    c = n->in[0];
    n = &g.structural(c);
  }
  const Shape& viewShape = g.shape(c);  // [..., m, 1, k] or [..., 1, n, k] with batch dims possibly 1
  const int r = static_cast<int>(viewShape.size());
  if (r != static_cast<int>(outShape.size()) || viewShape[r + unitAxis] != 1) return std::nullopt;
  if (n->kind != NodeKind::Reshape) return std::nullopt;
  ClassId base = n->in[0];
  while (g.structural(base).kind == NodeKind::Reshape) base = g.structural(base).in[0];  // reshapes compose
  const Shape& bs = g.shape(base);
  if (bs.size() < 2) return std::nullopt;
  // The reshape must only insert the unit axis (and drop/keep leading batch dims).
  Shape squeezed = viewShape;
  squeezed.erase(squeezed.end() + unitAxis);
  const int br = static_cast<int>(bs.size());
  if (bs[br - 1] != squeezed.back() || bs[br - 2] != squeezed[squeezed.size() - 2]) return std::nullopt;
  int64_t batchBase = 1;
  for (int i = 0; i < br - 2; ++i) batchBase *= bs[i];
  int64_t batchView = 1;
  for (std::size_t i = 0; i + 2 < squeezed.size(); ++i) batchView *= squeezed[i];
  if (batchBase != batchView && batchBase != 1) return std::nullopt;
  // Batch dims of the view must be either all present (equal to the output's) or all 1.
  for (std::size_t i = 0; i + 2 < squeezed.size(); ++i)
    if (batchBase != 1 && squeezed[i] != outShape[i]) return std::nullopt;
  Side s;
  s.base = base;
  s.batchElems = batchBase == 1 ? 0 : bs[br - 1] * bs[br - 2];
  const Node& bn = g.structural(base);
  if (bn.kind == NodeKind::Permute) {
    bool lastTwo = true;
    for (int i = 0; i < br - 2; ++i) lastTwo = lastTwo && bn.attr[i] == i;
    lastTwo = lastTwo && bn.attr[br - 2] == br - 1 && bn.attr[br - 1] == br - 2;
    if (lastTwo) {
      s.base = bn.in[0];
      s.swapped = true;
    }
  }
  return s;
}

}  // namespace

// The product's last three axes hold the two kept axes p < q and the summed axis. The builder's
// matmul sums the last axis; the backward pass of one (x^T @ g for a weight, g @ w^T for an input)
// sums one of the other two. Each factor is broadcast along the kept axis of the other.
std::optional<MatmulMatch> matchMatmul(const Graph& g, ClassId c) {
  const Node& red = g.structural(c);
  if (red.kind != NodeKind::Reduce || red.reduceOp() != ReduceOp::Sum || g.dtype(c) != DType::F32) return std::nullopt;
  const ClassId prodC = red.in[0];
  const Shape& ps = g.shape(prodC);
  const int r = static_cast<int>(ps.size());
  // A weight's gradient over a batch sums the batch axes too: every axis before the last two.
  bool sumsBatch = r > 3 && red.attr.size() == static_cast<std::size_t>(r - 2);
  for (std::size_t i = 0; sumsBatch && i < red.attr.size(); ++i) sumsBatch = red.attr[i] == static_cast<int64_t>(i);
  if (r < 3 || (!sumsBatch && (red.attr.size() != 1 || red.attr[0] < r - 3))) return std::nullopt;
  const Node& mul = g.structural(prodC);
  if (mul.kind != NodeKind::Binary || mul.binaryOp() != BinaryOp::Mul) return std::nullopt;
  const int sum = sumsBatch ? r - 3 : static_cast<int>(red.attr[0]);
  int kept[2], k = 0;
  for (int axis = r - 3; axis < r; ++axis)
    if (axis != sum) kept[k++] = axis;
  const int p = kept[0], q = kept[1];
  for (int order = 0; order < 2; ++order) {
    const ClassId left = mul.in[order], right = mul.in[1 - order];
    auto a = walk(g, left, q - r, ps);   // the left factor spans (p, sum), broadcast along q
    auto b = walk(g, right, p - r, ps);  // the right factor spans (q, sum), broadcast along p
    if (!a || !b) continue;
    MatmulMatch mm;
    mm.out = c;
    mm.a = a->base;
    mm.b = b->base;
    GemmSpec& s = mm.spec;
    s.m = ps[p];
    s.n = ps[q];
    s.k = ps[sum];
    s.batch = 1;
    for (int i = 0; i < r - 3; ++i) s.batch *= ps[i];
    // A factor is stored with its two axes in the product's order: the left one is [m, k] when
    // m comes first, else [k, m] (A^T); the right one is [k, n] when k comes first, else [n, k]
    // (B^T). A permute of the last two axes under the view flips that.
    s.transA = (sum < p) != a->swapped;
    s.transB = (q < sum) != b->swapped;
    s.strideA = a->batchElems;
    s.strideB = b->batchElems;
    if (sumsBatch) {
      // Both factors stored [batch..., k, m] and [batch..., k, n], contiguous: one GEMM whose k runs
      // over the batch as well (x^T @ g of the flattened rows).
      if (!a->batchElems || !b->batchElems || a->swapped || b->swapped) continue;
      for (int i = 0; i < r - 3; ++i) s.k *= ps[i];
      s.batch = 1;
      s.strideA = s.strideB = 0;
    }
    return mm;
  }
  return std::nullopt;
}

std::vector<MatmulMatch> findMatmuls(const Graph& g, const std::vector<ClassId>& outputs) {
  std::vector<MatmulMatch> r;
  for (ClassId c : g.topoOrder(outputs)) {
    if (auto m = matchMatmul(g, c))
      r.push_back(*m);
    else if (auto m2 = matchContraction(g, c))
      r.push_back(*m2);
  }
  return r;
}

namespace {
// Median wall time of the step on scratch operands filled with ones.
double timeGemmStep(const Graph& g, const MatmulMatch& m, const GemmStep& prepared) {
  GemmStep step = prepared;
  auto operand = [&](ClassId c) { return std::vector<float>(static_cast<std::size_t>(std::max<int64_t>(numel(g.shape(c)), 1)), 1.0f); };
  std::vector<float> a = operand(m.a), b = operand(m.b), out = operand(m.out);
  std::vector<std::vector<float>> extra;
  std::vector<const float*> extraPtr;
  if (step.epilogue)
    for (ClassId x : step.epilogue->extra) extra.push_back(operand(x));
  for (const auto& x : extra) extraPtr.push_back(x.data());
  step.run(a.data(), b.data(), out.data(), extraPtr);  // warm-up
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    step.run(a.data(), b.data(), out.data(), extraPtr);
    t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(std::move(t));
}
}  // namespace

void addGemmKernels(Graph& g, const std::vector<MatmulMatch>& matches, uint32_t device, std::vector<KernelEntry>& entries) {
  for (const MatmulMatch& m : matches) {
    KernelEntry e;
    e.kind = KernelEntry::Kind::Gemm;
    e.device = device;
    e.gemm = m.spec;
    const GemmStep step(g, m.out, m.spec, m.a, m.b);
    e.timeNs = timeGemmStep(g, m, step);
    e.flops = m.spec.flops();
    e.bytes = m.spec.bytes();
    Node n;
    n.kind = NodeKind::Kernel;
    n.in = {m.a, m.b};
    if (step.epilogue) n.in.insert(n.in.end(), step.epilogue->extra.begin(), step.epilogue->extra.end());
    n.out = {m.out};
    n.device = device;
    n.ref = static_cast<uint32_t>(entries.size());
    n.timeNs = e.timeNs;
    entries.push_back(e);
    g.addAlternative(m.out, n);
  }
}

}  // namespace ks
