// Reverse-mode autograd: the gradient of every differentiable primitive (and of the composites
// built from them) against central finite differences in f64 on the host executor, and against
// PyTorch's gradients for composite programs (tests/data/grad_cases.json, made offline by
// tests/data/gen_grad_cases.py).
#include <QtTest>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/eval/host_executor.h"
#include "engine/io/program_source.h"
#include "engine/program/autograd.h"

using json = nlohmann::json;
using namespace ks;

namespace {

std::string sourceDir() {
  const char* e = std::getenv("KS_SOURCE_DIR");
  return e ? e : KS_SOURCE_DIR;
}

// A program whose output "loss" is a scalar of `expr` weighted by a random input w of the
// expression's shape (so every element's gradient differs), and whose other outputs are the
// gradients of loss with respect to x and z.
std::string fdProgram(const std::string& shapeX, const std::string& shapeW, const std::string& expr,
                      const std::string& dtypeX = "f64") {
  std::ostringstream os;
  os << "input x: " << dtypeX << shapeX << "\ninput z: f64" << shapeX << "\ninput w: f64" << shapeW << "\n"
     << "f = " << expr << "\nloss = sum(cast(f, f64) * w)\ngx, gz = grad(loss, [x, z])\noutput loss, gx, gz\n";
  return os.str();
}

double lossAt(const Program& p, const std::vector<HostTensor>& leaves) {
  return HostExecutor::run(p.graph, {p.outputs[0].cls}, leaves)[0].getDouble(0);
}

// Central differences with a relative step; agreement 1e-6 + 1e-4 |g| (f64), or looser for
// programs that compute in f32 somewhere (`tol` scales both terms).
void checkAgainstDifferences(const std::string& text, double tol, double relStep) {
  Program p = parseKs(text, "fd.ks");
  std::vector<HostTensor> leaves = bindLeaves(p, {}, 7);
  std::vector<ClassId> outs = p.outputClasses();
  const std::vector<HostTensor> r = HostExecutor::run(p.graph, outs, leaves);
  for (int k = 0; k < 2; ++k) {
    const ProgramInput& in = p.inputs[k];
    const HostTensor& g = r[1 + k];
    QCOMPARE(g.shape(), p.graph.leaf(in.leaf).shape);
    for (int64_t e = 0; e < g.numel(); ++e) {
      HostTensor& x = leaves[in.leaf];
      const double x0 = x.getDouble(e);
      const double h = relStep * std::max(1.0, std::abs(x0));
      x.setDouble(e, x0 + h);
      const double hp = x.getDouble(e) - x0;  // the step the dtype could represent
      const double lp = lossAt(p, leaves);
      x.setDouble(e, x0 - h);
      const double hm = x0 - x.getDouble(e);
      const double lm = lossAt(p, leaves);
      x.setDouble(e, x0);
      const double fd = (lp - lm) / (hp + hm);
      const double an = g.getDouble(e);
      const double bound = tol * (1e-6 + 1e-4 * std::abs(fd));
      if (!(std::abs(an - fd) <= bound))
        QFAIL(qPrintable(QString("%1: d loss / d %2[%3]: autograd %4, differences %5\n%6")
                             .arg(QTest::currentDataTag())
                             .arg(QString::fromStdString(in.name))
                             .arg(e)
                             .arg(an, 0, 'g', 12)
                             .arg(fd, 0, 'g', 12)
                             .arg(QString::fromStdString(text))));
    }
  }
}

}  // namespace

