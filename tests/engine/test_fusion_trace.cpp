// Fusion trace: diffs that rebuild every intermediate state, JSON round trip, explanations of why
// two classes are in different kernels. Set KS_KERNELIZER_DUMP=1 to print traces and kernels.
#include <QtTest>

#include "engine/check/random_program.h"
#include "engine/kernelizer/kernelizer.h"
#include "engine/program/builder.h"

using namespace ks;

namespace {
Program softmaxProgram() {
  ProgramBuilder b;
  Value x = b.input("x", DType::F32, {4, 8});
  b.output("out", op::softmax(x, -1));
  return b.finish();
}

void dump(const char* title, const Program& p, const KernelizeResult& r) {
  if (!qEnvironmentVariableIsSet("KS_KERNELIZER_DUMP")) return;
  std::string s = std::string("==== ") + title + "\n" + p.graph.dump();
  for (const FusionStep& st : r.trace.steps)
    s += "#" + std::to_string(st.index) + " [" + st.phase + "] %" + std::to_string(st.cls) + " " + st.node + ": " +
         std::string(fusionActionName(st.action)) + " (" + st.rule + ") " + st.reason + "\n";
  for (const FusedKernel& k : r.kernels) s += "---- K" + std::to_string(k.id) + "\n" + k.kernel.print();
  qInfo("%s", s.c_str());
}

ClassId findClass(const Graph& g, NodeKind kind) {
  for (std::size_t c = 0; c < g.classCount(); ++c)
    if (g.structural(ClassId(c)).kind == kind) return ClassId(c);
  return {};
}
}  // namespace

class TestFusionTrace : public QObject {
  Q_OBJECT

 private slots:
  void stepsAreRealDecisions() {
    for (uint64_t seed = 300; seed < 360; ++seed) {
      const Program p = randomProgram(seed);
      const KernelizeResult r = kernelize(p.graph, p.outputClasses());
      if (qEnvironmentVariableIntValue("KS_DUMP_SEED") == static_cast<int>(seed)) dump("random", p, r);
      QVERIFY(!r.error);
      TraceState s;
      for (const FusionStep& st : r.trace.steps) {
        // Every decision except the start of a region changes the kernels.
        if (st.action != FusionAction::BeginRegion)
          QVERIFY2(!st.diff.empty(), qPrintable(QString("seed %1 step %2 has no change").arg(seed).arg(st.index)));
        st.diff.applyTo(s);
        // The kernels a step names exist after it, except what it removed or merged away.
        for (std::size_t i = 0; i < st.kernels.size(); ++i) {
          const bool gone = st.action == FusionAction::RemoveKernel || (st.action == FusionAction::Merge && i == 0);
          QCOMPARE(s.count(st.kernels[i]) == 1, !gone);
        }
      }
      QVERIFY(s == traceStateOf(r.kernels));
    }
  }

  void stateAfterRebuildsIntermediateStates() {
    const Program p = softmaxProgram();
    const KernelizeResult r = kernelize(p.graph, p.outputClasses());
    dump("softmax", p, r);
    QVERIFY(!r.error);
    QVERIFY(r.trace.stateAfter(0).empty());
    // The number of kernels after each step, hand-followed from the seed's rules: load x, duplicate
    // its loader for the max, ... ; three at the end of the region (max, exp-sum, divide), which
    // the row-normalization rule then inlines into one row kernel.
    std::size_t maxKernels = 0, rowSteps = 0;
    for (std::size_t n = 0; n <= r.trace.steps.size(); ++n) maxKernels = std::max(maxKernels, r.trace.stateAfter(n).size());
    for (const FusionStep& st : r.trace.steps)
      if (st.rule == "row-normalization") {
        QVERIFY(st.action == FusionAction::Merge && st.kernels.size() == 2);
        QCOMPARE(r.trace.stateAfter(st.index).size(), std::size_t(3 - rowSteps));
        ++rowSteps;
      }
    QVERIFY(maxKernels >= 3);
    QCOMPARE(rowSteps, std::size_t(2));
    QCOMPARE(r.trace.finalState().size(), std::size_t(1));
    // Incremental replay and stateAfter agree.
    TraceState s;
    for (std::size_t i = 0; i < r.trace.steps.size(); ++i) {
      r.trace.steps[i].diff.applyTo(s);
      QVERIFY(s == r.trace.stateAfter(i + 1));
    }
  }

