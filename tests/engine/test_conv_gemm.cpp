// Convolutions as GEMMs: the contraction matcher finds the im2col form of the .ks conv2d and of
// the ONNX importer's Conv (stride, padding, dilation, groups, batch, 1-D to 3-D), every GEMM it
// proposes computes the host executor's value of its class from the host's values of the two
// buffers it reads, and the whole programs run on PoCL with openblas equal to the host (or to
// ONNX's stored outputs).
#include <QtTest>

#include <filesystem>
#include <sstream>

#include "engine/check/onnx_check.h"
#include "engine/core/tolerance.h"
#include "engine/devices/device_info.h"
#include "engine/devices/gemm_gather.h"
#include "engine/devices/openblas_gemm.h"
#include "engine/eval/host_executor.h"
#include "engine/io/program_source.h"
#include "engine/plan/contraction_matcher.h"
#include "engine/plan/gemm_step.h"
#include "engine/plan/strided_view.h"
#include "engine/session/session.h"
#include "tests/require_opencl.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

struct ConvCase {
  const char* name;
  Shape x, w;
  const char* args;  // conv2d keyword arguments
  bool gemm;         // the matcher turns it into one (batched) GEMM
};

// Two groups over a batch of 2 need a two-level batch (weights per group, inputs per image and
// group): the weights are gathered too, one copy per image.
const ConvCase kCases[] = {
    {"lenet c1", {16, 1, 28, 28}, {6, 1, 5, 5}, "padding=[2, 2]", true},
    {"strided padded", {2, 3, 9, 9}, {4, 3, 3, 3}, "stride=[2, 2], padding=[1, 1]", true},
    {"dilated", {1, 4, 10, 10}, {5, 4, 3, 3}, "dilation=[2, 2]", true},
    {"1x1", {2, 8, 6, 6}, {16, 8, 1, 1}, "", true},
    {"rectangular", {3, 2, 7, 9}, {3, 2, 2, 4}, "stride=[1, 2], padding=[1, 0]", true},
    {"groups batch 1", {1, 6, 7, 7}, {9, 2, 3, 3}, "groups=3", true},
    {"depthwise", {1, 4, 8, 8}, {4, 1, 3, 3}, "padding=[1, 1], groups=4", true},
    {"groups batch 2", {2, 4, 6, 6}, {4, 2, 3, 3}, "groups=2", true},
    {"depthwise batch 4", {4, 3, 7, 7}, {3, 1, 3, 3}, "padding=[1, 1], groups=3", true},
};

// Programs whose GEMM is followed by what its step's epilogue does on the host; `end` names the
// op the longest epilogue ends on (the program's output unless given).
struct EpilogueCase {
  const char* name;
  const char* body;  // after the input and params below
};
const EpilogueCase kEpilogues[] = {
    {"conv relu maxpool padded", "y = max_pool2d(relu(conv2d(x, w, b)), kernel=[3, 3], stride=[2, 2], padding=[1, 1])"},
    {"conv avgpool", "y = avg_pool2d(conv2d(x, w, b, padding=[1, 1]), kernel=[2, 2])"},
    {"conv value on the right, min", "y = minimum(sub(0.5, conv2d(x, w)), b2)"},
    {"conv tanh", "y = tanh(conv2d(x, w, b, stride=[2, 2]))"},
    {"linear sigmoid", "y = sigmoid(linear(reshape(x, [2, 200]), v, c))"},
};

Program epilogueProgram(const EpilogueCase& c) {
  std::ostringstream ks;
  ks << "input x: f32[2, 2, 10, 10]\nparam w: f32[4, 2, 3, 3] = normal(std=0.3, seed=3)\n"
     << "param b: f32[4] = normal(std=0.1, seed=4)\nparam v: f32[200, 6] = normal(std=0.1, seed=5)\n"
     << "param c: f32[6] = normal(std=0.1, seed=6)\nparam b2: f32[1, 1, 1, 8] = normal(seed=7)\n" << c.body << "\noutput y\n";
  return parseKs(ks.str(), std::string(c.name) + ".ks");
}

std::string dims(const Shape& s) {
  std::ostringstream os;
  for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  return os.str();
}