class TestAutograd : public QObject {
  Q_OBJECT
 private slots:
  void primitivesAgainstDifferences_data() {
    QTest::addColumn<QString>("shapeW");
    QTest::addColumn<QString>("expr");
    // x and z are f64[3, 4], uniform in [-1, 1); "p" forms keep arguments positive.
    const char* pos = "(x * x + 0.5)";
    const char* posz = "(z * z + 0.5)";
    for (const char* u : {"neg", "abs", "exp", "exp2", "sin", "cos", "tan", "tanh", "erf", "floor", "ceil", "round",
                          "trunc", "sign"})
      QTest::newRow(u) << "[3, 4]" << QString("unary(x, \"%1\") + z").arg(u);
    for (const char* u : {"log", "log2", "sqrt", "rsqrt", "reciprocal"})
      QTest::newRow(u) << "[3, 4]" << QString("unary(%1, \"%2\") + z").arg(pos, u);
    for (const char* b : {"add", "sub", "mul", "max", "min"})
      QTest::newRow(b) << "[3, 4]" << QString("binary(x, z, \"%1\")").arg(b);
    QTest::newRow("div") << "[3, 4]" << QString("binary(x, %1, \"div\")").arg(posz);
    QTest::newRow("mod") << "[3, 4]" << QString("binary(x * 3, %1, \"mod\")").arg(posz);
    QTest::newRow("pow") << "[3, 4]" << QString("binary(%1, z * 2, \"pow\")").arg(pos);
    QTest::newRow("where") << "[3, 4]" << "where(x > z, x * 3, z * z)";
    QTest::newRow("reduce sum") << "[3]" << "reduce_sum(x * z, [1])";
    QTest::newRow("reduce max") << "[4]" << "reduce_max(x + z, [0])";
    QTest::newRow("reduce min") << "[3]" << "reduce_min(x - z, [1])";
    QTest::newRow("reduce prod") << "[3]" << "reduce_prod(x + z, [1])";
    QTest::newRow("expand") << "[3, 5, 4]" << "expand(reshape(x, [3, 1, 4]), [3, 5, 4]) * expand(reshape(z, [3, 1, 4]), [3, 5, 4])";
    QTest::newRow("permute") << "[4, 3]" << "permute(x, [1, 0]) + permute(z * x, [1, 0])";
    QTest::newRow("reshape") << "[2, 6]" << "reshape(x * z, [2, 6])";
    QTest::newRow("pad") << "[6, 5]" << "pad(x * z, [[1, 2], [0, 1]], 0.5)";
    QTest::newRow("crop") << "[2, 2]" << "pad(x * z, [[-1, 0], [0, -2]])";
    QTest::newRow("narrow") << "[3, 2]" << "narrow(x * z, 1, 1, 2)";
    QTest::newRow("flip") << "[3, 4]" << "flip(x, [0, 1]) * z";
    QTest::newRow("contiguous") << "[3, 4]" << "contiguous(x * z)";
    QTest::newRow("broadcast add") << "[3, 4]" << "x + reduce_sum(z, [0])";
    // Composites inherit the primitives' rules.
    QTest::newRow("matmul") << "[3, 3]" << "x @ transpose(z)";
    QTest::newRow("softmax") << "[3, 4]" << "softmax(x * 3, axis=-1) * z";
    QTest::newRow("log_softmax") << "[3, 4]" << "log_softmax(x + z, axis=0)";
    QTest::newRow("layer_norm") << "[3, 4]" << "layer_norm(x, reduce_sum(z, [0]), reduce_sum(z * z, [0]))";
    QTest::newRow("gelu") << "[3, 4]" << "gelu(x + z) + gelu(x, tanh_approx=true)";
    QTest::newRow("sigmoid silu") << "[3, 4]" << "sigmoid(x) * silu(z)";
    QTest::newRow("var") << "[3]" << "var(x * z, [1])";
    QTest::newRow("max_pool") << "[1, 1, 2, 2]" << "max_pool2d(reshape(x + z, [1, 1, 3, 4]), [2, 3], [1, 1])";
    QTest::newRow("avg_pool") << "[1, 1, 2, 2]" << "avg_pool2d(reshape(x * z, [1, 1, 3, 4]), [2, 2], [1, 2])";
    QTest::newRow("conv2d") << "[1, 1, 2, 3]" << "conv2d(reshape(x, [1, 1, 3, 4]), reshape(narrow(z, 0, 0, 2), [1, 1, 2, 4]), padding=[0, 1])";
    QTest::newRow("attention") << "[1, 3, 4]"
                               << "scaled_dot_product_attention(reshape(x, [1, 3, 4]), reshape(z, [1, 3, 4]), reshape(x * z, [1, 3, 4]), causal=true)";
    QTest::newRow("mse") << "[]" << "mse(x, z)";
    QTest::newRow("slice concat") << "[3, 6]" << "concat([slice(x, 1, 0, 4, 2), z], axis=1)";
  }
  void primitivesAgainstDifferences() {
    QFETCH(QString, shapeW);
    QFETCH(QString, expr);
    checkAgainstDifferences(fdProgram("[3, 4]", shapeW.toStdString(), expr.toStdString()), 1.0, 1e-6);
  }

