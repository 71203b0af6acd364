// Training programs: params updated with `<-` carry over between the steps of one session, every
// read sees the old value, and the samples' loss curves match PyTorch's
// (tests/data/training_refs.json, made offline by tests/data/gen_training_refs.py).
#include <QtTest>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/devices/device_info.h"
#include "engine/io/program_source.h"
#include "engine/plan/gemm_step.h"
#include "engine/session/session.h"
#include "tests/require_opencl.h"

using namespace ks;

namespace {

std::string sourceDir() {
  const char* e = std::getenv("KS_SOURCE_DIR");
  return e ? e : KS_SOURCE_DIR;
}

SessionOptions hostOnly() {
  SessionOptions o;
  o.devices = "host";
  o.tune = TuneLevel::None;
  o.cache = "none";
  return o;
}

double scalarOutput(const RunRecord& r, const std::string& name) {
  for (const OutputValue& o : r.outputs)
    if (o.name == name) return o.value.getDouble(0);
  throw std::runtime_error("no output " + name);
}

}  // namespace

class TestTraining : public QObject {
  Q_OBJECT
 private slots:
  // Reads of a param before and after its `<-` line see the old value; the next step sees the new.
  void updatesAreWrittenAfterEveryRead() {
    const char* text =
        "param w: f32[3] = full(2.0)\n"
        "before = sum(w)\n"
        "w <- w * 3 + 1\n"
        "after = sum(w)\n"
        "output before, after\n";
    Session s(parseKs(text, "u.ks"), hostOnly());
    const RunRecord& r1 = s.run({}, true);
    QCOMPARE(scalarOutput(r1, "before"), 6.0);
    QCOMPARE(scalarOutput(r1, "after"), 6.0);
    QCOMPARE(r1.updates.size(), std::size_t{1});
    QCOMPARE(r1.updates[0].name, std::string("w"));
    QCOMPARE(r1.updates[0].value.getDouble(0), 7.0);
    const RunRecord& r2 = s.run({}, true);
    QCOMPARE(scalarOutput(r2, "before"), 21.0);
    QCOMPARE(r2.step, 1);
    QVERIFY(r2.verifyPassed);
    QCOMPARE(s.paramValues()[0].getDouble(2), 22.0);
  }

  // A program without updates gives the same outputs at every step.
  void programsWithoutUpdatesRepeat() {
    Session s(parseKs("param w: f32[4] = normal(seed=3)\noutput y = sum(w * w)\n", "r.ks"), hostOnly());
    const double a = scalarOutput(s.run({}, false), "y");
    QCOMPARE(scalarOutput(s.run({}, false), "y"), a);
  }

  // Fifty SGD steps of a small regression: the loss falls, and ends far below where it started.
  void toyTrainingLossDecreases() {
    const char* text =
        "input x: f32[32, 4]\n"
        "param w: f32[4, 1] = normal(std=0.5, seed=5)\n"
        "param b: f32[1] = zeros\n"
        "const target_w: f32[4, 1] = [[1.5], [-2.0], [0.5], [3.0]]\n"
        "loss = mse(linear(x, w, b), x @ target_w + 0.25)\n"
        "gw, gb = grad(loss, [w, b])\n"
        "w <- w - 0.2 * gw\n"
        "b <- b - 0.2 * gb\n"
        "output loss\n";
    Session s(parseKs(text, "toy.ks"), hostOnly());
    std::vector<double> losses;
    for (int k = 0; k < 50; ++k) losses.push_back(scalarOutput(s.run({}, k % 10 == 0), "loss"));
    for (int k = 1; k < 50; ++k) QVERIFY2(losses[k] < losses[k - 1], qPrintable(QString("step %1").arg(k)));
    QVERIFY2(losses.back() < 1e-3 * losses.front(), qPrintable(QString::number(losses.back())));
    for (const RunRecord& r : s.runs()) QVERIFY(!r.verified || r.verifyPassed);
  }

