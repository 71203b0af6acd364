// Kernelizer: fusion counts of known programs (hand-worked from the seed's rules), the
// no-recomputed-reduce rule, invariants, fill_gaps around AOT kernels, errors that keep the trace,
// and trace replay on samples and on seeded random programs.
#include <QElapsedTimer>
#include <QtTest>

#include <cmath>
#include <unordered_map>

#include "engine/check/random_program.h"
#include "engine/eval/host_executor.h"
#include "engine/kernelizer/kernelizer.h"
#include "engine/program/builder.h"
#include "tests/engine/interpret_kernels.h"

using namespace ks;

namespace {

// Independent checks on every kernel, whatever the program.
QString kernelProblems(const KernelizeResult& r) {
  for (const FusedKernel& k : r.kernels) {
    const QString where = QString("K%1: ").arg(k.id);
    if (std::string v = verifyKernel(k.kernel); !v.empty()) return where + QString::fromStdString(v);
    if (k.kernel.readParams().size() != k.loads.size()) return where + "loads not parallel to Read params";
    if (k.kernel.storeOps().size() != k.stores.size()) return where + "stores not parallel to Store ops";
    if (k.stores.empty()) return where + "kernel without a store";
    for (ClassId l : k.loads)
      if (std::find(k.stores.begin(), k.stores.end(), l) != k.stores.end()) return where + "loads what it stores";
    // No kernel recomputes a reduction once per element of a later expand (a row kernel computes
    // it once per row).
    for (std::size_t i = 0; i < k.kernel.size() && !rowSchedule(k.kernel, DeviceLimits{}); ++i) {
      const KOp& o = k.kernel.ops[i];
      if (o.kind == KOpKind::Move && o.moveKind() == MoveKind::Expand &&
          k.kernel.isPrecededByReduce(static_cast<int32_t>(i)))
        return where + QString("op %1 expands the result of a reduce").arg(i);
    }
  }
  return {};
}

int countKind(const FusedKernel& k, KOpKind kind) {
  return static_cast<int>(std::count_if(k.kernel.ops.begin(), k.kernel.ops.end(), [&](const KOp& o) { return o.kind == kind; }));
}

KernelizeResult kernelizeProgram(const Program& p) { return kernelize(p.graph, p.outputClasses()); }

void checkReplay(const KernelizeResult& r) {
  const TraceState replayed = r.trace.finalState();
  const TraceState live = traceStateOf(r.kernels);
  if (replayed != live)
    QFAIL(qPrintable("trace replay differs from the kernels:\nreplayed\n" + QString::fromStdString(traceStateStr(replayed)) +
                     "live\n" + QString::fromStdString(traceStateStr(live))));
  for (std::size_t i = 0; i < r.trace.steps.size(); ++i) QCOMPARE(r.trace.steps[i].index, static_cast<int32_t>(i));
}

// Runs the fused kernels with the IR interpreter in dependency order and compares the outputs
// with the host executor on the graph.
QString numericMismatch(const Program& p, const KernelizeResult& r, uint64_t seed) {
  const std::vector<HostTensor> leaves = bindLeaves(p, {}, seed);
  const std::vector<HostTensor> expected = HostExecutor::run(p.graph, p.outputClasses(), leaves);
  std::vector<HostTensor> outputs;
  try {
    outputs = interpretKernels(p.graph, r.kernels, p.outputClasses(), leaves, false);
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  for (std::size_t oi = 0; oi < p.outputs.size(); ++oi) {
    const ClassId c = p.outputs[oi].cls;
    const HostTensor& got = outputs[oi];
    const HostTensor& want = expected[oi];
    if (got.numel() != want.numel()) return QString("output %%1 has %2 elements, want %3").arg(c.v).arg(got.numel()).arg(want.numel());
    for (int64_t e = 0; e < want.numel(); ++e) {
      const double a = got.getDouble(e), b = want.getDouble(e);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (a == b) continue;
      // Reductions over several axes run one axis at a time in kernels: a different summation order.
      if (!(std::fabs(a - b) <= 1e-5 + 1e-4 * std::fabs(b)))
        return QString("output %%1 element %2: kernels %3, host %4").arg(c.v).arg(e).arg(a, 0, 'g', 9).arg(b, 0, 'g', 9);
    }
  }
  return {};
}

}  // namespace

class TestKernelizer : public QObject {
  Q_OBJECT

