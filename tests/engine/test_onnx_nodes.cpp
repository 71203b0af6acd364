// The ONNX node table an import records (Program::onnxNodes): the real node names, op types,
// operands and result types of samples/onnx/cnn.onnx, the classes each node made (from
// provenance), the name generated for an unnamed node, and the name scope of a node.
#include <QtTest>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/io/onnx_importer.h"
#include "engine/io/program_source.h"
#include "engine/session/session.h"

using namespace ks;

namespace {

std::string src(const std::string& rel) { return std::string(KS_SOURCE_DIR) + "/" + rel; }

bool contains(const std::vector<ClassId>& cs, ClassId c) { return std::find(cs.begin(), cs.end(), c) != cs.end(); }

}  // namespace

class TestOnnxNodes : public QObject {
  Q_OBJECT
 private slots:
  // LeNet as PyTorch exported it: 13 nodes in model order under their exporter names.
  void cnnTable() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    const OnnxImportResult m = importOnnxModel(src("samples/onnx/cnn.onnx"));
    const Program& p = m.program;
    std::vector<std::string> names, ops;
    for (const OnnxNodeInfo& n : m.program.onnxNodes) names.push_back(n.name), ops.push_back(n.opType);
    QCOMPARE(names, (std::vector<std::string>{"/c1/Conv", "/Relu", "/MaxPool", "/c2/Conv", "/Relu_1", "/MaxPool_1",
                                              "/Flatten", "/f1/Gemm", "/Relu_2", "/f2/Gemm", "/Relu_3", "/f3/Gemm",
                                              "/LogSoftmax"}));
    QCOMPARE(ops, (std::vector<std::string>{"Conv", "Relu", "MaxPool", "Conv", "Relu", "MaxPool", "Flatten", "Gemm",
                                            "Relu", "Gemm", "Relu", "Gemm", "LogSoftmax"}));
    const OnnxNodeInfo& conv = m.program.onnxNodes[0];
    QCOMPARE(conv.inputs.size(), std::size_t{3});
    QCOMPARE(conv.inputs[0], p.inputs[0].name);
    QCOMPARE(conv.inputs[1], std::string("c1.weight"));
    QCOMPARE(conv.inputs[2], std::string("c1.bias"));
    QCOMPARE(conv.outputs, (std::vector<std::string>{"/c1/Conv_output_0"}));
    QCOMPARE(conv.outputShapes, (std::vector<Shape>{{16, 6, 28, 28}}));
    QCOMPARE(conv.outputDTypes, (std::vector<DType>{DType::F32}));
    QCOMPARE(m.program.onnxNodes[5].outputShapes, (std::vector<Shape>{{16, 16, 5, 5}}));
    QCOMPARE(m.program.onnxNodes[6].outputShapes, (std::vector<Shape>{{16, 400}}));
    QCOMPARE(m.program.onnxNodes.back().outputs, (std::vector<std::string>{p.outputs[0].name}));
  }

  // Each node's classes: the conv's weight parameter is the conv's (materialized there), the
  // program output is the last node's, and every node made at least one class.
  void cnnClasses() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    const OnnxImportResult m = importOnnxModel(src("samples/onnx/cnn.onnx"));
    const Program& p = m.program;
    const auto classes = onnxNodeClasses(m.program.onnxNodes, p.places, p.graph);
    QCOMPARE(classes.size(), m.program.onnxNodes.size());
    for (std::size_t i = 0; i < classes.size(); ++i) {
      QVERIFY2(!classes[i].empty(), m.program.onnxNodes[i].name.c_str());
      QVERIFY(std::is_sorted(classes[i].begin(), classes[i].end()));
    }
    ClassId weight;
    for (const ProgramParam& prm : p.params)
      if (prm.name == "c1.weight") weight = prm.cls;
    QVERIFY(weight.valid());
    QVERIFY(contains(classes[0], p.graph.find(weight)));
    QVERIFY(!contains(classes[1], p.graph.find(weight)));
    QVERIFY(contains(classes.back(), p.graph.find(p.outputs[0].cls)));
  }

  // A node the model leaves unnamed is called "<op type>_<index>", in the table and in provenance.
  void unnamedNode() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    const OnnxImportResult m = importOnnxModel(src("tests/data/onnx/test_gelu/model.onnx"));
    const Program& p = m.program;
    QCOMPARE(m.program.onnxNodes.size(), std::size_t{1});
    QCOMPARE(m.program.onnxNodes[0].name, std::string("Gelu_0"));
    QCOMPARE(m.program.onnxNodes[0].inputs, (std::vector<std::string>{"x"}));
    QCOMPARE(m.program.onnxNodes[0].outputShapes, (std::vector<Shape>{{6, 11}}));
    const auto places = p.places.of(p.graph, p.outputs[0].cls);
    QVERIFY(!places.empty());
    QCOMPARE(places[0].node, std::string("Gelu_0"));
  }

  // A session keeps the node table: a saved and reopened model lists the same nodes, operands and
  // result types, and its classes still come from the places; a node whose types do not match its
  // outputs is refused, naming where.
  void sessionKeepsTheTable() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    SessionOptions o;
    o.tune = TuneLevel::None;
    o.cache = "none";
    const Session s(loadProgramFile(src("samples/onnx/cnn.onnx")), o);
    const Session back = Session::fromJson(s.toJson(), "cnn.kss.json");
    const auto& a = s.program().onnxNodes;
    const auto& b = back.program().onnxNodes;
    QCOMPARE(b.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      QCOMPARE(b[i].name, a[i].name);
      QCOMPARE(b[i].opType, a[i].opType);
      QCOMPARE(b[i].inputs, a[i].inputs);
      QCOMPARE(b[i].outputs, a[i].outputs);
      QCOMPARE(b[i].outputShapes, a[i].outputShapes);
      QCOMPARE(b[i].outputDTypes, a[i].outputDTypes);
    }
    const Program& p = back.program();
    QCOMPARE(onnxNodeClasses(b, p.places, p.graph), onnxNodeClasses(a, s.program().places, s.program().graph));

    nlohmann::json j = nlohmann::json::parse(s.toJson());
    j["program"]["onnx_nodes"][3]["types"] = nlohmann::json::array();
    try {
      Session::fromJson(j.dump(), "edited.kss.json");
      QFAIL("a node with no types loaded");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("/program/onnx_nodes/3/types") != std::string::npos, e.what());
    }
  }

  // A version-9 file of the same model (before the table was kept) loads with no table and its
  // places intact.
  void versionNineLoadsWithoutTheTable() {
    const Session s = Session::load(src("tests/data/sessions/cnn_v9.kss.json"));
    QVERIFY(s.program().onnxNodes.empty());
    QVERIFY(!s.program().places.of(s.program().graph, s.program().outputs[0].cls).empty());
    QCOMPARE(s.program().places.of(s.program().graph, s.program().outputs[0].cls)[0].node, std::string("/LogSoftmax"));
  }

  void nameScope() {
    QCOMPARE(onnxNameScope("/layer1/layer1.0/conv1"), std::string("/layer1/layer1.0"));
    QCOMPARE(onnxNameScope("/layer1/layer1.0/conv1/Conv"), std::string("/layer1/layer1.0/conv1"));
    QCOMPARE(onnxNameScope("/Relu"), std::string());
    QCOMPARE(onnxNameScope("Gelu_0"), std::string());
  }
};

QTEST_GUILESS_MAIN(TestOnnxNodes)
#include "test_onnx_nodes.moc"