  // The samples' losses against PyTorch, step by step (same initial params and inputs).
  void samplesMatchPyTorch_data() {
    QTest::addColumn<QString>("sample");
    QTest::newRow("mlp_momentum") << "mlp_momentum";
    QTest::newRow("mlp_adam") << "mlp_adam";
    QTest::newRow("mlp_train") << "mlp_train";  // 784-512-512-10: a few seconds on the host executor
  }
  void samplesMatchPyTorch() {
    QFETCH(QString, sample);
    std::ifstream in(sourceDir() + "/tests/data/training_refs.json");
    QVERIFY(in);
    const nlohmann::json ref = nlohmann::json::parse(in).at(sample.toStdString());
    Session s(loadProgramFile(sourceDir() + "/samples/" + sample.toStdString() + ".ks"), hostOnly());
    const int steps = ref.at("steps").get<int>();
    for (int k = 0; k < steps; ++k) {
      const double got = scalarOutput(s.run({}, false), "loss");
      const double want = ref.at("loss")[k].get<double>();
      if (!(std::abs(got - want) <= 1e-4 * (1 + k) * std::abs(want) + 1e-5))
        QFAIL(qPrintable(QString("%1 step %2: loss %3, PyTorch %4").arg(sample).arg(k + 1).arg(got, 0, 'g', 9).arg(want, 0, 'g', 9)));
    }
  }

  // The same samples on an OpenCL device, every step checked against the host oracle and the first
  // step's loss against PyTorch. A backward pass makes multi-output kernels whose operands come
  // from several kernelization passes; the plan must still run each producer before its readers.
  // With openblas the backward matmuls (x^T @ g for a weight, g @ w^T for a hidden value) are
  // GEMMs too: 2 forward + 3 backward in these two-layer perceptrons.
  void samplesMatchOnOpenCl_data() {
    QTest::addColumn<QString>("sample");
    QTest::addColumn<QString>("devices");
    for (const char* s : {"mlp_momentum", "mlp_adam"}) {
      QTest::newRow(s) << s << "opencl:0:0";
      QTest::newRow((std::string(s) + " + openblas").c_str()) << s << "opencl:0:0,openblas";
    }
  }
  void samplesMatchOnOpenCl() {
    QFETCH(QString, sample);
    QFETCH(QString, devices);
    SessionOptions o = hostOnly();
    o.devices = devices.toStdString();
    std::ifstream in(sourceDir() + "/tests/data/training_refs.json");
    QVERIFY(in);
    const nlohmann::json ref = nlohmann::json::parse(in).at(sample.toStdString());
    bool haveOpenCl = false;
    for (const DeviceInfo& d : discoverDevices()) haveOpenCl = haveOpenCl || d.compiles();
    if (!haveOpenCl) KS_SKIP_WITHOUT_OPENCL();
    auto s = std::make_unique<Session>(loadProgramFile(sourceDir() + "/samples/" + sample.toStdString() + ".ks"), o);
    for (int k = 0; k < 3; ++k) {
      const RunRecord& r = s->run({}, true);
      if (devices.contains("openblas")) {  // five products, some with an epilogue as well
        std::size_t products = 0;
        for (const MatmulMatch& m : s->trace().matches) products += isGemmProduct(s->program().graph, m.out);
        QCOMPARE(products, std::size_t{5});
      }
      QVERIFY2(r.verifyPassed, qPrintable(QString("%1 step %2 differs from the host").arg(sample).arg(k + 1)));
      const double got = scalarOutput(r, "loss"), want = ref.at("loss")[k].get<double>();
      QVERIFY2(std::abs(got - want) <= 1e-4 * (1 + k) * std::abs(want) + 1e-5,
               qPrintable(QString("step %1: loss %2, PyTorch %3").arg(k + 1).arg(got).arg(want)));
    }
  }

  // The encoder block's SGD steps on PoCL with openblas: every step equals the host's, the loss
  // falls, and the backward matmuls (weights summed over the batch, attention's two products per head) run as GEMMs.
  void transformerTrainsOnDevices() {
    bool haveOpenCl = false;
    for (const DeviceInfo& d : discoverDevices()) haveOpenCl = haveOpenCl || d.compiles();
    if (!haveOpenCl) KS_SKIP_WITHOUT_OPENCL();
    SessionOptions o = hostOnly();
    o.devices = "opencl:0:0,openblas";
    Session s(loadProgramFile(sourceDir() + "/samples/transformer_train.ks"), o);
    double last = 0;
    for (int k = 0; k < 3; ++k) {
      const RunRecord& r = s.run({}, true);
      QVERIFY2(r.verifyPassed, qPrintable(QString("step %1 differs from the host").arg(k + 1)));
      const double loss = scalarOutput(r, "loss");
      if (k > 0) QVERIFY2(loss < last, qPrintable(QString("step %1: loss %2 after %3").arg(k + 1).arg(loss).arg(last)));
      last = loss;
    }
    QVERIFY2(s.trace().matches.size() >= 16, qPrintable(QString::number(s.trace().matches.size())));
  }
};

QTEST_GUILESS_MAIN(TestTraining)
#include "test_training.moc"