Program convProgram(const ConvCase& c) {
  std::ostringstream ks;
  ks << "input x: f32[" << dims(c.x) << "]\nparam w: f32[" << dims(c.w) << "] = normal(std=0.3, seed=3)\n"
     << "param b: f32[" << c.w[0] << "] = normal(std=0.1, seed=4)\n"
     << "y = relu(conv2d(x, w, b" << (*c.args ? ", " : "") << c.args << "))\noutput y\n";
  return parseKs(ks.str(), std::string(c.name) + ".ks");
}

// Every proposed GEMM against the host: run on the host's values of the buffers it reads (with its
// gathers and its epilogue), it must give the host's value of its class. Returns the matches.
std::vector<MatmulMatch> checkedMatches(const Program& p) {
  const std::vector<MatmulMatch> matches = withEpilogues(p.graph, p.resultClasses(), findMatmuls(p.graph, p.resultClasses()));
  const std::vector<HostTensor> leaves = bindLeaves(p, {}, 7);
  for (const MatmulMatch& m : matches) {
    GemmStep step(p.graph, m.out, m.spec, m.a, m.b);
    std::vector<ClassId> read{m.a, m.b, m.out};
    if (step.epilogue) read.insert(read.end(), step.epilogue->extra.begin(), step.epilogue->extra.end());
    const std::vector<HostTensor> v = HostExecutor::run(p.graph, read, leaves);
    std::vector<const float*> extra;
    for (std::size_t i = 3; i < v.size(); ++i) extra.push_back(v[i].data<float>());
    HostTensor got(DType::F32, v[2].shape());
    step.run(v[0].data<float>(), v[1].data<float>(), got.data<float>(), extra);
    const std::string diff = compareWithTolerance(got, v[2], m.spec.k);
    if (!diff.empty()) throw std::runtime_error(m.spec.str() + " for %" + std::to_string(m.out.v) + ": " + diff);
  }
  return matches;
}

bool haveOpenCL() {
  for (const DeviceInfo& d : discoverDevices())
    if (d.compiles()) return true;
  return false;
}

SessionOptions withOpenBlas() {
  SessionOptions o;
  o.devices = "opencl:0:0,openblas";
  o.tune = TuneLevel::None;
  o.cache = "none";
  return o;
}

const char* kTorchDir = "/usr/share/libonnx-testdata/data/pytorch-converted";
const char* kNodeDir = "/usr/share/libonnx-testdata/data/node";

}  // namespace

class TestConvGemm : public QObject {
  Q_OBJECT
 private slots:
  void reshapeStridesFollowNumpy() {
    const Shape s{2, 3, 4};
    const auto c = contiguousStrides(s);
    QCOMPARE(c, (std::vector<int64_t>{12, 4, 1}));
    // A unit axis may take any stride; this one takes the block's.
    QCOMPARE(*reshapeStrides(s, c, {6, 1, 4}), (std::vector<int64_t>{4, 4, 1}));
    // A transposed view [4, 3] of a [3, 4] buffer merges nothing: its reshape to 12 needs a copy.
    QVERIFY(!reshapeStrides({4, 3}, {1, 4}, {12}));
    QCOMPARE(*reshapeStrides({4, 3}, {1, 4}, {2, 2, 3}), (std::vector<int64_t>{2, 1, 4}));
    QCOMPARE(*reshapeStrides({1, 5}, {99, 1}, {5, 1}), (std::vector<int64_t>{1, 1}));
  }

  // A stride-2 window row is one run with a step, not one run per element; fills and step-1 rows
  // stay what they were, and the copy gives every index's element.
  void stridedGatherRuns() {
    // Two rows of an image of width 20 read at stride 2 (a padded first element), then a unit row.
    const std::vector<int64_t> idx{-1, 1, 3, 5, 7, 21, 23, 25, 27, 40, 41, 42, 43, 9, 4};
    const GemmGather g = GemmGather::fromIndices(idx, static_cast<int64_t>(idx.size()), 64, -7.0f);
    // fill | 1..7 step 2 and 21..27 step 2 (one run of two rows: same length and step) | 40..43 |
    // 9 and 4 (two single elements 5 apart backwards: one run of two rows too)
    QCOMPARE(g.runs.size(), std::size_t{4});
    QCOMPARE(g.runs[1].step, int64_t{2});
    QCOMPARE(g.runs[1].len, int64_t{4});
    QCOMPARE(g.runs[1].reps, int64_t{2});
    QCOMPARE(g.runs[2].step, int64_t{1});
    QCOMPARE(g.runs[3].reps, int64_t{2});
    std::vector<float> src(64), dst(idx.size());
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = float(i);
    g.apply(0, src.data(), dst.data());
    for (std::size_t i = 0; i < idx.size(); ++i) QCOMPARE(dst[i], idx[i] < 0 ? -7.0f : float(idx[i]));
  }

