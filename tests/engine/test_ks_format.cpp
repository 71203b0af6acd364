// The .ks program format: samples, expression semantics against the builder API, initializers,
// print -> parse round trips (text and graph forms), error places and messages, malformed input.
#include <QtTest>

#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/io/ks_printer.h"
#include "engine/io/program_source.h"
#include "engine/program/builder.h"
#include "engine/program/op_registry.h"
#include "engine/program/random.h"

using namespace ks;

namespace {

std::string sourceDir() {
  const char* e = std::getenv("KS_SOURCE_DIR");
  return e ? e : KS_SOURCE_DIR;
}
std::string samplePath(const QString& name) { return sourceDir() + "/samples/" + name.toStdString() + ".ks"; }
std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parses and reports the outcome: "" on success, the ks::Error text otherwise; any other
// exception is a test failure (the parser must never throw anything else).
struct Outcome {
  bool ok = false;
  bool otherException = false;
  std::string what;
  SourceLoc where;
  ErrorCode code = ErrorCode::Internal;
};
Outcome tryParse(const std::string& text, const std::string& file = "t.ks") {
  Outcome o;
  try {
    parseKs(text, file);
    o.ok = true;
  } catch (const Error& e) {
    o.what = e.what();
    o.where = e.where();
    o.code = e.code();
  } catch (const std::exception& e) {
    o.otherException = true;
    o.what = e.what();
  }
  return o;
}

bool sameBytes(const HostTensor& a, const HostTensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.byteSize() == b.byteSize() &&
         std::memcmp(a.bytes(), b.bytes(), a.byteSize()) == 0;
}

}  // namespace

