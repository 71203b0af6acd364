// The picture model: builders for the e-graph, a fusion state and the plan; collapsing a large
// picture into groups and opening them; the DOT and JSON renderings.
#include <QtTest>

#include <nlohmann/json.hpp>
#include <set>

#include "engine/core/error.h"
#include "engine/kernelizer/kernelizer.h"
#include "engine/plan/exec_plan.h"
#include "engine/plan/extractor.h"
#include "engine/program/builder.h"
#include "engine/rewrite/rule_set.h"
#include "engine/rewrite/runner.h"
#include "engine/viz/collapse.h"
#include "engine/viz/egraph_picture.h"
#include "engine/viz/fusion_picture.h"
#include "engine/viz/layout_cost.h"
#include "engine/viz/picture_dot.h"
#include "engine/viz/picture_json.h"
#include "engine/viz/plan_picture.h"
#include "tests/views/transformer_stack.h"

using namespace ks;
using namespace ks::viz;

namespace {
Program softmaxProgram() {
  ProgramBuilder b;
  Value x = b.input("x", DType::F32, {4, 8});
  b.output("out", op::softmax(x, 0));
  return b.finish();
}

std::set<std::string> ids(const Picture& p) {
  std::set<std::string> out;
  for (const viz::Node& n : p.nodes) out.insert(n.id);
  return out;
}

// exp(x) with one kernel alternative, extracted.
struct Extracted {
  Graph g;
  ClassId x, y;
  NodeId kernel;
  Extraction ex;
};
Extracted extractedExp() {
  Extracted e;
  e.x = e.g.addLeaf({"x", LeafKind::Input, DType::F32, {4}, nullptr});
  ks::Node u;
  u.kind = NodeKind::Unary;
  u.op = static_cast<uint8_t>(UnaryOp::Exp);
  u.in = {e.x};
  e.y = e.g.add(u);
  ks::Node k;
  k.kind = NodeKind::Kernel;
  k.in = {e.x};
  k.out = {e.y};
  k.timeNs = 1500;
  e.kernel = e.g.addAlternative(e.y, k);
  e.ex = extract(e.g, {e.y}, {{0}, {true}, {}});
  return e;
}
}  // namespace

class TestViz : public QObject {
  Q_OBJECT
 private slots:
  // An e-node a rewrite added names its rule and round, on the box and in the tooltip.
  void rewriteAddedENodesNameTheirRule() {
    ProgramBuilder b;
    Value x = b.input("x", DType::F32, {4, 8});
    b.output("y", op::exp(op::pow(x, 2.0)));
    Program p = b.finish();
    const std::size_t before = p.graph.nodeCount();
    const RewriteReport r = saturate(p.graph, selectRules({RewriteMode::Default, {}, {}}), RewriteLimits{});
    QVERIFY(p.graph.nodeCount() > before);
    EGraphPictureOptions o;
    o.outputs = p.outputClasses();
    o.rewrites = &r.steps;
    const Picture pic = egraphPicture(p.graph, o);
    int named = 0;
    for (const viz::Node& n : pic.nodes) {
      const bool added = n.subject.id >= before;
      const bool says = n.label.find("+pow-square r1") != std::string::npos;
      QCOMPARE(says, added);
      if (says) {
        ++named;
        QVERIFY2(n.tooltip.find("added by rule pow-square in round 1") != std::string::npos, n.tooltip.c_str());
      }
    }
    QCOMPARE(named, static_cast<int>(p.graph.nodeCount() - before));
    // Without the merges, no e-node says so.
    for (const viz::Node& n : egraphPicture(p.graph, {nullptr, p.outputClasses()}).nodes) QVERIFY(n.label.find("+pow") == std::string::npos);
  }

