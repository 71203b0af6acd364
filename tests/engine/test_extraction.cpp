// Extraction (DAG-aware vs tree cost), ExecPlan buffer reuse, and the matmul AOT matcher.
#include <QtTest>

#include "engine/core/error.h"
#include "engine/plan/exec_plan.h"
#include "engine/plan/extractor.h"
#include "engine/plan/matmul_matcher.h"
#include "engine/program/autograd.h"
#include "engine/program/builder.h"

using namespace ks;

namespace {
NodeId addKernel(Graph& g, ClassId cls, std::vector<ClassId> in, std::vector<ClassId> out, double ns, uint32_t dev,
                 uint32_t ref) {
  Node n;
  n.kind = NodeKind::Kernel;
  n.in = std::move(in);
  n.out = std::move(out);
  n.timeNs = ns;
  n.device = dev;
  n.ref = ref;
  const NodeId id = g.addAlternative(cls, n);
  for (ClassId o : n.out) g.attachNode(o, id);
  return id;
}
ClassId unary(Graph& g, ClassId x, UnaryOp u) {
  Node n;
  n.kind = NodeKind::Unary;
  n.op = static_cast<uint8_t>(u);
  n.in = {x};
  return g.add(n);
}
ExtractionDevices oneDevice() { return {{0}, {true}, {}}; }
}  // namespace

class TestExtraction : public QObject {
  Q_OBJECT
 private slots:
  // Two outputs can each be computed directly from x (cost 7) or from a shared producer P (cost 10)
  // plus 1. A tree-cost sum picks the direct kernels (7 + 7 = 14); counting P once is cheaper
  // (10 + 1 + 1 = 12), and the DAG-aware extraction must find it.
  void dagBeatsTreeCost() {
    Graph g;
    const ClassId x = g.addLeaf({"x", LeafKind::Input, DType::F32, {4}, nullptr});
    const ClassId p = unary(g, x, UnaryOp::Exp);
    const ClassId o1 = unary(g, p, UnaryOp::Sin), o2 = unary(g, p, UnaryOp::Cos);
    const NodeId kp = addKernel(g, p, {x}, {p}, 10, 0, 0);
    const NodeId k1a = addKernel(g, o1, {p}, {o1}, 1, 0, 1);
    addKernel(g, o1, {x}, {o1}, 7, 0, 2);
    const NodeId k2a = addKernel(g, o2, {p}, {o2}, 1, 0, 3);
    addKernel(g, o2, {x}, {o2}, 7, 0, 4);
    const Extraction ex = extract(g, {o1, o2}, oneDevice());
    QCOMPARE(ex.greedyTreeNs, 14.0);
    QCOMPARE(ex.totalNs, 12.0);
    QCOMPARE(ex.chosen.at(o1), k1a);
    QCOMPARE(ex.chosen.at(o2), k2a);
    QCOMPARE(ex.chosen.at(p), kp);
    QCOMPARE(ex.order.front(), kp);  // the shared producer runs first
    bool explained = false;
    for (auto& d : ex.decisions)
      if (d.cls == o1) explained = d.alternatives.size() == 2 && !d.why.empty();
    QVERIFY(explained);
  }

  // A kernel storing two classes is one launch, counted once.
  void multiOutputKernelCountsOnce() {
    Graph g;
    const ClassId x = g.addLeaf({"x", LeafKind::Input, DType::F32, {4}, nullptr});
    const ClassId a = unary(g, x, UnaryOp::Exp), b = unary(g, x, UnaryOp::Sin);
    addKernel(g, a, {x}, {a, b}, 5, 0, 0);
    const Extraction ex = extract(g, {a, b}, oneDevice());
    QCOMPARE(ex.totalNs, 5.0);
    QCOMPARE(ex.order.size(), std::size_t(1));
  }

  // Alternatives can form a cycle among classes: M stores q and also p, reading l, while l is made
  // from p. Walking the classes from p meets l before p's producer; the steps must still follow
  // the chosen producers' operands (Kp, Kl, M), choosing M for p as well (free, since M runs for
  // q) would be a cycle and is refused, and M's store of p must not go to p's buffer, whose
  // allocation is free for reuse once its last reader ran.
  void cyclicAlternativesKeepDependencyOrder() {
    Graph g;
    const ClassId x = g.addLeaf({"x", LeafKind::Input, DType::F32, {4}, nullptr});
    const ClassId p = unary(g, x, UnaryOp::Exp);
    const ClassId l = unary(g, p, UnaryOp::Sin);
    const ClassId q = unary(g, l, UnaryOp::Cos);
    const NodeId kp = addKernel(g, p, {x}, {p}, 1, 0, 0);
    const NodeId kl = addKernel(g, l, {p}, {l}, 1, 0, 1);
    const NodeId m = addKernel(g, q, {l}, {q, p}, 5, 0, 2);
    const Extraction ex = extract(g, {p, q}, oneDevice());
    QCOMPARE(ex.chosen.at(p), kp);
    QCOMPARE(ex.chosen.at(l), kl);
    QCOMPARE(ex.chosen.at(q), m);
    QCOMPARE(ex.order, (std::vector<NodeId>{kp, kl, m}));
    QCOMPARE(ex.totalNs, 7.0);
    std::vector<KernelEntry> kernels(3);
    const ExecPlan plan = buildPlan(g, {p, q}, ex, kernels, oneDevice(), {"dev"});
    QCOMPARE(plan.steps.size(), std::size_t(3));
    const uint32_t pBuffer = plan.steps[0].outputs.at(0);
    QCOMPARE(plan.steps[1].inputs.at(0), pBuffer);
    QVERIFY(plan.steps[2].outputs.at(1) != pBuffer);  // M's copy of p is discarded
    QCOMPARE(plan.outputs.at(0).second, pBuffer);
  }