class TestKsFormat : public QObject {
  Q_OBJECT
 private slots:
  // ---------------------------------------------------------------- samples
  void samples_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("shape");  // of the only output, worked out by hand from the layers
    QTest::addColumn<int>("params");
    QTest::newRow("mlp") << "mlp" << "[64, 10]" << 6;
    QTest::newRow("lenet") << "lenet" << "[16, 10]" << 10;
    QTest::newRow("transformer") << "transformer" << "[1, 128, 256]" << 16;
    QTest::newRow("attention") << "attention" << "[1, 4, 128, 64]" << 2;
    QTest::newRow("softmax") << "softmax" << "[4096, 1024]" << 0;
    QTest::newRow("layer_norm") << "layer_norm" << "[4096, 1024]" << 2;
    QTest::newRow("matmul_chain") << "matmul_chain" << "[256, 128]" << 3;
  }
  void samples() {
    QFETCH(QString, name);
    QFETCH(QString, shape);
    QFETCH(int, params);
    const std::string path = samplePath(name);
    const std::string text = readFile(path);
    QVERIFY2(text.rfind("# " + name.toStdString() + ".ks:", 0) == 0, "every sample starts with a header comment");
    Program p = loadProgramFile(path);
    QCOMPARE(p.name, name.toStdString());
    QCOMPARE(p.outputs.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(shapeStr(p.graph.shape(p.outputs[0].cls))), shape);
    QCOMPARE(p.graph.dtype(p.outputs[0].cls), DType::F32);
    QCOMPARE(static_cast<int>(p.params.size()), params);

    // Text form: printKs gives the source back, which parses to the same key.
    QCOMPARE(printKs(p), text);
    QCOMPARE(parseKs(printKs(p), path).cacheKey(), p.cacheKey());

    // Graph form: one statement per e-class; same key, same parameter values.
    const std::string g = printKsGraph(p);
    Program q = parseKs(g, "graph.ks");
    QCOMPARE(q.graph.classCount(), p.graph.classCount());
    QCOMPARE(q.cacheKey(), p.cacheKey());
    QCOMPARE(q.params.size(), p.params.size());
    for (std::size_t i = 0; i < p.params.size(); ++i) {
      QCOMPARE(q.params[i].name, p.params[i].name);
      if (p.graph.leaf(p.params[i].leaf).shape.size() && numel(p.graph.leaf(p.params[i].leaf).shape) <= 300000)
        QVERIFY(sameBytes(q.paramValue(i), p.paramValue(i)));
    }
    // And printing the graph form again is stable.
    QCOMPARE(parseKs(printKsGraph(q), "graph2.ks").cacheKey(), p.cacheKey());
  }

  // ---------------------------------------------------------------- expression semantics
  // Each text must build exactly the e-graph the builder API builds (the oracle): precedence,
  // associativity, scalar folding, keyword arguments, several results.
  void expressions_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<int>("which");
    QTest::newRow("mul binds tighter") << "a + b * c" << 0;
    QTest::newRow("parentheses") << "(a + b) * c" << 1;
    QTest::newRow("left assoc sub") << "a - b - c" << 2;
    QTest::newRow("unary minus") << "-a * 2" << 3;
    QTest::newRow("matmul and scalar") << "a @ transpose(b) + 1.5" << 4;
    QTest::newRow("comparison lowest") << "a + 1 < b" << 5;
    QTest::newRow("folded numbers") << "a + 2 * 3" << 6;
    QTest::newRow("keywords any order") << "softmax(axis=0, x=a)" << 7;
    QTest::newRow("division of ints is float") << "a * (1 / 4)" << 8;
    QTest::newRow("where and -inf") << "where(a > b, a, -inf)" << 9;
    QTest::newRow("div before add") << "a / b + c / a" << 10;
  }
  void expressions() {
    QFETCH(QString, expr);
    QFETCH(int, which);
    const std::string text = "input a: f32[2, 3]\ninput b: f32[2, 3]\ninput c: f32[2, 3]\ny = " + expr.toStdString() +
                             "\noutput y\n";
    Program parsed = parseKs(text, "e.ks");
    ProgramBuilder B;
    Value a = B.input("a", DType::F32, {2, 3}), b = B.input("b", DType::F32, {2, 3}), c = B.input("c", DType::F32, {2, 3});
    Value y;
    switch (which) {
      case 0: y = op::add(a, op::mul(b, c)); break;
      case 1: y = op::mul(op::add(a, b), c); break;
      case 2: y = op::sub(op::sub(a, b), c); break;
      case 3: y = op::mul(op::neg(a), Operand(int64_t{2})); break;
      case 4: y = op::add(op::matmul(a, op::transpose(b)), Operand(1.5)); break;
      case 5: y = op::lt(op::add(a, Operand(int64_t{1})), b); break;
      case 6: y = op::add(a, Operand(int64_t{6})); break;
      case 7: y = op::softmax(a, 0); break;
      case 8: y = op::mul(a, Operand(0.25)); break;
      case 9: y = op::where(op::gt(a, b), a, Operand(-std::numeric_limits<double>::infinity())); break;
      case 10: {  // sequenced: C++ leaves the order of argument evaluation open
        Value l = op::div(a, b);
        Value r = op::div(c, a);
        y = op::add(l, r);
        break;
      }
    }
    B.output("y", y);
    Program built = B.finish();
    QCOMPARE(parsed.cacheKey(), built.cacheKey());
  }

  void multipleResults() {
    Program parsed = parseKs("input x: f32[4, 6]\nm, n, o = split(x, [1, 2, 3], axis=1)\np, q = chunk(x, 2)\noutput m, o\noutput q\n", "s.ks");
    ProgramBuilder B;
    Value x = B.input("x", DType::F32, {4, 6});
    auto parts = op::split(x, {1, 2, 3}, 1);
    auto halves = op::chunk(x, 2, 0);
    B.output("m", parts[0]);
    B.output("o", parts[2]);
    B.output("q", halves[1]);
    Program built = B.finish();
    QCOMPARE(parsed.cacheKey(), built.cacheKey());
    QCOMPARE(parsed.outputs.size(), std::size_t{3});
    QCOMPARE(parsed.outputs[2].name, std::string("q"));
    QCOMPARE(shapeStr(parsed.graph.shape(parsed.outputs[1].cls)), std::string("[4, 3]"));
  }

  void constantsAndCasts() {
    Program p = parseKs(
        "const c: f32[2, 2] = [[1, 2], [3.5, -4]]\nconst flat: i32[3] = [7, -8, 9]\nconst s: f32 = 0.5\n"
        "const big: i64 = 9007199254740993\ny = cast(c, f16) * s\nz = cast(flat, \"f32\")\noutput y, z\noutput k = big\n",
        "c.ks");
    QCOMPARE(p.outputs.size(), std::size_t{3});
    QCOMPARE(p.graph.dtype(p.outputs[0].cls), DType::F16);
    QCOMPARE(p.graph.dtype(p.outputs[1].cls), DType::F32);
    // The i64 scalar keeps all 64 bits (2^53 + 1 is not a double).
    QCOMPARE(p.graph.structural(p.outputs[2].cls).value.toInt(), int64_t{9007199254740993});
    const LeafInfo& c = p.graph.leaf(0);
    QCOMPARE(c.kind, LeafKind::Constant);
    QCOMPARE(c.data->getDouble(2), 3.5);
    QCOMPARE(c.data->getDouble(3), -4.0);
    QCOMPARE(p.graph.leaf(1).data->getInt(1), int64_t{-8});
  }

  // ---------------------------------------------------------------- initializers
  void initializerValues() {
    Program p = parseKs(
        "param n: f32[5] = normal(mean=1, std=2, seed=7)\nparam u: f64[3] = uniform(-1, 3, 9)\n"
        "param a: f32[4] = arange(start=1, step=0.5)\nparam f: i32[2] = full(3)\nparam z: f32[2] = zeros\n"
        "param o: f32[2] = ones\nparam d: f32[2, 2] = [[1, 2], [3, 4]]\noutput n, u, a, f, z, o, d\n",
        "i.ks");
    QCOMPARE(p.params.size(), std::size_t{7});
    // normal / uniform: the documented generator (random.h) drawn in element order.
    Random rn(7);
    const HostTensor n = p.paramValue(0);
    for (int k = 0; k < 5; ++k) QCOMPARE(n.getDouble(k), static_cast<double>(static_cast<float>(rn.normal(1.0, 2.0))));
    Random ru(9);
    const HostTensor u = p.paramValue(1);
    for (int k = 0; k < 3; ++k) QCOMPARE(u.getDouble(k), ru.uniform(-1.0, 3.0));
    const double aExp[] = {1.0, 1.5, 2.0, 2.5};
    for (int k = 0; k < 4; ++k) QCOMPARE(p.paramValue(2).getDouble(k), aExp[k]);
    QCOMPARE(p.paramValue(3).getInt(1), int64_t{3});
    QCOMPARE(p.paramValue(4).getDouble(1), 0.0);
    QCOMPARE(p.paramValue(5).getDouble(0), 1.0);
    QCOMPARE(p.paramValue(6).getDouble(2), 3.0);
    QCOMPARE(p.params[0].init.seed, uint64_t{7});
  }
  void dataFiles() {
    // Files written by NumPy (tests/data/ks/make_npy.py); paths are relative to the .ks file.
    const std::string file = sourceDir() + "/tests/data/ks/prog.ks";
    Program p = parseKs("param w: f32[2, 3] = data(\"w23.npy\")\nparam i: i64[4] = data(\"idx4.npy\")\noutput w, i\n", file);
    const double wExp[] = {0, 0.5, 1, 1.5, 2, 2.5};
    const HostTensor w = p.paramValue(0);
    for (int k = 0; k < 6; ++k) QCOMPARE(w.getDouble(k), wExp[k]);
    const int64_t iExp[] = {3, 1, 4, 1};
    for (int k = 0; k < 4; ++k) QCOMPARE(p.paramValue(1).getInt(k), iExp[k]);
    // A data file of the wrong shape, and a missing one, are errors at the initializer.
    Outcome bad = tryParse("param w: f32[3, 2] = data(\"w23.npy\")\noutput w\n", file);
    QVERIFY(!bad.ok && !bad.otherException);
    QCOMPARE(bad.where.line, 1);
    QCOMPARE(bad.where.column, 22);
    QVERIFY2(bad.what.find("[2, 3]") != std::string::npos, bad.what.c_str());
    Outcome missing = tryParse("param w: f32[3] = data(\"nope.npy\")\noutput w\n", file);
    QVERIFY(!missing.ok && !missing.otherException);
    QVERIFY2(missing.what.find("nope.npy") != std::string::npos, missing.what.c_str());
  }

  // Parameter data written as .npy files beside the text (what `print --ks --weights` does for
  // models whose inline lists would run to hundreds of MB) reads back as the same program.
  void weightFiles() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    ProgramBuilder B("weighted");
    Value x = B.input("x", DType::F32, {2, 3});
    ParamInit wi;
    wi.kind = ParamInit::Kind::Data;
    HostTensor wd(DType::F32, {3, 2});
    for (int k = 0; k < 6; ++k) wd.setDouble(k, 0.25 * k - 0.5);
    wi.data = std::make_shared<HostTensor>(wd);
    ParamInit ii;
    ii.kind = ParamInit::Kind::Data;
    HostTensor id(DType::I64, {4});
    for (int k = 0; k < 4; ++k) id.setInt(k, 7 - 3 * k);
    ii.data = std::make_shared<HostTensor>(id);
    Value w = B.param("layer1.0.conv1.weight", DType::F32, {3, 2}, wi);
    Value i = B.param("idx", DType::I64, {4}, ii);
    B.output("y", op::matmul(x, w));
    B.output("i", i);
    const Program p = B.finish();

    const std::string dir = tmp.path().toStdString() + "/w";
    const KsWeightFiles weights{dir, "w"};
    const std::string text = printKsGraph(p, &weights);
    QVERIFY2(text.find("data(\"w/layer1_0_conv1_weight.npy\")") != std::string::npos, text.c_str());
    QVERIFY2(text.find("data(\"w/idx.npy\")") != std::string::npos, text.c_str());
    QVERIFY2(text.find("[[") == std::string::npos, text.c_str());  // no inline list is left
    const Program q = parseKs(text, tmp.path().toStdString() + "/m.ks");
    QCOMPARE(q.cacheKey(), p.cacheKey());
    for (int k = 0; k < 6; ++k) QCOMPARE(q.paramValue(0).getDouble(k), wd.getDouble(k));
    for (int k = 0; k < 4; ++k) QCOMPARE(q.paramValue(1).getInt(k), id.getInt(k));
    // A folder name the .ks string cannot hold is refused before anything is written.
    const KsWeightFiles quoted{dir, "a\"b"};
    QVERIFY_THROWS_EXCEPTION(Error, printKsGraph(p, &quoted));
  }

  // ---------------------------------------------------------------- graph printing of built programs
  // A program built with the API (as the ONNX importer does) that uses every printable node kind,
  // including nodes no high-level op makes (f16 arithmetic, bitwise and, trunc): print -> parse
  // must rebuild the same e-graph.
  void graphRoundTripBuilt() {
    ProgramBuilder B("built");
    Value x = B.input("input.1", DType::F32, {2, 3});
    Value h = B.input("t3", DType::F16, {2, 3});    // a name that looks like a temporary
    Value iv = B.input("output", DType::I32, {2, 3});  // a keyword as a name
    ParamInit data;
    data.kind = ParamInit::Kind::Data;
    HostTensor d(DType::F32, {3});
    d.setDouble(0, 0.1);
    d.setDouble(1, -2.5);
    d.setDouble(2, 1e-30);
    data.data = std::make_shared<HostTensor>(d);
    Value w = B.param("w", DType::F32, {3}, data);
    ParamInit nrm;
    nrm.kind = ParamInit::Kind::Normal;
    nrm.a = 0.1;
    nrm.b = 0.3333333333333333;
    nrm.seed = 12345;
    Value w2 = B.param("w2", DType::F32, {2, 3}, nrm);
    HostTensor ct(DType::I32, {2, 3});
    for (int k = 0; k < 6; ++k) ct.setInt(k, k * 7 - 20);
    Value cst = B.constant(ct, "table");
    std::vector<Value> outs;
    outs.push_back(op::fmod(x, w));                                  // trunc (low-level unary)
    outs.push_back(op::add(h, h));                                   // f16 computed in f32
    outs.push_back(op::pad(x, {{1, 0}, {2, -1}}, -std::numeric_limits<double>::infinity()));
    outs.push_back(op::flip(op::narrow(x, 1, 1, 2), {0}));
    outs.push_back(op::where(op::gt(x, 0.0), op::log(x), 0.0));      // select with a constant
    outs.push_back(op::sum(iv, {1}, true));                          // i64 accumulate, keepdim
    outs.push_back(op::max(x, {}));
    outs.push_back(op::logicalAnd(op::lt(iv, cst), op::ne(x, w2)));
    outs.push_back(op::contiguous(op::permute(x, {1, 0})));
    outs.push_back(op::mul(op::cast(iv, DType::U8), int64_t{300}));
    outs.push_back(op::pow(iv, op::exp(x)));
    outs.push_back(op::isnan(op::div(x, std::numeric_limits<double>::quiet_NaN())));
    // Nodes no builder op makes: bitwise and of ints, exp of f16, a bitcast.
    Node band;
    band.kind = NodeKind::Binary;
    band.op = static_cast<uint8_t>(BinaryOp::And);
    band.in = {iv.id(), cst.id()};
    outs.push_back(B.add(band));
    Node e16;
    e16.kind = NodeKind::Unary;
    e16.op = static_cast<uint8_t>(UnaryOp::Exp);
    e16.in = {h.id()};
    outs.push_back(B.add(e16));
    Node bc;
    bc.kind = NodeKind::Bitcast;
    bc.dtype = DType::I32;
    bc.in = {x.id()};
    outs.push_back(B.add(bc));
    op::relu(op::sqrt(x));  // a dead class: printed too (the cache key covers every node)
    for (std::size_t k = 0; k < outs.size(); ++k) B.output("out." + std::to_string(k), outs[k]);
    B.output("again", outs[0]);
    Program p = B.finish();

    const std::string text = printKs(p);  // no source: the graph form
    Program q;
    try {
      q = parseKs(text, "built.ks");
    } catch (const Error& e) {
      QFAIL((std::string(e.what()) + "\n" + text).c_str());
    }
    QCOMPARE(q.graph.classCount(), p.graph.classCount());
    QCOMPARE(q.cacheKey(), p.cacheKey());
    QCOMPARE(q.outputs.size(), p.outputs.size());
    QCOMPARE(q.outputs[0].name, std::string("out_0"));
    QCOMPARE(q.inputs[0].name, std::string("input_1"));
    for (std::size_t i = 0; i < p.params.size(); ++i) QVERIFY(sameBytes(q.paramValue(i), p.paramValue(i)));
    QVERIFY2(text.find("unary(") != std::string::npos && text.find("binary(") != std::string::npos, text.c_str());
  }

  // ONNX models (imported by the ONNX importer) print in the graph form and parse back to the
  // same e-graph. A model the importer cannot load is skipped, not failed: that is its test's job.
  void onnxRoundTrip_data() {
    QTest::addColumn<QString>("model");
    for (const char* m : {"test_conv_with_strides_padding", "test_gemm_all_attributes", "test_softmax_axis_1",
                          "test_maxpool_2d_pads", "test_batchnorm_example", "test_cast_FLOAT_to_FLOAT16",
                          "test_where_example", "test_mod_mixed_sign_int32", "test_layer_normalization_2d_axis0",
                          "test_einsum_batch_matmul", "test_gather_0", "test_pow_types_int32_int32",
                          "test_and_bcast3v1d", "test_split_equal_parts_1d", "test_averagepool_2d_pads",
                          "test_convtranspose"})
      QTest::newRow(m) << QString(m);
  }
  void onnxRoundTrip() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#else
    QFETCH(QString, model);
    const std::string path = "/usr/share/libonnx-testdata/data/node/" + model.toStdString() + "/model.onnx";
    if (!std::ifstream(path)) QSKIP("libonnx-testdata is not installed");
    Program p;
    try {
      p = loadProgramFile(path);
    } catch (const Error& e) {
      QSKIP(e.what());
    }
    QVERIFY(p.source.empty());
    const std::string text = printKs(p);
    Program q;
    try {
      q = parseKs(text, model.toStdString() + ".ks");
    } catch (const Error& e) {
      QFAIL((std::string(e.what()) + "\n" + text).c_str());
    }
    QCOMPARE(q.cacheKey(), p.cacheKey());
    QCOMPARE(q.inputs.size(), p.inputs.size());
    QCOMPARE(q.outputs.size(), p.outputs.size());