  void egraphHasAClusterPerClassAndANodePerENode() {
    const Program p = softmaxProgram();
    const Picture pic = egraphPicture(p.graph, {nullptr, p.outputClasses()});
    QCOMPARE(pic.clusters.size(), p.graph.classCount());
    QCOMPARE(pic.nodes.size(), p.graph.nodeCount());
    QCOMPARE(ids(pic).size(), pic.nodes.size());
    QVERIFY(pic.groups.empty());  // small: opens whole
    std::size_t operands = 0;
    for (uint32_t n = 0; n < p.graph.nodeCount(); ++n) operands += p.graph.node(NodeId(n)).in.size();
    QCOMPARE(pic.edges.size(), operands);
    const int x = pic.findSubject({SubjectKind::ENode, p.graph.eclass(p.graph.leafClass(0)).nodes.front().v});
    QVERIFY(x >= 0);
    QCOMPARE(pic.nodes[x].style, Style::Leaf);
    QVERIFY(pic.nodes[x].label.rfind("input x\nf32[4, 8]", 0) == 0);
    const uint32_t out = p.outputClasses().front().v;
    QVERIFY(pic.clusters[out].highlighted);
    QCOMPARE(pic.nodes[pic.findNode("n" + std::to_string(p.graph.eclass(ClassId(out)).nodes.front().v))].style, Style::Output);
  }

  void egraphShowsTheExtractedChoiceAndCost() {
    const Extracted e = extractedExp();
    const Picture pic = egraphPicture(e.g, {&e.ex, {e.y}});
    const int k = pic.findNode("n" + std::to_string(e.kernel.v));
    QVERIFY(k >= 0);
    QCOMPARE(pic.nodes[k].style, Style::Chosen);
    QVERIFY(pic.nodes[k].label.find("cost 1.5 us") != std::string::npos);
    QVERIFY(pic.nodes[k].tooltip.find("chosen by extraction") != std::string::npos);
    // The structural exp node is the alternative the kernel beat.
    const int u = pic.findNode("n" + std::to_string(e.g.eclass(e.y).nodes.front().v));
    QCOMPARE(pic.nodes[u].style, Style::Alternative);
  }

  void largeEGraphOpensCollapsedAndGroupsOpen() {
    const testgen::TransformerStack t = testgen::makeTransformerStack(6);
    const Picture pic = egraphPicture(t.program.graph, {nullptr, t.program.outputClasses(), 40});
    QVERIFY(pic.opensCollapsed());
    QVERIFY(!pic.groups.empty() && pic.groups.size() <= 40);
    const CollapsedView closed = collapse(pic, {});
    QCOMPARE(closed.hidden, static_cast<int>(pic.nodes.size()));
    QCOMPARE(closed.visible.nodes.size(), pic.groups.size());
    // Every non-weak edge between two groups is counted in the merged overview edges.
    int across = 0;
    for (const viz::Edge& e : pic.edges)
      if (!e.weak && pic.groupOfNode(e.from) != pic.groupOfNode(e.to)) ++across;
    int merged = 0;
    for (const viz::Edge& e : closed.visible.edges) merged += e.count;
    QCOMPARE(merged, across);

    const CollapsedView opened = collapse(pic, {2});
    QCOMPARE(opened.hidden, static_cast<int>(pic.nodes.size()) - opened.groupSize[2]);
    QCOMPARE(opened.visible.nodes.size(), pic.groups.size() + static_cast<std::size_t>(opened.groupSize[2]));
    const int frame = opened.visible.findNode(pic.groups[2].id);
    QVERIFY(frame >= 0);
    QCOMPARE(opened.visible.nodes[frame].label, pic.groups[2].label);  // a frame, no count
    int inner = 0;
    for (const viz::Edge& e : pic.edges)
      if (pic.groupOfNode(e.from) == 2 && pic.groupOfNode(e.to) == 2) ++inner;
    QCOMPARE(static_cast<int>(opened.open.at(2).picture.edges.size()), inner);
    for (std::size_t i = 0; i < opened.visible.nodes.size(); ++i) {
      const ShownNode& s = opened.shownNodes[i];
      if (s.fullNode >= 0) QCOMPARE(opened.visible.nodes[i].id, pic.nodes[s.fullNode].id);
    }
  }