  // Copies cost their measured time across pools and nothing within one pool; the cheaper device
  // wins even with the copy.
  void copiesAreCostedAcrossPools() {
    Graph g;
    const ClassId x = g.addLeaf({"x", LeafKind::Input, DType::F32, {1024}, nullptr});
    const ClassId y = unary(g, x, UnaryOp::Exp);
    const ClassId xOnDev1 = g.addToDevice(x, 1, 300);
    addKernel(g, y, {x}, {y}, 1000, 0, 0);       // host-pool device
    addKernel(g, y, {xOnDev1}, {y}, 100, 1, 1);  // device 1, pool 1, needs the copy
    ExtractionDevices d{{0, 1}, {true, true}, {}};
    Extraction ex = extract(g, {y}, d);
    QCOMPARE(ex.totalNs, 400.0);
    d.allowed = {true, false};
    ex = extract(g, {y}, d);
    QCOMPARE(ex.totalNs, 1000.0);
    d.allowed = {false, false};
    QVERIFY_THROWS_EXCEPTION(ks::Error, extract(g, {y}, d));
  }

  // A chain of kernels: buffers whose last reader has run are reused.
  void planReusesBuffers() {
    Graph g;
    ClassId c = g.addLeaf({"x", LeafKind::Input, DType::F32, {256}, nullptr});
    const UnaryOp ops[] = {UnaryOp::Exp, UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Tanh, UnaryOp::Abs};
    std::vector<KernelEntry> entries;
    for (UnaryOp u : ops) {
      const ClassId next = unary(g, c, u);
      addKernel(g, next, {c}, {next}, 1, 0, static_cast<uint32_t>(entries.size()));
      entries.push_back({});
      c = next;
    }
    const Extraction ex = extract(g, {c}, oneDevice());
    const ExecPlan plan = buildPlan(g, {c}, ex, entries, oneDevice(), {"dev"});
    QCOMPARE(plan.steps.size(), std::size_t(5));
    QCOMPARE(plan.bytesWithoutReuse, int64_t(5 * 1024));
    // Ping-pong between two buffers; the output, in host memory, has an allocation of its own (a
    // prepared plan writes it into the run's output tensor).
    QCOMPARE(plan.allocations.size(), std::size_t(3));
    QCOMPARE(plan.bytesSaved, int64_t(2 * 1024));
    QCOMPARE(plan.peakBytes.at(0), int64_t(3 * 1024));
    const uint32_t out = plan.outputs.at(0).second;
    for (std::size_t b = 0; b < plan.buffers.size(); ++b)
      if (b != out && !plan.buffers[b].leaf) QVERIFY(plan.buffers[b].allocation != plan.buffers[out].allocation);
    // No step reads and writes the same slot.
    for (auto& s : plan.steps)
      QVERIFY(plan.buffers[s.inputs.size() ? s.inputs[0] : 0].allocation != plan.buffers[s.outputs[0]].allocation ||
              plan.buffers[s.inputs[0]].leaf);
  }