  void jsonRoundTrip() {
    std::vector<Program> programs;
    programs.push_back(softmaxProgram());
    for (uint64_t seed = 500; seed < 520; ++seed) programs.push_back(randomProgram(seed));
    for (const Program& p : programs) {
      const KernelizeResult r = kernelize(p.graph, p.outputClasses());
      const std::string text = r.trace.toJson();
      const FusionTrace back = FusionTrace::fromJson(text);
      QCOMPARE(back.steps.size(), r.trace.steps.size());
      QCOMPARE(back.toJson(), text);
      QVERIFY(back.finalState() == traceStateOf(r.kernels));
      for (std::size_t i = 0; i < back.steps.size(); ++i) {
        QVERIFY(back.steps[i].diff.set == r.trace.steps[i].diff.set);
        QCOMPARE(back.steps[i].diff.removed, r.trace.steps[i].diff.removed);
        QCOMPARE(back.steps[i].rule, r.trace.steps[i].rule);
        QCOMPARE(back.steps[i].action, r.trace.steps[i].action);
        QCOMPARE(back.steps[i].subject, r.trace.steps[i].subject);
      }
    }
  }

  // y = x + x + ... (2,000 terms): each append is written as the class it adds, so the trace
  // grows by a constant per step (whole states would repeat up to a kernel's 512 classes per
  // step: about 1.7 KB), and reads back to the same diffs.
  void chainTraceIsProportionate() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4});
    Value y = x;
    for (int i = 1; i < 2000; ++i) y = op::add(y, x);
    b.output("y", y);
    const Program p = b.finish();
    const KernelizeResult r = kernelize(p.graph, p.outputClasses());
    QVERIFY(!r.error);
    QVERIFY(r.trace.steps.size() >= 2000);
    const std::string text = r.trace.toJson();
    const double perStep = double(text.size()) / double(r.trace.steps.size());
    qInfo("%zu steps, %zu bytes: %.0f bytes per step", r.trace.steps.size(), text.size(), perStep);
    QVERIFY2(perStep < 400, qPrintable(QString::number(perStep)));
    const FusionTrace back = FusionTrace::fromJson(text);
    QCOMPARE(back.steps.size(), r.trace.steps.size());
    for (std::size_t i = 0; i < back.steps.size(); ++i) QVERIFY(back.steps[i].diff.set == r.trace.steps[i].diff.set);
    QVERIFY(back.finalState() == traceStateOf(r.kernels));
  }

  void jsonRoundTripKeepsError() {
    FusionTrace t;
    t.error = "kernelizer step 3: boom";
    t.errorStep = 3;
    const FusionTrace back = FusionTrace::fromJson(t.toJson(2));
    QCOMPARE(back.error, t.error);
    QCOMPARE(back.errorStep, 3);
  }

  void malformedJsonIsAParseError() {
    for (const char* text : {"", "{", "[]", R"({"format":"kernelscope-fusion-trace","steps":[{"index":0}]})",
                             R"({"format":"other","steps":[]})",
                             R"({"format":"kernelscope-fusion-trace","version":3,"steps":[]})",
                             // grows a kernel no earlier step set
                             R"({"format":"kernelscope-fusion-trace","version":2,"steps":[{"index":0,"class":0,"node":"add",)"
                             R"("action":"append op","rule":"elementwise","reason":"","kernels":[0],"phase":"",)"
                             R"("diff":{"set":[],"removed":[],"grown":[{"id":0,"classes":[1],"loads":[],"stores":[],"ops":2}]}}]})"}) {
      bool threw = false;
      try {
        (void)FusionTrace::fromJson(text);
      } catch (const Error& e) {
        threw = e.code() == ErrorCode::Parse;
      }
      QVERIFY2(threw, text);
    }
  }

  void explainSameKernel() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4});
    Value a = op::exp(x);
    Value c = op::neg(a);
    b.output("y", c);
    const Program p = b.finish();
    const KernelizeResult r = kernelize(p.graph, p.outputClasses());
    const Separation s = r.trace.explainSeparation(a.id(), c.id(), &p.graph);
    QVERIFY(s.sameKernel);
    QVERIFY(QString::fromStdString(s.text).contains("same kernel"));
    // A leaf is loaded, not computed.
    const Separation l = r.trace.explainSeparation(x.id(), c.id(), &p.graph);
    QVERIFY(!l.sameKernel);
    QVERIFY2(QString::fromStdString(l.text).contains("kernel input"), l.text.c_str());
  }

  void explainStoreOnPath() {
    // sum(x) over the first axis expanded back onto x: the sum varies along the output's rows, so
    // the expand stores it and the final sub is in another kernel.
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {5, 6});
    Value s = op::sum(x, {0}, true);
    Value y = op::sub(x, s);
    b.output("y", y);
    const Program p = b.finish();
    const KernelizeResult r = kernelize(p.graph, p.outputClasses());
    dump("sum-expand", p, r);
    const ClassId red = findClass(p.graph, NodeKind::Reduce);
    const Separation sep = r.trace.explainSeparation(red, y.id(), &p.graph);
    QVERIFY(!sep.sameKernel);
    QCOMPARE(QString::fromStdString(sep.rule), QString("expand-stores-computed"));
    QVERIFY(r.trace.steps[sep.step].action == FusionAction::StoreClass);
    // The same question in the other order gives the same step.
    QCOMPARE(r.trace.explainSeparation(y.id(), red, &p.graph).step, sep.step);
    // Without the graph the answer still names a step.
    QVERIFY(r.trace.explainSeparation(red, y.id()).step >= 0);
  }

  void explainRowNormalization() {
    // sum(x) over the last axis broadcast back: one row kernel; the answer names the rule.
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {5, 6});
    Value y = op::sub(x, op::sum(x, {1}, true));
    b.output("y", y);
    const Program p = b.finish();
    const KernelizeResult r = kernelize(p.graph, p.outputClasses());
    const ClassId red = findClass(p.graph, NodeKind::Reduce);
    const Separation sep = r.trace.explainSeparation(red, y.id(), &p.graph);
    QVERIFY(sep.sameKernel);
    QCOMPARE(QString::fromStdString(sep.rule), QString("row-normalization"));
    QCOMPARE(sep.step, int32_t(r.trace.steps.size() - 1));
    QCOMPARE(r.kernels.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(r.trace.steps.back().rule), QString("row-normalization"));
    QVERIFY(r.trace.steps.back().action == FusionAction::Merge);
  }

  void explainSplitByDuplication() {
    // exp(x) is first appended to x's kernel, then its chain moves to the sum's kernel when the
    // sum takes it: the duplicate step separates exp from the elementwise consumer only if the
    // original is pruned. Here exp has two consumers, so it lives in both kernels.
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 6});
    Value e = op::exp(x);
    Value s = op::sum(e, {1});
    Value m = op::mul(e, 2.0);
    b.output("s", s);
    b.output("m", m);
    const Program p = b.finish();
    const KernelizeResult r = kernelize(p.graph, p.outputClasses());
    dump("duplicate", p, r);
    QVERIFY(r.trace.explainSeparation(e.id(), s.id(), &p.graph).sameKernel);
    QVERIFY(r.trace.explainSeparation(e.id(), m.id(), &p.graph).sameKernel);
    const Separation sm = r.trace.explainSeparation(s.id(), m.id(), &p.graph);
    QVERIFY(!sm.sameKernel);
    QVERIFY(sm.step >= 0);
    QCOMPARE(QString::fromStdString(sm.rule), QString("recompute-chain"));
  }
};

QTEST_APPLESS_MAIN(TestFusionTrace)
#include "test_fusion_trace.moc"