  // Cast: an f32 value differentiated through a widening cast; the loss is quadratic in x, so
  // central differences are exact up to f32 rounding of the step, hence the wider tolerance.
  void castAgainstDifferences() {
    const std::string text =
        "input x: f32[3, 4]\ninput z: f64[3, 4]\ninput w: f64[3, 4]\nf = cast(x, f64) * cast(x, f64) * z\n"
        "loss = sum(f * w)\ngx, gz = grad(loss, [x, z])\noutput loss, gx, gz\n";
    checkAgainstDifferences(text, 300.0, 1.0 / 256);
  }

  // Piecewise-constant ops give a zero gradient, and values of integer dtype none at all.
  void piecewiseConstantIsZero() {
    Program p = parseKs("input x: f32[5]\nl = sum(floor(x) + round(x) * sign(x))\ng = grad(l, [x])\noutput g\n", "z.ks");
    const HostTensor g = HostExecutor::run(p.graph, p.outputClasses(), bindLeaves(p, {}, 1))[0];
    for (int64_t i = 0; i < g.numel(); ++i) QCOMPARE(g.getDouble(i), 0.0);
    Program q = parseKs("input x: f32[5]\nl = sum(x * cast(x > 0, f32))\ng = grad(l, [x])\noutput g\n", "m.ks");
    const std::vector<HostTensor> leaves = bindLeaves(q, {}, 2);
    const HostTensor gq = HostExecutor::run(q.graph, q.outputClasses(), leaves)[0];
    for (int64_t i = 0; i < gq.numel(); ++i) QCOMPARE(gq.getDouble(i), leaves[q.inputs[0].leaf].getDouble(i) > 0 ? 1.0 : 0.0);
  }

  // Ties, by hand: relu at 0 and clamp at its bounds are kinks that pass no gradient (PyTorch's
  // relu and hardtanh), while two tensors that tie under maximum/minimum split it in halves
  // (torch.maximum/minimum), and a max reduction shares it among the tied elements (torch.amax).
  void kinksAtTies() {
    Program p = parseKs(
        "input x: f32[5]\ninput z: f32[5]\n"
        "lr = sum(relu(x))\nr = grad(lr, [x])\n"
        "lc = sum(clamp(x, -1, 1))\nc = grad(lc, [x])\n"
        "lm = sum(maximum(x, z) + minimum(x, z) * 3)\nmx, mz = grad(lm, [x, z])\n"
        "la = max(x + z)\nax, az = grad(la, [x, z])\n"
        "output r, c, mx, mz, ax, az\n",
        "ties.ks");
    auto tensor = [](std::vector<double> v) {
      HostTensor h(DType::F32, {static_cast<int64_t>(v.size())});
      for (std::size_t i = 0; i < v.size(); ++i) h.setDouble(static_cast<int64_t>(i), v[i]);
      return h;
    };
    const std::vector<HostTensor> r = HostExecutor::run(
        p.graph, p.outputClasses(),
        bindLeaves(p, {{"x", tensor({-1, 0, 0.5, 1, 2})}, {"z", tensor({0, 0, 0.5, 1, 0})}}, 0));
    const std::vector<std::vector<double>> want = {
        {0, 0, 1, 1, 1},        // relu: 0 at 0
        {0, 1, 1, 0, 0},        // clamp(x, -1, 1): 0 at -1 and at 1
        {3, 2, 2, 2, 1},        // x's share of max + 3 min: where x = z, 1 + 3 split in halves
        {1, 2, 2, 2, 3},        // z's share
        {0, 0, 0, 0.5, 0.5},    // max(x + z) = 2 at elements 3 and 4
        {0, 0, 0, 0.5, 0.5},
    };
    for (std::size_t o = 0; o < want.size(); ++o)
      for (std::size_t e = 0; e < want[o].size(); ++e)
        QVERIFY2(r[o].getDouble(static_cast<int64_t>(e)) == want[o][e],
                 qPrintable(QString("%1[%2] = %3, want %4").arg(QString::fromStdString(p.outputs[o].name)).arg(e)
                                .arg(r[o].getDouble(static_cast<int64_t>(e))).arg(want[o][e])));
  }