  // Parameters are created first; grouped by id they would all sit in the first groups with an
  // edge to every block. Each sits with the class that first uses it.
  void leavesSitWithTheirFirstConsumer() {
    const testgen::TransformerStack t = testgen::makeTransformerStack(6);
    const Graph& g = t.program.graph;
    const Picture pic = egraphPicture(g, {nullptr, t.program.outputClasses(), 40});
    int checked = 0;
    for (const ProgramParam& param : t.program.params) {
      uint32_t first = UINT32_MAX;
      for (uint32_t c = 0; c < g.classCount() && first == UINT32_MAX; ++c)
        for (ClassId in : g.structural(ClassId(c)).in)
          if (in == param.cls) first = c;
      QVERIFY(first != UINT32_MAX);
      QCOMPARE(pic.clusters[param.cls.v].group, pic.clusters[first].group);
      ++checked;
    }
    QVERIFY(checked > 50);
  }

  void fusionStateHasAClusterPerKernel() {
    const Program p = softmaxProgram();
    const KernelizeResult r = kernelize(p.graph, p.outputClasses());
    QVERIFY(!r.error);
    const TraceState last = r.trace.finalState();
    const Picture pic = fusionPicture(r.trace, -1, &p.graph);
    QCOMPARE(pic.clusters.size(), last.size());
    QCOMPARE(ids(pic).size(), pic.nodes.size());
    QVERIFY(pic.title.rfind("after step " + std::to_string(r.trace.steps.size() - 1), 0) == 0);
    std::size_t loads = 0, computed = 0;
    for (const auto& [id, k] : last) {
      loads += k.loads.size();
      computed += k.classes.size();
    }
    QCOMPARE(pic.nodes.size(), loads + computed);
    bool memory = false;
    for (const viz::Edge& e : pic.edges) memory = memory || e.memory;
    QVERIFY(memory);  // a column softmax stores the max and the sum and loads them again
    // Step 0's state: one kernel, the one the step made.
    const Picture first = fusionPicture(r.trace, 0, &p.graph);
    QCOMPARE(first.clusters.size(), r.trace.stateAfter(1).size());
  }

  void planHasAStepPerLaunchAndOutputs() {
    const Extracted e = extractedExp();
    KernelEntry entry;
    entry.schedule = "default";
    entry.timeNs = 1500;
    const std::vector<KernelEntry> entries{entry};
    const ExecPlan plan = buildPlan(e.g, {e.y}, e.ex, entries, {{0}, {true}, {}}, {"opencl:0:0"});
    const std::vector<std::string> kernels{"k0 exp"}, devices{"opencl:0:0"};
    const Picture pic = planPicture({plan, entries, kernels, devices});
    QVERIFY(pic.findNode("s0") >= 0);
    QVERIFY(pic.nodes[pic.findNode("s0")].label.find("k0 exp\ndefault\nopencl:0:0") != std::string::npos);
    QCOMPARE(pic.findSubject({SubjectKind::PlanOutput, plan.outputs.front().second}) >= 0, true);
    QCOMPARE(pic.edges.size(), std::size_t(1));
  }

  void dotHasEveryNodeAndEscapes() {
    Picture p;
    p.name = "t";
    p.clusters.push_back({"c0", "cluster \"zero\"", "", -1, {}, true});
    p.nodes.push_back({"a", "first\nsecond", "tip", Style::Chosen, 0, {}, false});
    p.nodes.push_back({"b", "b", "", Style::Copy, -1, {}, false});
    p.edges.push_back({0, 1, 3, "", false, true});
    const std::string dot = toDot(p);
    QVERIFY(dot.rfind("digraph \"t\"", 0) == 0);
    QVERIFY(dot.find("subgraph cluster_0") != std::string::npos);
    QVERIFY(dot.find("label=\"cluster \\\"zero\\\"\"") != std::string::npos);
    QVERIFY(dot.find("n0 [label=\"first\\nsecond\"") != std::string::npos);
    QVERIFY(dot.find("shape=ellipse") != std::string::npos);
    QVERIFY(dot.find("n0 -> n1 [label=\"x3\", style=dashed]") != std::string::npos);
  }