#endif
  }

  void numberFormatting() {
    // Doubles print in the shortest form that reads back to the same bits.
    const double vals[] = {0.1, 1.0 / 3.0, 1e-30, -2.5e300, 5e-324, 16777217.0, 0.0, -0.0};
    for (double v : vals) {
      const std::string s = formatKsNumber(v);
      Program p = parseKs("const c: f64 = " + s + "\noutput c\n", "n.ks");
      const double back = p.graph.structural(p.outputs[0].cls).value.toDouble();
      QVERIFY2(std::memcmp(&back, &v, sizeof v) == 0, s.c_str());
    }
    QCOMPARE(formatKsNumber(std::numeric_limits<double>::infinity()), std::string("inf"));
    QCOMPARE(formatKsNumber(-std::numeric_limits<double>::infinity()), std::string("-inf"));
  }

  // ---------------------------------------------------------------- errors
  void errors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    QTest::newRow("unclosed shape") << "input x: f32[2, 3\noutput x\n" << 2 << 1
                                    << "expected ',' or ']' after a dimension of the shape, found 'output' (the '[' at 1:13 is not closed)";
    QTest::newRow("comma where ] expected") << "input x: f32[2,, 3]\noutput x\n" << 1 << 16
                                            << "expected a dimension (a non-negative integer), found ','";
    QTest::newRow("bad dtype") << "input x: f33[2]\noutput x\n" << 1 << 10 << "unknown dtype 'f33'";
    QTest::newRow("bad number") << "input x: f32[2]\ny = x * 1.5e\noutput y\n" << 2 << 9 << "malformed number '1.5e'";
    QTest::newRow("bad number letters") << "input x: f32[2]\ny = x * 12ab\noutput y\n" << 2 << 9 << "malformed number '12ab'";
    QTest::newRow("negative dim") << "input x: f32[-2]\noutput x\n" << 1 << 14 << "expected a dimension (a non-negative integer), found '-'";
    QTest::newRow("duplicate input") << "input x: f32[2]\ninput x: f32[3]\noutput x\n" << 2 << 7
                                     << "duplicate name 'x' (first defined at 1:7)";
    QTest::newRow("duplicate assignment") << "input x: f32[2]\ny = x\ny = x\noutput y\n" << 3 << 1 << "duplicate name 'y'";
    QTest::newRow("undefined") << "input x: f32[2]\ny = relu(z)\noutput y\n" << 2 << 10 << "undefined name 'z'";
    QTest::newRow("undefined suggests") << "input hidden: f32[2]\ny = relu(hiden)\noutput y\n" << 2 << 10
                                        << "did you mean 'hidden'?";
    QTest::newRow("too many args") << "input x: f32[2]\ny = relu(x, x)\noutput y\n" << 2 << 13 << "relu: takes at most 1 argument, found 2";
    QTest::newRow("missing arg") << "input x: f32[2, 2]\ny = reshape(x)\noutput y\n" << 2 << 5 << "reshape: missing argument 'shape'";
    QTest::newRow("unknown op") << "input x: f32[2]\ny = softmx(x)\noutput y\n" << 2 << 5 << "unknown op 'softmx'; did you mean 'softmax'?";
    QTest::newRow("unknown op squashed") << "input x: f32[1, 1, 4, 4]\ny = maxpool2d(x, [2, 2])\noutput y\n" << 2 << 5
                                         << "did you mean 'max_pool2d'?";
    QTest::newRow("unknown keyword") << "input x: f32[2, 2]\ny = softmax(x, axs=0)\noutput y\n" << 2 << 16
                                     << "softmax: has no parameter 'axs' (parameters: x, axis)";
    QTest::newRow("wrong kind") << "input x: f32[2, 2]\ny = softmax(x, axis=1.5)\noutput y\n" << 2 << 16
                                << "softmax: argument 'axis' expects an int, found the number 1.5";
    QTest::newRow("tensor for int") << "input x: f32[2, 2]\ny = softmax(x, x)\noutput y\n" << 2 << 16
                                    << "argument 'axis' expects an int, found a tensor f32[2, 2]";
    QTest::newRow("matmul shapes") << "input a: f32[2, 3]\ninput b: f32[4, 5]\nc = a @ b\noutput c\n" << 3 << 7 << "matmul";
    QTest::newRow("axis out of range") << "input a: f32[2, 3]\ny = softmax(a, axis=2)\noutput y\n" << 2 << 5 << "axis";
    QTest::newRow("broadcast") << "input a: f32[2, 3]\ninput b: f32[4]\ny = a + b\noutput y\n" << 3 << 7 << "[2, 3]";
    QTest::newRow("unterminated string") << "input x: f32[2]\ny = cast(x, \"f16)\noutput y\n" << 2 << 13 << "unterminated string";
    QTest::newRow("extra paren") << "input x: f32[2]\ny = relu(x))\noutput y\n" << 2 << 12 << "expected end of line, found ')'";
    QTest::newRow("no output") << "input x: f32[2]\n" << 2 << 1 << "the program declares no output";
    QTest::newRow("split count") << "input x: f32[5]\na, b = split(x, [2, 2, 1])\noutput a\n" << 2 << 8
                                 << "2 names on the left, but the right side gives 3 values";
    QTest::newRow("split unnamed") << "input x: f32[4]\na = split(x, [2, 2])\noutput a\n" << 2 << 5 << "name each one";
    QTest::newRow("initializer typo") << "param w: f32[2] = normall(seed=1)\noutput w\n" << 1 << 19 << "did you mean 'normal'?";
    QTest::newRow("initializer keyword") << "param w: f32[2] = normal(sd=1)\noutput w\n" << 1 << 26
                                         << "initializer 'normal' has no parameter 'sd' (parameters: mean, std, seed)";
    QTest::newRow("missing =") << "input x: f32[2]\ny relu(x)\noutput y\n" << 2 << 3 << "expected '=' after the name 'y', found 'relu'";
    QTest::newRow("literal shape") << "const c: f32[3] = [1, 2]\noutput c\n" << 1 << 19 << "the literal has shape [2] but the declared shape is [3]";
    QTest::newRow("ragged literal") << "const c: f32[2, 2] = [[1, 2], [3]]\noutput c\n" << 1 << 31 << "ragged";
    QTest::newRow("float in int const") << "const c: i32[2] = [1, 2.5]\noutput c\n" << 1 << 23 << "a i32 constant takes integers";
    QTest::newRow("keyword as name") << "input output: f32[2]\n" << 1 << 7 << "'output' is a keyword";
    QTest::newRow("bare call") << "input x: f32[2]\nrelu(x)\noutput x\n" << 2 << 1 << "an expression must be assigned to a name";
    QTest::newRow("output of a number") << "input x: f32[2]\ns = 3\noutput s\n" << 3 << 8 << "output 's' must be a tensor";
    QTest::newRow("duplicate output") << "input x: f32[2]\noutput x\noutput x\n" << 3 << 8 << "output 'x' is declared twice";
    QTest::newRow("bad char") << "input x: f32[2]\ny = x $ 2\noutput y\n" << 2 << 7 << "unexpected character '$'";
    QTest::newRow("bang") << "input x: f32[2]\ny = !x\noutput y\n" << 2 << 5 << "did you mean '!=' or logical_not(x)?";
    QTest::newRow("int overflow") << "input x: f32[2]\ny = x * 99999999999999999999\noutput y\n" << 2 << 9 << "out of range";
    QTest::newRow("list in arithmetic") << "input x: f32[2]\ny = x + [1, 2]\noutput y\n" << 2 << 9
                                        << "operator '+' needs tensors or numbers, found a list of 2 items";
    // grad(y, [p...]) and p <- expr
    QTest::newRow("grad through argmax") << "param w: f32[4] = ones\nk = argmax(w, 0)\nl = sum(cast(k, f32))\ng = grad(l, [w])\noutput g\n"
                                         << 4 << 5 << "grad: the value depends on 'w' only through 'argmax', which has no derivative";
    QTest::newRow("grad of a vector") << "param w: f32[4] = ones\ng = grad(w * 2, [w])\noutput g\n" << 2 << 5
                                      << "grad: differentiates a floating-point scalar (rank 0 or one element), found f32[4]";
    QTest::newRow("grad of an int") << "input i: i32[2]\nparam w: f32[2] = ones\ng = grad(sum(i), [w])\noutput g\n" << 3 << 5
                                    << "found i64[]";
    QTest::newRow("grad unused") << "param w: f32[2] = ones\nparam v: f32[2] = ones\ng = grad(sum(w), [v])\noutput g\n" << 3 << 5
                                 << "'v' is not used in computing the value it differentiates";
    QTest::newRow("grad of an intermediate") << "param w: f32[2] = ones\nh = w * 2\ng = grad(sum(h), [h])\noutput g\n" << 3 << 5
                                             << "takes gradients with respect to inputs and params";
    QTest::newRow("grad int param") << "param i: i32[2] = ones\ng = grad(sum(cast(i, f32)), [i])\noutput g\n" << 2 << 5
                                    << "'i' is i32; only floating-point values have gradients";
    QTest::newRow("update an input") << "input x: f32[2]\nx <- x * 2\noutput x\n" << 2 << 1
                                     << "'<-' updates a param; 'x' is not a param";
    QTest::newRow("update twice") << "param w: f32[2] = ones\nw <- w * 2\nw <- w * 3\noutput w\n" << 3 << 1
                                  << "param 'w' is updated twice (first at 2:1)";
    QTest::newRow("update shape") << "param w: f32[2] = ones\nparam v: f32[3] = ones\nw <- v\noutput w\n" << 3 << 6
                                  << "the new value of 'w' has shape [3]; the param is f32[2]";
    QTest::newRow("update undefined") << "param w: f32[2] = ones\nq <- w\noutput w\n" << 2 << 1 << "undefined name 'q'";
    QTest::newRow("bad dtype name in cast") << "input x: f32[2]\ny = cast(x, \"f17\")\noutput y\n" << 2 << 13 << "argument 'dtype' expects a dtype name";
  }
  void errors() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, message);
    const Outcome o = tryParse(text.toStdString(), "samples/t.ks");
    QVERIFY2(!o.ok, "must fail");
    QVERIFY2(!o.otherException, o.what.c_str());
    QCOMPARE(o.where.file, std::string("samples/t.ks"));
    QVERIFY2(o.what.find(message.toStdString()) != std::string::npos, o.what.c_str());
    QCOMPARE(o.where.line, line);
    QCOMPARE(o.where.column, column);
    const std::string prefix = "samples/t.ks:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
    QVERIFY2(o.what.rfind(prefix, 0) == 0, o.what.c_str());
  }

  // ---------------------------------------------------------------- malformed input never crashes
  void malformed_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("empty") << QByteArray("");
    QTest::newRow("comment only") << QByteArray("# nothing\n");
    QTest::newRow("input") << QByteArray("input");
    QTest::newRow("input x") << QByteArray("input x");
    QTest::newRow("input x:") << QByteArray("input x:");
    QTest::newRow("open shape") << QByteArray("input x: f32[");
    QTest::newRow("huge dim") << QByteArray("input x: f32[99999999999999999999]\noutput x");
    QTest::newRow("too many elements") << QByteArray("input x: f32[1000000000, 1000000000, 1000000000]\noutput x");
    QTest::newRow("open parens") << QByteArray("y = ((((");
    QTest::newRow("deep parens") << QByteArray("input x: f32[2]\ny = " + QByteArray(100000, '(') + "x");
    QTest::newRow("deep lists") << QByteArray("const c: f32[1] = " + QByteArray(100000, '['));
    QTest::newRow("deep minus") << QByteArray("input x: f32[2]\ny = " + QByteArray(100000, '-') + "x\noutput y");
    QTest::newRow("binary junk") << QByteArray("\x00\xff\xfe\x01", 4);
    QTest::newRow("dangling @") << QByteArray("input x: f32[2, 2]\ny = x @ x @\noutput y\n");
    QTest::newRow("bool const 2") << QByteArray("const c: bool = 2\noutput c\n");
    QTest::newRow("int const 1.5") << QByteArray("const c: i32 = 1.5\noutput c\n");
    QTest::newRow("missing file") << QByteArray("param w: f32[2] = data(\"/nonexistent/x.npy\")\noutput w\n");
    QTest::newRow("output alone") << QByteArray("output");
    QTest::newRow("output number") << QByteArray("output 3");
    QTest::newRow("dangling +") << QByteArray("input x: f32[2]\ny = x +\noutput y\n");
    QTest::newRow("split to one") << QByteArray("input x: f32[2]\ny = split(x, [1, 1])\noutput y\n");
    QTest::newRow("reshape bad") << QByteArray("input x: f32[6]\ny = reshape(x, [4, -1])\noutput y\n");
    QTest::newRow("reshape two -1") << QByteArray("input x: f32[6]\ny = reshape(x, [-1, -1])\noutput y\n");
    QTest::newRow("pad pairs bad") << QByteArray("input x: f32[6]\ny = pad(x, [1, 2])\noutput y\n");
    QTest::newRow("seed negative") << QByteArray("param w: f32[2] = normal(seed=-1)\noutput w\n");
    QTest::newRow("std negative") << QByteArray("param w: f32[2] = normal(std=-1)\noutput w\n");
    QTest::newRow("conv rank") << QByteArray("input x: f32[2, 2]\ninput w: f32[1, 1, 1, 1]\ny = conv2d(x, w)\noutput y\n");
    QTest::newRow("where no tensor") << QByteArray("y = where(true, 1, 2)\noutput y\n");
    QTest::newRow("none as tensor") << QByteArray("input x: f32[2]\ny = relu(none)\noutput y\n");
    QTest::newRow("positional after kw") << QByteArray("input x: f32[2]\ny = softmax(axis=0, x)\noutput y\n");
    QTest::newRow("kw twice") << QByteArray("input x: f32[2]\ny = softmax(x, axis=0, axis=0)\noutput y\n");
    QTest::newRow("unclosed string") << QByteArray("param w: f32[2] = data(\"abc");
    QTest::newRow("cr only") << QByteArray("input x: f32[2]\r\routput x\r");
    QTest::newRow("crlf ok") << QByteArray("input x: f32[2]\r\noutput x\r\n");
    QTest::newRow("huge reshape") << QByteArray("input x: f32[2]\ny = expand(x, [1000000000000, 1000000000000, 2])\noutput y\n");
    QTest::newRow("narrow out of range") << QByteArray("input x: f32[4]\ny = narrow(x, 0, 3, 5)\noutput y\n");
    QTest::newRow("chunk zero") << QByteArray("input x: f32[4]\na, b = chunk(x, 0)\noutput a\n");
  }
  void malformed() {
    QFETCH(QByteArray, text);
    const Outcome o = tryParse(text.toStdString());
    QVERIFY2(!o.otherException, o.what.c_str());
    if (QByteArray(QTest::currentDataTag()) != "crlf ok") QVERIFY2(!o.ok, "must be an error");
  }

  // Every prefix of every sample, and single-byte corruptions of it, either parse or give a
  // ks::Error: a cheap deterministic fuzz of the lexer, parser and builder error paths.
  void truncatedAndCorruptedSamples() {
    const char* names[] = {"mlp", "lenet", "transformer", "attention", "softmax", "layer_norm", "matmul_chain"};
    const char junk[] = {'(', ')', '[', ']', ',', '=', '-', '@', '0', '9', 'x', '\n', '"', '#', ':', '.', 'e', '\0', '\xff'};
    Random rng(2024);
    int parsed = 0, errors = 0;
    for (const char* n : names) {
      const std::string text = readFile(samplePath(n));
      for (std::size_t len = 0; len <= text.size(); len += 3) {
        const Outcome o = tryParse(text.substr(0, len));
        QVERIFY2(!o.otherException, (std::string(n) + " prefix " + std::to_string(len) + ": " + o.what).c_str());
        (o.ok ? parsed : errors)++;
      }
      for (int k = 0; k < 300; ++k) {
        std::string t = text;
        const std::size_t at = rng.next() % t.size();
        t[at] = junk[rng.next() % sizeof junk];
        if (rng.next() % 4 == 0) t.erase(at, 1 + rng.next() % 8);
        const Outcome o = tryParse(t);
        QVERIFY2(!o.otherException, (std::string(n) + " mutation " + std::to_string(k) + ": " + o.what).c_str());
        (o.ok ? parsed : errors)++;
      }
    }
    QVERIFY(errors > 1000);
    QVERIFY(parsed > 0);
  }

  // ---------------------------------------------------------------- registry
  void registryCoversBuilder() {
    const OpRegistry& r = OpRegistry::instance();
    // Every op of builder.h, by its .ks name.
    const char* expected[] = {
        "cast", "to_float", "neg", "abs", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
        "tan", "tanh", "sigmoid", "relu", "leaky_relu", "elu", "gelu", "silu", "softplus", "erf", "floor", "ceil",
        "round", "sign", "square", "logical_not", "isnan", "add", "sub", "mul", "div", "pow", "mod", "fmod", "maximum",
        "minimum", "lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_xor", "where", "clamp",
        "sum", "mean", "max", "min", "prod", "var", "std", "argmax", "argmin", "cumsum", "reshape", "permute",
        "transpose", "expand", "broadcast_to", "pad", "slice", "narrow", "flip", "concat", "stack", "split", "chunk",
        "squeeze", "unsqueeze", "flatten", "repeat", "contiguous", "matmul", "linear", "conv2d", "max_pool2d",
        "avg_pool2d", "softmax", "log_softmax", "layer_norm", "rms_norm", "batch_norm", "scaled_dot_product_attention",
        "embedding", "one_hot", "cross_entropy", "mse", "reduce_sum", "reduce_max", "reduce_min", "reduce_prod",
        "pad_axis", "bitcast", "unary", "binary", "select", "grad"};
    for (const char* n : expected) QVERIFY2(r.find(n), n);
    QCOMPARE(r.ops().size(), sizeof expected / sizeof expected[0]);
    const OpInfo* sm = r.find("layer_norm");
    QCOMPARE(sm->params.size(), std::size_t{5});
    QCOMPARE(sm->params[4].name, std::string("eps"));
    QCOMPARE(sm->params[4].defaultValue.f, 1e-5);
    QCOMPARE(r.closest("sofmax"), std::string("softmax"));
    QCOMPARE(r.closest("layernorm"), std::string("layer_norm"));
    QCOMPARE(r.closest("qwertyuiop"), std::string());
  }

  // The op reference in docs/program-format.md is the registry's own table, summaries and order
  // included (a changed signature or summary shows here first).
  void docsListEveryOp() {
    const std::string doc = readFile(sourceDir() + "/docs/program-format.md");
    QVERIFY(!doc.empty());
    for (const OpInfo& op : OpRegistry::instance().ops())
      QVERIFY2(doc.find("`" + op.signature + "`") != std::string::npos, op.signature.c_str());
    QVERIFY2(doc.find(OpRegistry::instance().markdownTable()) != std::string::npos,
             "docs/program-format.md's op reference differs from OpRegistry::markdownTable()");
  }
};

QTEST_GUILESS_MAIN(TestKsFormat)
#include "test_ks_format.moc"