  void matcherFindsBuilderMatmuls_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("2d") << 0;
    QTest::newRow("a transposed") << 1;
    QTest::newRow("batched") << 2;
    QTest::newRow("batched, broadcast b") << 3;
  }
  void matcherFindsBuilderMatmuls() {
    QFETCH(int, kind);
    ProgramBuilder b;
    Value out;
    GemmSpec want;
    if (kind == 0) {
      out = op::matmul(b.input("a", DType::F32, {3, 5}), b.input("b", DType::F32, {5, 4}));
      want = {1, 3, 4, 5, false, false, 0, 0};
    } else if (kind == 1) {
      out = op::matmul(op::transpose(b.input("a", DType::F32, {5, 3})), b.input("b", DType::F32, {5, 4}));
      want = {1, 3, 4, 5, true, false, 0, 0};
    } else if (kind == 2) {
      out = op::matmul(b.input("a", DType::F32, {2, 3, 5}), b.input("b", DType::F32, {2, 5, 4}));
      want = {2, 3, 4, 5, false, false, 15, 20};
    } else {
      out = op::matmul(b.input("a", DType::F32, {2, 3, 5}), b.input("b", DType::F32, {5, 4}));
      want = {2, 3, 4, 5, false, false, 15, 0};
    }
    const auto m = matchMatmul(b.graph(), out.id());
    QVERIFY2(m.has_value(), b.graph().dump().c_str());
    QCOMPARE(m->spec.m, want.m);
    QCOMPARE(m->spec.n, want.n);
    QCOMPARE(m->spec.k, want.k);
    QCOMPARE(m->spec.batch, want.batch);
    QCOMPARE(m->spec.transA, want.transA);
    QCOMPARE(m->spec.transB, want.transB);
    QCOMPARE(m->spec.strideA, want.strideA);
    QCOMPARE(m->spec.strideB, want.strideB);
  }

  // The backward pass of y = a @ b sums the product over m (for b: a^T @ g) or over n (for a:
  // g @ b^T); both are GEMMs with the factors read transposed in place.
  void matcherFindsBackwardMatmuls_data() {
    QTest::addColumn<bool>("batched");
    QTest::newRow("matrix") << false;
    QTest::newRow("batched") << true;
  }
  void matcherFindsBackwardMatmuls() {
    QFETCH(bool, batched);
    ProgramBuilder b;
    const Shape as = batched ? Shape{2, 3, 5} : Shape{3, 5}, bs = batched ? Shape{2, 5, 4} : Shape{5, 4};
    Value a = b.input("a", DType::F32, as), w = b.input("b", DType::F32, bs);
    Value y = op::matmul(a, w);
    const std::vector<Value> g = op::grad(op::sum(op::mul(y, y), {}), {a, w});
    const int64_t batch = batched ? 2 : 1;
    // ga [3, 5] = g [3, 4] @ b^T (b stored [5, 4]). The builder multiplies by b permuted to
    // [4, 5], whose gradient g^T (g stored [3, 4]) @ a [3, 5] is then permuted back to b's shape.
    const GemmSpec wantA{batch, 3, 5, 4, false, true, batched ? 12 : 0, batched ? 20 : 0};
    const GemmSpec wantB{batch, 4, 5, 3, true, false, batched ? 12 : 0, batched ? 15 : 0};
    int found = 0;
    for (const MatmulMatch& m : findMatmuls(b.graph(), {g[0].id(), g[1].id()})) {
      if (m.spec.m == 1 || m.out == y.id()) continue;
      const GemmSpec& want = m.spec.k == 4 ? wantA : wantB;
      QCOMPARE(m.spec.batch, want.batch);
      QCOMPARE(m.spec.m, want.m);
      QCOMPARE(m.spec.n, want.n);
      QCOMPARE(m.spec.k, want.k);
      QCOMPARE(m.spec.transA, want.transA);
      QCOMPARE(m.spec.transB, want.transB);
      QCOMPARE(m.spec.strideA, want.strideA);
      QCOMPARE(m.spec.strideB, want.strideB);
      ++found;
    }
    QVERIFY2(found == 2, b.graph().dump().c_str());
  }

  // A weight shared by a batch: its gradient sums the batch axis and the rows, one GEMM over the
  // flattened rows (k = batch x rows).
  void matcherFindsBatchSummedWeightGradients() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {2, 3, 5}), w = b.input("w", DType::F32, {5, 4});
    Value y = op::matmul(x, w);
    const Value gw = op::grad(op::sum(op::mul(y, y), {}), {w})[0];
    int found = 0;
    for (const MatmulMatch& m : findMatmuls(b.graph(), {gw.id()})) {
      if (m.spec.k != 6) continue;
      // The builder multiplies by w permuted to [4, 5]: g^T (g stored [6, 4]) @ x (stored [6, 5]).
      QCOMPARE(m.spec.batch, int64_t(1));
      QCOMPARE(m.spec.m, int64_t(4));
      QCOMPARE(m.spec.n, int64_t(5));
      QVERIFY(m.spec.transA);
      QVERIFY(!m.spec.transB);
      QCOMPARE(m.spec.strideA, int64_t(0));
      ++found;
    }
    QVERIFY2(found == 1, b.graph().dump().c_str());
  }

  void matcherIgnoresOtherReductions() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {3, 5});
    QVERIFY(!matchMatmul(b.graph(), op::sum(op::mul(x, x), {-1}).id()));
    Value i = b.input("i", DType::I32, {3, 5}), j = b.input("j", DType::I32, {5, 4});
    QVERIFY(!matchMatmul(b.graph(), op::matmul(i, j).id()));  // f32 only
  }
};

QTEST_APPLESS_MAIN(TestExtraction)
#include "test_extraction.moc"