  void jsonNamesIdsAndTheVisiblePart() {
    const testgen::TransformerStack t = testgen::makeTransformerStack(4);
    const Picture pic = egraphPicture(t.program.graph, {nullptr, t.program.outputClasses(), 30});
    const auto j = nlohmann::json::parse(toJson(pic, groupsNamed(pic, "g1")));
    QCOMPARE(j["picture"].get<std::string>(), std::string("egraph"));
    QVERIFY(j["collapsed"].get<bool>());
    QCOMPARE(j["nodes"].size(), pic.nodes.size());
    QCOMPARE(j["edges"].size(), pic.edges.size());
    QCOMPARE(j["groups"][1]["open"].get<bool>(), true);
    QCOMPARE(j["groups"][0]["open"].get<bool>(), false);
    const CollapsedView v = collapse(pic, {1});
    QCOMPARE(j["visible"]["nodes"].size(), v.visible.nodes.size());
    QCOMPARE(j["visible"]["edges"].size(), v.visible.edges.size());
    QCOMPARE(j["visible"]["hidden"].get<int>(), v.hidden);
    std::set<std::string> visibleIds;
    for (const auto& n : j["visible"]["nodes"]) visibleIds.insert(n["id"].get<std::string>());
    QCOMPARE(visibleIds.size(), v.visible.nodes.size());
    for (const auto& e : j["visible"]["edges"]) {
      QVERIFY(visibleIds.count(e["from"].get<std::string>()));
      QVERIFY(visibleIds.count(e["to"].get<std::string>()));
    }
  }

  void groupsAreNamedByIdOrAll() {
    Picture p;
    p.name = "egraph";
    p.groups = {{"g0", "", ""}, {"g1", "", ""}};
    QCOMPARE(groupsNamed(p, ""), std::set<int>{});
    QCOMPARE(groupsNamed(p, "g1"), std::set<int>{1});
    QCOMPARE(groupsNamed(p, "all"), (std::set<int>{0, 1}));
    try {
      groupsNamed(p, "g0,g7");
      QFAIL("an unknown group was accepted");
    } catch (const Error& e) {
      QCOMPARE(e.code(), ErrorCode::Usage);
      QVERIFY(std::string(e.what()).find("'g7'") != std::string::npos);
    }
  }

  // dot's virtual nodes, counted by hand: ranks by longest path, a cycle's closing edge reversed.
  void dotVirtualNodesCountLongEdges() {
    QCOMPARE(dotVirtualNodes(3, {{0, 1}, {1, 2}}), 0L);
    QCOMPARE(dotVirtualNodes(3, {{0, 1}, {1, 2}, {0, 2}}), 1L);        // 0->2 spans two ranks
    QCOMPARE(dotVirtualNodes(3, {{0, 1}, {1, 2}, {2, 0}}), 1L);        // reversed: 0->2
    QCOMPARE(dotVirtualNodes(4, {{0, 0}, {0, 9}, {-1, 2}, {0, 3}}), 0L);  // loops, bad ids ignored
    QCOMPARE(dotVirtualNodes(0, {}), 0L);
    // A 100,000-node chain is counted without recursion.
    std::vector<std::pair<int, int>> chain;
    for (int i = 0; i + 1 < 100000; ++i) chain.push_back({i, i + 1});
    chain.push_back({0, 99999});
    QCOMPARE(dotVirtualNodes(100000, chain), 99998L);
  }

  // A graph whose long edges would make dot run for minutes (a collapsed overview linking far-apart
  // groups did) goes to neato; an ordinary one keeps dot. The SVG of the first renders.
  void longSpanGraphsAreLaidOutByNeato() {
    std::vector<std::pair<int, int>> edges;
    for (int i = 0; i + 1 < 200; ++i) edges.push_back({i, i + 1});
    QCOMPARE(std::string(layoutEngineFor(200, edges)), std::string("dot"));
    for (int i = 2; i < 200; ++i) edges.push_back({0, i});
    QVERIFY(dotVirtualNodes(200, edges) > kMaxDotVirtualNodes);
    QCOMPARE(std::string(layoutEngineFor(200, edges)), std::string("neato"));
#ifdef KS_WITH_GRAPHVIZ
    std::string dot = "digraph g {\n";
    for (const auto& [a, b] : edges) dot += "  n" + std::to_string(a) + " -> n" + std::to_string(b) + ";\n";
    dot += "}\n";
    const std::string svg = renderDot(dot, "svg");
    QVERIFY(svg.find("<svg") != std::string::npos);
    QVERIFY(svg.find(">n199<") != std::string::npos);
#endif
  }
};

QTEST_APPLESS_MAIN(TestViz)
#include "test_viz.moc"