  // The backward pass shares forward classes (hashconsing): exp's gradient reuses exp(x).
  void backwardReusesForwardClasses() {
    Program p = parseKs("input x: f32[8]\ne = exp(x)\nl = sum(e)\ng = grad(l, [x])\noutput g\n", "e.ks");
    bool usesExp = false;
    for (ClassId c : p.graph.topoOrder(p.outputClasses())) {
      const Node& n = p.graph.structural(c);
      if (n.kind == NodeKind::Unary && n.unaryOp() == UnaryOp::Exp) usesExp = true;
    }
    QVERIFY(usesExp);
    std::size_t exps = 0;
    for (std::size_t c = 0; c < p.graph.classCount(); ++c) {
      const Node& n = p.graph.structural(ClassId(static_cast<uint32_t>(c)));
      exps += n.kind == NodeKind::Unary && n.unaryOp() == UnaryOp::Exp;
    }
    QCOMPARE(exps, std::size_t{1});
  }

  // Composite programs against PyTorch's gradients (float64 references, f32 programs).
  void againstPyTorch_data() {
    QTest::addColumn<int>("index");
    std::ifstream in(sourceDir() + "/tests/data/grad_cases.json");
    QVERIFY2(in, "tests/data/grad_cases.json is missing");
    const json cases = json::parse(in);
    QVERIFY(cases.size() >= 8);
    for (std::size_t i = 0; i < cases.size(); ++i)
      QTest::newRow(cases[i]["name"].get<std::string>().c_str()) << static_cast<int>(i);
  }
  void againstPyTorch() {
    QFETCH(int, index);
    std::ifstream in(sourceDir() + "/tests/data/grad_cases.json");
    const json c = json::parse(in)[index];
    Program p = parseKs(c["ks"].get<std::string>(), c["name"].get<std::string>() + ".ks");
    std::vector<std::pair<std::string, HostTensor>> given;
    for (auto& [name, t] : c["inputs"].items()) {
      HostTensor h(DType::F64, Shape(t["shape"].get<std::vector<int64_t>>()));
      const auto data = t["data"].get<std::vector<double>>();
      for (int64_t e = 0; e < h.numel(); ++e) h.setDouble(e, data[e]);
      given.emplace_back(name, std::move(h));
    }
    const std::vector<HostTensor> r = HostExecutor::run(p.graph, p.outputClasses(), bindLeaves(p, given, 0));
    for (std::size_t o = 0; o < p.outputs.size(); ++o) {
      const json& want = c["expected"][p.outputs[o].name];
      const auto data = want["data"].get<std::vector<double>>();
      QCOMPARE(r[o].numel(), static_cast<int64_t>(data.size()));
      for (int64_t e = 0; e < r[o].numel(); ++e) {
        const double got = r[o].getDouble(e), exp = data[e];
        if (!(std::abs(got - exp) <= 1e-5 + 1e-3 * std::abs(exp)))
          QFAIL(qPrintable(QString("%1[%2]: %3, PyTorch %4").arg(QString::fromStdString(p.outputs[o].name)).arg(e).arg(got).arg(exp)));
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestAutograd)
#include "test_autograd.moc"