 private slots:
  void elementwiseChainIsOneKernel() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 5});
    Value y = b.input("y", DType::F32, {4, 5});
    b.output("out", op::exp(op::add(op::mul(op::neg(x), 2.0), op::tanh(y))));
    const Program p = b.finish();
    const KernelizeResult r = kernelizeProgram(p);
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(r.kernels.size(), std::size_t(1));
    QCOMPARE(r.kernels[0].loads.size(), std::size_t(2));
    QCOMPARE(r.kernels[0].stores, std::vector<ClassId>{p.outputs[0].cls});
    QCOMPARE(countKind(r.kernels[0], KOpKind::Const), 1);  // the 2.0 is replayed into the kernel
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
  }

  void matmulBiasReluIsOneKernel() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {8, 16});
    Value w = b.input("w", DType::F32, {16, 4});
    Value bias = b.input("b", DType::F32, {4});
    b.output("out", op::relu(op::add(op::matmul(x, w), bias)));
    const KernelizeResult r = kernelizeProgram(b.finish());
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(r.kernels.size(), std::size_t(1));
    QCOMPARE(countKind(r.kernels[0], KOpKind::Reduce), 1);
    QCOMPARE(r.kernels[0].loads.size(), std::size_t(3));
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
  }

  void softmaxKernels_data() {
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<int>("axis");
    QTest::addColumn<int>("kernels");
    // Along the last axis the row is the output's N axis: one row kernel. Along a middle axis the
    // reduced values vary along the output's rows: max, exp-sum and divide kernels.
    QTest::newRow("2d last") << Shape{4, 8} << -1 << 1;
    QTest::newRow("3d last") << Shape{2, 3, 5} << -1 << 1;
    QTest::newRow("3d middle") << Shape{2, 3, 5} << 1 << 3;
    QTest::newRow("1d") << Shape{7} << 0 << 1;
  }
  void softmaxKernels() {
    QFETCH(Shape, shape);
    QFETCH(int, axis);
    QFETCH(int, kernels);
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, shape);
    b.output("out", op::softmax(x, axis));
    const Program p = b.finish();
    const KernelizeResult r = kernelizeProgram(p);
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(r.kernels.size(), std::size_t(kernels));
    int reduces = 0;
    for (const FusedKernel& k : r.kernels) reduces += countKind(k, KOpKind::Reduce);
    QCOMPARE(reduces, 2);  // the row kernel computes exp(x - max) once for the sum and the output
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
    ClassId maxClass;
    for (std::size_t c = 0; c < p.graph.classCount(); ++c)
      if (p.graph.structural(ClassId(c)).kind == NodeKind::Reduce &&
          p.graph.structural(ClassId(c)).reduceOp() == ReduceOp::Max)
        maxClass = ClassId(c);
    QVERIFY(maxClass.valid());
    const Separation s = r.trace.explainSeparation(maxClass, p.outputs[0].cls, &p.graph);
    int rowSteps = 0;
    for (const FusionStep& st : r.trace.steps) rowSteps += st.rule == "row-normalization";
    if (kernels == 1) {
      QVERIFY(s.sameKernel);
      QCOMPARE(rowSteps, 2);  // the sum kernel, then the max kernel, inlined into the output's
      QCOMPARE(int(r.kernels[0].kernel.readParams().size()), 1);  // x loaded once
      QVERIFY(rowSchedule(r.kernels[0].kernel, DeviceLimits{}).has_value());
    } else {
      QVERIFY(!s.sameKernel);
      QCOMPARE(QString::fromStdString(s.rule), QString("expand-stores-computed"));
      QVERIFY(s.step >= 0);
      QCOMPARE(rowSteps, 0);
    }
  }

  void layerNormIsOneRowKernel() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {6, 10});
    Value w = b.input("w", DType::F32, {10});
    Value bias = b.input("b", DType::F32, {10});
    b.output("out", op::layerNorm(x, w, bias));
    const KernelizeResult r = kernelizeProgram(b.finish());
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(r.kernels.size(), std::size_t(1));  // mean, variance and normalize in one row kernel
    QCOMPARE(int(r.kernels[0].loads.size()), 3);
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
  }

  void reduceThenExpandStoresFirst() {
    // x - sum(x) broadcast back over the output's rows (a reduce over the first axis varies along
    // them): the sum must be stored, never recomputed per element. Over the last axis it is a
    // row kernel instead.
    for (int axis : {0, 1}) {
      ProgramBuilder b;
      Value x = b.input("x", DType::F32, {5, 6});
      Value s = op::sum(op::exp(x), {axis}, true);
      b.output("out", op::sub(x, s));
      const KernelizeResult r = kernelizeProgram(b.finish());
      QVERIFY2(!r.error, r.error ? r.error->what() : "");
      QCOMPARE(r.kernels.size(), std::size_t(axis == 0 ? 2 : 1));
      QCOMPARE(kernelProblems(r), QString());
      checkReplay(r);
    }
  }

  void reduceOfReducedIsStored() {
    // A convolution, its ReLU and a global average pool (ResNet's head): the pool must not nest
    // the convolution's reduction inside its own (one kernel per pool output running 36 of them
    // in turn), so the convolution is stored and the pool reads it. Likewise a sum of a sum.
    {
      ProgramBuilder b;
      Value x = b.input("x", DType::F32, {1, 3, 6, 6});
      Value w = b.input("w", DType::F32, {8, 3, 3, 3});
      Value y = op::relu(op::conv2d(x, w, std::nullopt, {1, 1}, {1, 1}));
      b.output("pool", op::mean(y, {2, 3}));
      const Program p = b.finish();
      const KernelizeResult r = kernelizeProgram(p);
      QVERIFY2(!r.error, r.error ? r.error->what() : "");
      QCOMPARE(r.kernels.size(), std::size_t(2));
      for (const FusedKernel& k : r.kernels) QCOMPARE(countKind(k, KOpKind::Reduce) > 0, true);
      int stored = 0;
      for (const FusionStep& st : r.trace.steps) stored += st.rule == "reduce-stores-reduced";
      QCOMPARE(stored, 1);
      QCOMPARE(kernelProblems(r), QString());
      checkReplay(r);
      QCOMPARE(numericMismatch(p, r, 3), QString());
    }
    {
      ProgramBuilder b;
      Value x = b.input("x", DType::F32, {4, 5, 6});
      b.output("s", op::sum(op::sum(op::exp(x), {2}), {1}));
      const Program p = b.finish();
      const KernelizeResult r = kernelizeProgram(p);
      QVERIFY2(!r.error, r.error ? r.error->what() : "");
      QCOMPARE(r.kernels.size(), std::size_t(2));
      QCOMPARE(numericMismatch(p, r, 5), QString());
    }
  }

  void padOfReducedIsStored() {
    // Two convolutions in a row: the first one's output is stored as it is and the second kernel
    // pads it on load, so the first kernel's grid is its own [8, 6, 6] output.
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {1, 3, 6, 6});
    Value y = op::relu(op::conv2d(x, b.input("w1", DType::F32, {8, 3, 3, 3}), std::nullopt, {1, 1}, {1, 1}));
    b.output("z", op::conv2d(y, b.input("w2", DType::F32, {4, 8, 3, 3}), std::nullopt, {1, 1}, {1, 1}));
    const Program p = b.finish();
    const KernelizeResult r = kernelizeProgram(p);
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(r.kernels.size(), std::size_t(2));
    int stored = 0;
    for (const FusionStep& st : r.trace.steps) stored += st.rule == "pad-stores-reduced";
    QCOMPARE(stored, 1);
    for (const FusedKernel& k : r.kernels)
      for (int32_t st : k.kernel.storeOps()) QVERIFY(numel(k.kernel.at(st).shape) <= 8 * 6 * 6);
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
    QCOMPARE(numericMismatch(p, r, 4), QString());
  }

  void fanOutAfterReduceIsStored() {
    // A reduce result with two movement consumers: stored once, not recomputed by each.
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 6});
    Value m = op::max(x, {1});
    b.output("a", op::flip(m, {0}));
    b.output("b", op::reshape(m, {2, 2}));
    const KernelizeResult r = kernelizeProgram(b.finish());
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    int reduces = 0;
    for (const FusedKernel& k : r.kernels) reduces += countKind(k, KOpKind::Reduce);
    QCOMPARE(reduces, 1);
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
  }

  void fanOutBeforeReduceIsRecomputed() {
    // exp(x) feeds a sum and an elementwise output: the cheap chain is duplicated, not stored.
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 6});
    Value e = op::exp(x);
    b.output("s", op::sum(e, {1}));
    b.output("e2", op::mul(e, 2.0));
    const Program p = b.finish();
    const KernelizeResult r = kernelizeProgram(p);
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(r.kernels.size(), std::size_t(2));
    for (const FusedKernel& k : r.kernels) QCOMPARE(k.stores.size(), std::size_t(1));  // e itself is never stored
    bool duplicated = false;
    for (const FusionStep& st : r.trace.steps) duplicated = duplicated || st.action == FusionAction::DuplicateChain;
    QVERIFY(duplicated);
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
  }

  // The two Kernel operations a duplicated chain is made of: what an op needs, and a kernel of
  // only those ops, renumbered, with the Read params it kept (by hand on a seven-op kernel).
  void kernelSubsetKeepsDependencies() {
    Kernel k;
    const int32_t p0 = k.param(ParamKind::Read, DType::F32, {4}), p1 = k.param(ParamKind::Read, DType::F32, {4});
    const int32_t out = k.param(ParamKind::ReadWrite, DType::F32, {4});
    const int32_t e = k.unary(p1, UnaryOp::Exp), n = k.unary(p0, UnaryOp::Neg);
    const int32_t a = k.binary(e, e, BinaryOp::Add), st = k.store(out, n);
    QCOMPARE(k.dependencies({a}), (std::vector<bool>{false, true, false, true, false, true, false}));
    QCOMPARE(k.dependencies({st}), (std::vector<bool>{true, false, true, false, true, false, true}));
    QCOMPARE(k.dependencies({a, st}), std::vector<bool>(7, true));
    const Kernel::Subset chain = k.subset(k.dependencies({a}));
    QCOMPARE(chain.map, (std::vector<int32_t>{-1, 0, -1, 1, -1, 2, -1}));
    QCOMPARE(chain.readParams, std::vector<int32_t>{1});  // p1, the second Read param
    QCOMPARE(chain.kernel.size(), std::size_t(3));
    QCOMPARE(chain.kernel.at(1).src, std::vector<int32_t>{0});
    QCOMPARE(chain.kernel.at(2).src, (std::vector<int32_t>{1, 1}));
    QCOMPARE(chain.kernel.at(2).binaryOp(), BinaryOp::Add);
    const Kernel::Subset stored = k.subset(k.dependencies({st}));
    QCOMPARE(stored.readParams, std::vector<int32_t>{0});
    QCOMPARE(stored.kernel.at(3).src, (std::vector<int32_t>{1, 2}));  // store(out, neg(p0)), renumbered
    QCOMPARE(verifyKernel(stored.kernel), std::string());
  }

  void constantOutputAndLeafOutput() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {3});
    b.output("x", x);
    b.output("c", b.scalar(2.5, DType::F32));
    b.output("y", op::add(x, 1.0));
    const Program p = b.finish();
    const KernelizeResult r = kernelizeProgram(p);
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    // The constant gets a kernel that stores it; the leaf needs none; y is one kernel.
    QCOMPARE(r.kernels.size(), std::size_t(2));
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
  }

  void sameClassRequestedTwiceAndBadOutput() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {3});
    Value y = op::exp(x);
    b.output("a", y);
    b.output("b", y);
    const Program p = b.finish();
    const KernelizeResult r = kernelizeProgram(p);
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(r.kernels.size(), std::size_t(1));
    QCOMPARE(r.kernels[0].stores.size(), std::size_t(1));
    checkReplay(r);
    const KernelizeResult bad = kernelize(p.graph, {ClassId(9999)});
    QVERIFY(bad.error.has_value());
    QCOMPARE(bad.error->code(), ErrorCode::Usage);
    QVERIFY(bad.kernels.empty());
  }

  void aotKernelsAreBoundaries() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {8, 16});
    Value w = b.input("w", DType::F32, {16, 4});
    Value bias = b.input("b", DType::F32, {4});
    Value mm = op::matmul(x, w);
    b.output("out", op::relu(op::add(mm, bias)));
    Program p = b.finish();
    Node k;
    k.kind = NodeKind::Kernel;
    k.in = {x.id(), w.id()};
    k.out = {mm.id()};
    k.device = 0;
    p.graph.addAlternative(mm.id(), k);
    const KernelizeResult r = kernelizeProgram(p);
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    // Pass 1 only (one device): the bias+relu kernel loads the AOT result; the matmul form is not fused.
    QCOMPARE(r.kernels.size(), std::size_t(1));
    QCOMPARE(countKind(r.kernels[0], KOpKind::Reduce), 0);
    QVERIFY(std::find(r.kernels[0].loads.begin(), r.kernels[0].loads.end(), mm.id()) != r.kernels[0].loads.end());
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
  }

  void aotOnTwoDevicesRunsSecondPass() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {8, 16});
    Value w1 = b.input("w1", DType::F32, {16, 4});
    Value w2 = b.input("w2", DType::F32, {4, 3});
    Value h = op::matmul(x, w1);
    Value hr = op::relu(h);
    Value y = op::matmul(hr, w2);
    b.output("y", op::tanh(y));
    Program p = b.finish();
    auto addKernel = [&](Value out, std::vector<ClassId> in, uint32_t device) {
      Node k;
      k.kind = NodeKind::Kernel;
      k.in = std::move(in);
      k.out = {out.id()};
      k.device = device;
      p.graph.addAlternative(out.id(), k);
    };
    addKernel(h, {x.id(), w1.id()}, 0);
    addKernel(y, {hr.id(), w2.id()}, 1);
    const KernelizeResult r = kernelizeProgram(p);
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
    // Pass 1: relu(h) (stored for the second AOT kernel) and tanh(y): 2 kernels, no reduce.
    // Pass 2, device 0: y's matmul form is fused with relu and stored as an AOT class, then tanh.
    // Pass 2, device 1: h's form is fused, stored; relu stored for y's kernel; tanh.
    int pass1 = 0, reduceKernels = 0;
    for (const FusedKernel& k : r.kernels) {
      QVERIFY(k.phase.rfind("pass 1", 0) == 0 || k.phase.rfind("pass 2, device ", 0) == 0);
      if (k.phase.rfind("pass 1", 0) == 0) {
        ++pass1;
        QCOMPARE(countKind(k, KOpKind::Reduce), 0);
      }
      if (countKind(k, KOpKind::Reduce)) ++reduceKernels;
    }
    QCOMPARE(pass1, 2);
    QVERIFY(reduceKernels >= 2);
    bool aotStore = false;
    for (const FusionStep& st : r.trace.steps) aotStore = aotStore || st.rule == "aot-class-stored";
    QVERIFY(aotStore);
  }

  void deviceCopyIsMaterializedAndReloaded() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 3});
    Value e = op::exp(x);
    b.output("e", e);  // placeholder output so the builder finishes; replaced below
    Program p = b.finish();
    const ClassId copy = p.graph.addToDevice(e.id(), 1, 0.0);
    Node neg;
    neg.kind = NodeKind::Unary;
    neg.op = static_cast<uint8_t>(UnaryOp::Neg);
    neg.in = {copy};
    const ClassId y = p.graph.add(neg);
    const KernelizeResult r = kernelize(p.graph, {y});
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    // exp(x) is stored (the copy's source must be in memory); neg loads the copied value.
    QCOMPARE(r.kernels.size(), std::size_t(2));
    QCOMPARE(r.kernels[0].stores, std::vector<ClassId>{e.id()});
    QCOMPARE(r.kernels[1].loads, std::vector<ClassId>{copy});
    QCOMPARE(r.kernels[1].stores, std::vector<ClassId>{y});
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
  }

  // A bitcast fuses like a cast: into the kernel of its operand, between the neg and the store.
  void bitcastFusesIntoItsOperandsKernel() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4});
    Value n = op::neg(x);
    Node bc;
    bc.kind = NodeKind::Bitcast;
    bc.dtype = DType::I32;
    bc.in = {n.id()};
    Value y = b.add(bc);
    b.output("y", y);
    const KernelizeResult r = kernelizeProgram(b.finish());
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(r.kernels.size(), std::size_t(1));
    QCOMPARE(r.kernels[0].stores, std::vector<ClassId>{y.id()});
    QVERIFY(r.kernels[0].kernel.print().find("bitcast") != std::string::npos);
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
  }

  void randomProgramsReplayAndInvariants() {
    std::map<std::string, int> ops, rules;
    int kernels = 0, programs = 0;
    for (uint64_t seed = 1; seed <= 250; ++seed) {
      const Program p = randomProgram(seed, {}, &ops);
      const KernelizeResult r = kernelizeProgram(p);
      const QString tag = QString("seed %1\n").arg(seed) + QString::fromStdString(p.graph.dump());
      QVERIFY2(!r.error, qPrintable(tag + (r.error ? r.error->what() : "")));
      const QString problems = kernelProblems(r);
      QVERIFY2(problems.isEmpty(), qPrintable(tag + problems));
      const TraceState replayed = r.trace.finalState();
      QVERIFY2(replayed == traceStateOf(r.kernels), qPrintable(tag + QString::fromStdString(traceStateStr(replayed))));
      // Every requested output is stored by exactly one kernel, unless it is a leaf.
      for (const ProgramOutput& o : p.outputs) {
        if (p.graph.isLeaf(o.cls)) continue;
        int stored = 0;
        for (const FusedKernel& k : r.kernels) stored += static_cast<int>(std::count(k.stores.begin(), k.stores.end(), o.cls));
        QVERIFY2(stored == 1, qPrintable(tag + QString("output %%1 stored %2 times").arg(o.cls.v).arg(stored)));
      }
      kernels += static_cast<int>(r.kernels.size());
      ++programs;
      for (const FusionStep& st : r.trace.steps) ++rules[st.rule];
    }
    QString dist;
    for (const auto& [name, n] : ops) dist += QString(" %1=%2").arg(QString::fromStdString(name)).arg(n);
    QString ruleDist;
    for (const auto& [name, n] : rules) ruleDist += QString(" %1=%2").arg(QString::fromStdString(name)).arg(n);
    qInfo("%d random programs, %d kernels; ops:%s; rules:%s", programs, kernels, qPrintable(dist), qPrintable(ruleDist));
    for (const char* must : {"pad", "flip", "narrow", "where", "reduce", "expand", "permute"})
      QVERIFY2(ops[must] > 0, must);
  }

  void fusedKernelsComputeTheProgram() {
    std::vector<std::pair<QString, Program>> programs;
    {
      ProgramBuilder b;
      Value x = b.input("x", DType::F32, {3, 7});
      b.output("y", op::softmax(x, -1));
      programs.push_back({"softmax", b.finish()});
    }
    {
      ProgramBuilder b;
      Value x = b.input("x", DType::F32, {4, 6});
      b.output("y", op::layerNorm(x, b.input("w", DType::F32, {6}), b.input("b", DType::F32, {6})));
      programs.push_back({"layer_norm", b.finish()});
    }
    {
      ProgramBuilder b;
      Value x = b.input("x", DType::F32, {5, 3});
      b.output("y", op::relu(op::add(op::matmul(x, b.input("w", DType::F32, {3, 4})), b.input("b", DType::F32, {4}))));
      programs.push_back({"mlp", b.finish()});
    }
    for (uint64_t seed = 1; seed <= 250; ++seed) programs.push_back({QString("random seed %1").arg(seed), randomProgram(seed)});
    RandomProgramOptions longChains;
    longChains.minOps = longChains.maxOps = 200;
    longChains.reusePercent = 5;
    for (uint64_t seed = 1000; seed < 1010; ++seed)
      programs.push_back({QString("long random seed %1").arg(seed), randomProgram(seed, longChains)});
    for (const auto& [name, p] : programs) {
      const KernelizeResult r = kernelizeProgram(p);
      QVERIFY2(!r.error, qPrintable(name));
      const QString m = numericMismatch(p, r, 7);
      QVERIFY2(m.isEmpty(), qPrintable(name + ": " + m + "\n" + QString::fromStdString(p.graph.dump())));
    }
  }

  void transformerBlock() {
    ProgramBuilder b;
    const int64_t t = 6, d = 8, h = 16;
    Value x = b.input("x", DType::F32, {t, d});
    auto w = [&](const char* name, Shape s) { return b.input(name, DType::F32, s); };
    Value q = op::matmul(x, w("wq", {d, d})), k = op::matmul(x, w("wk", {d, d})), v = op::matmul(x, w("wv", {d, d}));
    Value a = op::matmul(op::scaledDotProductAttention(q, k, v, true), w("wo", {d, d}));
    Value h1 = op::layerNorm(op::add(x, a), w("g1", {d}), w("b1", {d}));
    Value m = op::linear(op::gelu(op::linear(h1, w("w1", {d, h}), w("c1", {h}))), w("w2", {h, d}), w("c2", {d}));
    b.output("y", op::layerNorm(op::add(h1, m), w("g2", {d}), w("b2", {d})));
    const Program p = b.finish();
    const KernelizeResult r = kernelizeProgram(p);
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    QCOMPARE(kernelProblems(r), QString());
    checkReplay(r);
    int reduces = 0;
    for (const FusedKernel& k2 : r.kernels) reduces += countKind(k2, KOpKind::Reduce) ? 1 : 0;
    QString names;
    for (const FusedKernel& k2 : r.kernels) names += " " + QString::fromStdString(k2.kernel.name());
    qInfo("transformer block: %d classes, %d kernels (%d with a reduce), %d steps:%s", int(p.graph.classCount()),
          int(r.kernels.size()), reduces, int(r.trace.steps.size()), qPrintable(names));
    const QString mm = numericMismatch(p, r, 3);
    QVERIFY2(mm.isEmpty(), qPrintable(mm));
  }

  void largeProgramsStayFast() {
    // A deep MLP and a long random program: the per-class invariant checks must not make the
    // kernelizer quadratic in practice.
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 16});
    for (int i = 0; i < 150; ++i) {
      Value w = b.input("w" + std::to_string(i), DType::F32, {16, 16});
      x = op::softmax(op::relu(op::matmul(x, w)), -1);
    }
    b.output("y", x);
    const Program p = b.finish();
    QElapsedTimer timer;
    timer.start();
    const KernelizeResult r = kernelizeProgram(p);
    const qint64 ms = timer.elapsed();
    QVERIFY2(!r.error, r.error ? r.error->what() : "");
    // Per layer: matmul+relu (stored: it follows a reduce and feeds both max and sub), and the
    // softmax as one row kernel (max, exp-sum and divide inlined).
    QCOMPARE(r.kernels.size(), std::size_t(150 * 2));
    checkReplay(r);
    RandomProgramOptions o;
    o.minOps = o.maxOps = 600;
    o.reusePercent = 2;  // long chains
    const Program big = randomProgram(99, o);
    timer.restart();
    const KernelizeResult rb = kernelizeProgram(big);
    const qint64 msBig = timer.elapsed();
    QVERIFY2(!rb.error, rb.error ? rb.error->what() : "");
    checkReplay(rb);
    qInfo("deep MLP: %d classes -> %d kernels in %lld ms; random: %d classes (%d on output paths) -> %d kernels in %lld ms",
          int(p.graph.classCount()), int(r.kernels.size()), ms, int(big.graph.classCount()),
          int(big.graph.topoOrder(big.outputClasses()).size()), int(rb.kernels.size()), msBig);
    QVERIFY(ms < 5000 && msBig < 5000);
  }

  void randomProgramIsDeterministic() {
    const Program a = randomProgram(42), b = randomProgram(42), c = randomProgram(43);
    QCOMPARE(a.cacheKey(), b.cacheKey());
    QVERIFY(a.cacheKey() != c.cacheKey());
    RandomProgramOptions o;
    o.minOps = 6;
    for (uint64_t s = 0; s < 50; ++s) {
      const Program p = randomProgram(s, o);
      int nonLeaf = 0;
      for (std::size_t i = 0; i < p.graph.classCount(); ++i)
        if (!p.graph.isLeaf(ClassId(i)) && !p.graph.isConst(ClassId(i))) ++nonLeaf;
      QVERIFY2(nonLeaf >= 6, qPrintable(QString("seed %1: %2 ops").arg(s).arg(nonLeaf)));
      for (std::size_t i = 0; i < p.graph.classCount(); ++i) QVERIFY(p.graph.shape(ClassId(i)).size() <= 4);
    }
  }
};

QTEST_APPLESS_MAIN(TestKernelizer)
#include "test_kernelizer.moc"
