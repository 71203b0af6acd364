// The collapsed e-graph overview of an imported ONNX model: groups follow the node-name scopes
// ("/layer1/layer1.0/conv1/Conv" -> "/layer1/layer1.0/conv1"), folded to shallower scopes when
// there are more than the picture allows, and id ranges where the classes name no ONNX node.
#include <QtTest>

#include <set>

#include "engine/program/builder.h"
#include "engine/viz/collapse.h"
#include "engine/viz/egraph_picture.h"
#include "engine/viz/scope_groups.h"

using namespace ks;
using namespace ks::viz;

namespace {

// Four residual-style blocks of two modules, 60 ops each (480 classes: large enough to collapse),
// every op noted under the ONNX node name a PyTorch export would give it.
Program scopedProgram(bool named) {
  ProgramBuilder b("scoped");
  Value x = b.input("x", DType::F32, {4});
  for (int block = 0; block < 4; ++block)
    for (const char* module : {"conv1", "relu"}) {
      const std::string node = "/layer1/layer1." + std::to_string(block) + "/" + module + "/Op";
      b.setLocation(named ? SourceLoc("m.onnx", 0, 0, node) : SourceLoc());
      for (int i = 0; i < 60; ++i) x = op::add(op::exp(x), static_cast<double>(block * 1000 + i));
    }
  b.output("y", x);
  return b.finish();
}

std::vector<std::string> labels(const Picture& p) {
  std::vector<std::string> r;
  for (const Group& g : p.groups) r.push_back(g.label);
  return r;
}

}  // namespace

class TestScopeGroups : public QObject {
  Q_OBJECT
 private slots:
  void groupsFollowModules() {
    const Program prog = scopedProgram(true);
    const Picture pic = egraphPicture(prog.graph, {nullptr, prog.outputClasses(), 150, &prog.places});
    QVERIFY(pic.opensCollapsed());
    QCOMPARE(labels(pic), (std::vector<std::string>{"/layer1/layer1.0/conv1", "/layer1/layer1.0/relu",
                                                    "/layer1/layer1.1/conv1", "/layer1/layer1.1/relu",
                                                    "/layer1/layer1.2/conv1", "/layer1/layer1.2/relu",
                                                    "/layer1/layer1.3/conv1", "/layer1/layer1.3/relu"}));
    // The input (no place of its own) sits with its first consumer; the output with the last module.
    QCOMPARE(pic.clusters[prog.inputs[0].cls.v].group, 0);
    QCOMPARE(pic.clusters[prog.graph.find(prog.outputs[0].cls).v].group, 7);
    for (const Cluster& c : pic.clusters) QVERIFY(c.group >= 0 && c.group < static_cast<int>(pic.groups.size()));
    QVERIFY(pic.groups[1].tooltip.find("scope /layer1/layer1.0/relu") == 0);
    const CollapsedView closed = collapse(pic, {});
    QCOMPARE(closed.visible.nodes.size(), pic.groups.size());
  }

  // More scopes than groups allowed: the modules fold into their blocks, then give up to id ranges.
  void foldsToShallowerScopes() {
    const Program prog = scopedProgram(true);
    const Picture four = egraphPicture(prog.graph, {nullptr, prog.outputClasses(), 4, &prog.places});
    QCOMPARE(labels(four), (std::vector<std::string>{"/layer1/layer1.0", "/layer1/layer1.1", "/layer1/layer1.2",
                                                     "/layer1/layer1.3"}));
    const Picture one = egraphPicture(prog.graph, {nullptr, prog.outputClasses(), 1, &prog.places});
    QCOMPARE(one.groups.size(), std::size_t{1});
    QVERIFY(one.groups[0].label.rfind("classes ", 0) == 0);
  }

  void unnamedClassesGroupByIds() {
    const Program prog = scopedProgram(false);
    const Picture pic = egraphPicture(prog.graph, {nullptr, prog.outputClasses(), 150, &prog.places});
    QVERIFY(!pic.groups.empty());
    for (const Group& g : pic.groups) QVERIFY2(g.label.rfind("classes ", 0) == 0 || g.label == "leaves", g.label.c_str());
  }

  void scopesAtDepth() {
    const std::vector<std::vector<SourcePlace>> places{{}, {{0, 0, "/a/b/c/Conv"}}, {{0, 0, "/Relu"}}, {}};
    const std::vector<uint32_t> order{0, 1, 2, 3};
    QCOMPARE(classScopes(places, order, 9), (std::vector<std::string>{"/a/b/c", "/a/b/c", "", ""}));
    QCOMPARE(classScopes(places, order, 1), (std::vector<std::string>{"/a", "/a", "", ""}));
    QVERIFY(classScopes({{}, {}}, {0, 1}, 9).empty());
  }
};

QTEST_GUILESS_MAIN(TestScopeGroups)
#include "test_scope_groups.moc"