  // Multiplying straight from the source gives what packing then multiplying gives: runs that
  // cross a row of the packed matrix, strided runs, fills (a non-zero fill too) and A either way.
  void directGatherProduct() {
    const int64_t m = 3, k = 4, n = 5;
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < k * n; ++i) idx.push_back(i % 7 == 3 ? -1 : (i < 12 ? 2 * i : 40 + i));
    const GemmGather g = GemmGather::fromIndices(idx, k * n, 64, 0.5f);
    std::vector<float> src(64), packed(k * n), a(m * k);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = float(i % 11) - 3.0f;
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0.25f * float(i) - 1.0f;
    g.apply(0, src.data(), packed.data());
    GemmGather prepared = g;
    prepared.prepareProduct(k);
    QVERIFY(!prepared.bundles.empty() && prepared.prepared(k) && !g.prepared(k));
    for (bool transA : {false, true}) {
      std::vector<float> c(m * n, 99.0f);
      prepared.multiplyInto(0, src.data(), a.data(), m, k, transA, c.data());
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) {
          float want = 0;
          for (int64_t kk = 0; kk < k; ++kk) want += (transA ? a[kk * m + r] : a[r * k + kk]) * packed[kk * n + j];
          QVERIFY2(std::abs(c[r * n + j] - want) < 1e-4f, qPrintable(QString("c[%1][%2] %3 want %4").arg(r).arg(j).arg(c[r * n + j]).arg(want)));
        }
    }
  }

  // A depthwise window's taps (3x3, padded, stride 1 and 2) as the prepared product adds them
  // three at a time: the same values as packing then multiplying.
  void directWindowProduct() {
    for (int64_t stride : {1, 2}) {
      const int64_t h = 7, w = 9, oh = (h + 2 - 3) / stride + 1, ow = (w + 2 - 3) / stride + 1, k = 9, n = oh * ow;
      std::vector<int64_t> idx;
      for (int64_t y = 0; y < 3; ++y)
        for (int64_t x = 0; x < 3; ++x)
          for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox) {
              const int64_t iy = oy * stride - 1 + y, ix = ox * stride - 1 + x;
              idx.push_back(iy >= 0 && iy < h && ix >= 0 && ix < w ? iy * w + ix : -1);
            }
      GemmGather g = GemmGather::fromIndices(idx, k * n, h * w, 0.0f);
      std::vector<float> src(h * w), packed(k * n), a(k), c(n);
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = float(i % 13) * 0.5f - 2.0f;
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(i) * 0.1f - 0.3f;
      g.apply(0, src.data(), packed.data());
      g.prepareProduct(k);
      // The interior rows' taps fold: far fewer bundles than taps times output rows.
      QVERIFY2(g.bundles.size() < std::size_t(3 * oh), qPrintable(QString::number(g.bundles.size())));
      g.multiplyInto(0, src.data(), a.data(), 1, k, false, c.data());
      for (int64_t j = 0; j < n; ++j) {
        float want = 0;
        for (int64_t kk = 0; kk < k; ++kk) want += a[kk] * packed[kk * n + j];
        QVERIFY2(std::abs(c[j] - want) < 1e-4f, qPrintable(QString("stride %1 c[%2] %3 want %4").arg(stride).arg(j).arg(c[j]).arg(want)));
      }
    }
  }

  void kernelScriptConvsAreGemms_data() {
    QTest::addColumn<int>("i");
    for (int i = 0; i < static_cast<int>(std::size(kCases)); ++i) QTest::newRow(kCases[i].name) << i;
  }
  void kernelScriptConvsAreGemms() {
    QFETCH(int, i);
    const ConvCase& c = kCases[i];
    const Program p = convProgram(c);
    std::vector<MatmulMatch> matches;
    try {
      matches = checkedMatches(p);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QCOMPARE(!matches.empty(), c.gemm);
    if (!c.gemm) return;
    // One GEMM per image (and group): the weights [Cout/g, Cin/g*kh*kw] times the windows
    // [Cin/g*kh*kw, OH*OW], gathered on the host from the input itself (the layout OpenBLAS
    // multiplies fastest); a 1x1 kernel reads the input in place, [Cin, H*W]. Groups over a batch
    // gather the weights as well.
    const MatmulMatch& m = matches.front();
    const GemmSpec& s = m.spec;
    const int64_t groups = c.x[1] / c.w[1];
    const bool pointwise = c.w[2] * c.w[3] == 1;
    QCOMPARE(s.batch, c.x[0] * groups);
    QCOMPARE(s.m, c.w[0] / groups);
    QCOMPARE(s.k, c.w[1] * c.w[2] * c.w[3]);
    QCOMPARE(s.transA, false);
    QCOMPARE(s.transB, false);
    QCOMPARE(s.strideA, groups > 1 ? s.m * s.k : 0);
    QCOMPARE(s.strideB, s.batch > 1 ? s.n * s.k : 0);
    QVERIFY(p.graph.isLeaf(m.a));  // the weights
    QVERIFY(p.graph.isLeaf(m.b));  // the input, read in place or gathered
    const GemmGathers gathers = gemmGathers(p.graph, m.out, s, m.a, m.b);
    QCOMPARE(gathers[0].has_value(), groups > 1 && c.x[0] > 1);
    QCOMPARE(gathers[1].has_value(), !pointwise);
  }

  // A GEMM followed by elementwise ops with constants or broadcast parameters and by a pooling
  // window gets a step whose epilogue does them on the host; each is checked against the host by
  // checkedMatches, and the longest reaches the output.
  void epiloguesFollowGemms_data() {
    QTest::addColumn<int>("i");
    for (int i = 0; i < static_cast<int>(std::size(kEpilogues)); ++i) QTest::newRow(kEpilogues[i].name) << i;
  }
  void epiloguesFollowGemms() {
    QFETCH(int, i);
    const Program p = epilogueProgram(kEpilogues[i]);
    std::vector<MatmulMatch> matches;
    try {
      matches = checkedMatches(p);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    bool reachesOutput = false;
    for (const MatmulMatch& m : matches) reachesOutput = reachesOutput || p.graph.find(m.out) == p.graph.find(p.resultClasses()[0]);
    QVERIFY(reachesOutput);
    QVERIFY(matches.size() >= 2);
  }
  void epiloguesRunOnDevices_data() { epiloguesFollowGemms_data(); }
  void epiloguesRunOnDevices() {
    QFETCH(int, i);
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s(epilogueProgram(kEpilogues[i]), withOpenBlas());
    const RunRecord& r = s.run({}, true);
    QVERIFY(r.verified);
    for (const OutputValue& v : r.outputs) QVERIFY2(v.mismatch.empty(), (v.name + ": " + v.mismatch).c_str());
  }

  void lenetConvsAreGemms() {
    const Program p = loadProgramFile(std::string(KS_SOURCE_DIR) + "/samples/lenet.ks");
    int convs = 0;
    for (const MatmulMatch& m : checkedMatches(p))
      convs += m.spec.batch == 16 && gemmGathers(p.graph, m.out, m.spec, m.a, m.b)[1].has_value();
    QCOMPARE(convs, 2);
  }

  void onnxConvsAreGemms_data() {
    QTest::addColumn<QString>("dir");
    QTest::addColumn<bool>("gemm");
    for (const char* t : {"test_Conv1d", "test_Conv1d_dilated", "test_Conv1d_pad2", "test_Conv1d_stride", "test_Conv2d",
                          "test_Conv2d_dilated", "test_Conv2d_padding", "test_Conv2d_strided", "test_Conv2d_no_bias",
                          "test_Conv3d_stride_padding"})
      QTest::newRow(t) << QString(kTorchDir) + "/" + t << true;
    // Groups over a batch of 2 (the weights gathered too, see kCases).
    for (const char* t : {"test_Conv2d_depthwise", "test_Conv2d_depthwise_strided", "test_Conv2d_groups"})
      QTest::newRow(t) << QString(kTorchDir) + "/" + t << true;
    for (const char* t : {"test_conv_with_strides_padding", "test_conv_with_strides_and_asymmetric_padding",
                          "test_conv_with_autopad_same", "test_basic_conv_with_padding"})
      QTest::newRow(t) << QString(kNodeDir) + "/" + t << true;
    QTest::newRow("cnn sample") << QString(KS_SOURCE_DIR) + "/tests/data/onnx/cnn" << true;
  }
  void onnxConvsAreGemms() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    QFETCH(QString, dir);
    QFETCH(bool, gemm);
    const std::string d = dir.toStdString();
    if (!fs::exists(d + "/model.onnx")) QSKIP("ONNX test data not installed");
    const Program p = importOnnx(d + "/model.onnx");
    std::vector<MatmulMatch> matches;
    try {
      matches = checkedMatches(p);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QCOMPARE(!matches.empty(), gemm);
  }

  // The whole programs on PoCL + openblas against the host oracle: whatever extraction picks (the
  // GEMM or the fused kernels) must agree.
  void kernelScriptConvsRunOnDevices_data() { kernelScriptConvsAreGemms_data(); }
  void kernelScriptConvsRunOnDevices() {
    QFETCH(int, i);
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s(convProgram(kCases[i]), withOpenBlas());
    const RunRecord& r = s.run({}, true);
    QVERIFY(r.verified);
    for (const OutputValue& v : r.outputs) QVERIFY2(v.mismatch.empty(), (v.name + ": " + v.mismatch).c_str());
  }

  // LeNet's convolutions cost milliseconds as fused kernels here and a tenth of that as GEMMs:
  // the plan runs both as GEMMs that gather their windows from the image and from the first
  // pooling's output (no kernel stores an im2col matrix), and the result equals the host's. A
  // saved session holds what the gathers are derived from.
  void lenetPlanUsesConvGemms() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    Session s(loadProgramFile(std::string(KS_SOURCE_DIR) + "/samples/lenet.ks"), withOpenBlas());
    const RunRecord& r = s.run({}, true);
    QVERIFY(r.verifyPassed);
    const std::string path = (fs::temp_directory_path() / "lenet_conv_gemm.kss.json").string();
    s.save(path);
    const Session back = Session::load(path);
    fs::remove(path);
    int convs = 0;
    for (const Session* x : std::initializer_list<const Session*>{&s, &back}) {
      const Graph& g = x->program().graph;
      for (const PlanStep& st : x->trace().plan.steps) {
        const bool conv = st.label.find("sgemm 6x784x25") != std::string::npos || st.label.find("sgemm 16x100x150") != std::string::npos;
        if (!conv) continue;
        const Node& n = g.node(st.node);
        const KernelEntry& e = x->trace().entries.at(st.kernel);
        const ClassId b = g.structural(n.in[1]).kind == NodeKind::ToDevice ? g.structural(n.in[1]).in[0] : n.in[1];
        QVERIFY(GemmStep(g, n.out[0], e.gemm, n.in[0], b).gathers[1].has_value());
        ++convs;
      }
      for (const KernelRecord& k : x->trace().kernels)  // the kernels between the GEMMs store no windows
        for (ClassId c : k.pass == 1 ? k.fused.stores : std::vector<ClassId>{}) QVERIFY(numel(g.shape(c)) != 16 * 784 * 25 && numel(g.shape(c)) != 16 * 100 * 150);
    }
    QCOMPARE(convs, 4);
    // Each convolution's step ends on its pooling (bias, relu and max-pool in its epilogue), and
    // only log_softmax is left to a kernel.
    int pooled = 0, launches = 0;
    const Graph& g = s.program().graph;
    for (const PlanStep& st : s.trace().plan.steps) {
      if (st.kind != PlanStep::Kind::Launch) continue;
      const Node& n = g.node(st.node);
      const bool gemm = s.trace().entries.at(st.kernel).kind == KernelEntry::Kind::Gemm;
      launches += !gemm;
      pooled += gemm && g.structural(n.out[0]).kind == NodeKind::Reduce && g.structural(n.out[0]).reduceOp() == ReduceOp::Max;
    }
    QCOMPARE(pooled, 2);
    QVERIFY2(launches <= 2, std::to_string(launches).c_str());
  }

  void onnxConvsRunOnDevices_data() { onnxConvsAreGemms_data(); }
  void onnxConvsRunOnDevices() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    QFETCH(QString, dir);
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    if (!fs::exists(dir.toStdString() + "/model.onnx")) QSKIP("ONNX test data not installed");
    OnnxCheckOptions o;
    o.devices = {"opencl:0:0,openblas"};
    const OnnxCaseResult r = checkOnnxCase(dir.toStdString(), o);
    QVERIFY2(r.status == OnnxCaseResult::Status::Pass, r.reason.c_str());
  }
};

QTEST_GUILESS_MAIN(TestConvGemm)
#include "test_conv_gemm.moc"
