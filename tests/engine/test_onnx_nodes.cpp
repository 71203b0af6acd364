// The ONNX node table an import records (OnnxImportResult::nodes): the real node names, op types,
// operands and result types of samples/onnx/cnn.onnx, the classes each node made (from
// provenance), the name generated for an unnamed node, and the name scope of a node.
#include <QtTest>

#include <algorithm>

#include "engine/io/onnx_importer.h"

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
    for (const OnnxNodeInfo& n : m.nodes) names.push_back(n.name), ops.push_back(n.opType);
    QCOMPARE(names, (std::vector<std::string>{"/c1/Conv", "/Relu", "/MaxPool", "/c2/Conv", "/Relu_1", "/MaxPool_1",
                                              "/Flatten", "/f1/Gemm", "/Relu_2", "/f2/Gemm", "/Relu_3", "/f3/Gemm",
                                              "/LogSoftmax"}));
    QCOMPARE(ops, (std::vector<std::string>{"Conv", "Relu", "MaxPool", "Conv", "Relu", "MaxPool", "Flatten", "Gemm",
                                            "Relu", "Gemm", "Relu", "Gemm", "LogSoftmax"}));
    const OnnxNodeInfo& conv = m.nodes[0];
    QCOMPARE(conv.inputs.size(), std::size_t{3});
    QCOMPARE(conv.inputs[0], p.inputs[0].name);
    QCOMPARE(conv.inputs[1], std::string("c1.weight"));
    QCOMPARE(conv.inputs[2], std::string("c1.bias"));
    QCOMPARE(conv.outputs, (std::vector<std::string>{"/c1/Conv_output_0"}));
    QCOMPARE(conv.outputShapes, (std::vector<Shape>{{16, 6, 28, 28}}));
    QCOMPARE(conv.outputDTypes, (std::vector<DType>{DType::F32}));
    QCOMPARE(m.nodes[5].outputShapes, (std::vector<Shape>{{16, 16, 5, 5}}));
    QCOMPARE(m.nodes[6].outputShapes, (std::vector<Shape>{{16, 400}}));
    QCOMPARE(m.nodes.back().outputs, (std::vector<std::string>{p.outputs[0].name}));
  }

  // Each node's classes: the conv's weight parameter is the conv's (materialized there), the
  // program output is the last node's, and every node made at least one class.
  void cnnClasses() {
#ifndef KS_WITH_ONNX
    QSKIP("built without ONNX");
#endif
    const OnnxImportResult m = importOnnxModel(src("samples/onnx/cnn.onnx"));
    const Program& p = m.program;
    const auto classes = onnxNodeClasses(m.nodes, p.places, p.graph);
    QCOMPARE(classes.size(), m.nodes.size());
    for (std::size_t i = 0; i < classes.size(); ++i) {
      QVERIFY2(!classes[i].empty(), m.nodes[i].name.c_str());
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
    QCOMPARE(m.nodes.size(), std::size_t{1});
    QCOMPARE(m.nodes[0].name, std::string("Gelu_0"));
    QCOMPARE(m.nodes[0].inputs, (std::vector<std::string>{"x"}));
    QCOMPARE(m.nodes[0].outputShapes, (std::vector<Shape>{{6, 11}}));
    const auto places = p.places.of(p.graph, p.outputs[0].cls);
    QVERIFY(!places.empty());
    QCOMPARE(places[0].node, std::string("Gelu_0"));
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
