// Provenance: each class names the .ks line and column of the op call that made it, a hashconsed
// class every line that reached it; plan steps and kernels map back to lines; sessions save the
// places (version 5) and a version 4 file loads without them.
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/devices/device_info.h"
#include "engine/io/program_source.h"
#include "engine/session/run_json.h"
#include "engine/session/session.h"
#include "engine/session/source_links.h"
#include "tests/require_opencl.h"

using namespace ks;
using json = nlohmann::json;

namespace {
const char* kText =
    "# provenance.ks\n"
    "input x: f32[4, 8]\n"
    "param w: f32[8, 3] = normal(std=0.1, seed=1)\n"
    "h = relu(x @ w)\n"
    "y = softmax(h, axis=-1) +   relu(x @ w)\n"
    "output y\n";

std::vector<int> linesOf(const std::vector<SourcePlace>& places) {
  std::vector<int> r;
  for (const SourcePlace& p : places) r.push_back(p.line);
  return r;
}

bool haveOpenCL() {
  for (auto& d : discoverDevices())
    if (d.compiles()) return true;
  return false;
}

ClassId classNamed(const Program& p, const std::string& name) {
  for (const ProgramOutput& o : p.outputs)
    if (o.name == name) return o.cls;
  return {};
}
}  // namespace

class TestProvenance : public QObject {
  Q_OBJECT
 private slots:
  void classesNameTheirLines() {
    const Program p = parseKs(kText, "provenance.ks");
    const Graph& g = p.graph;
    QCOMPARE(linesOf(p.places.of(g, p.inputs[0].cls)), (std::vector<int>{2}));
    QCOMPARE(linesOf(p.places.of(g, p.params[0].cls)), (std::vector<int>{3}));
    const ClassId y = classNamed(p, "y");
    QCOMPARE(linesOf(p.places.of(g, y)), (std::vector<int>{5}));
    // The relu of line 4 is hashconsed by line 5's second relu: both places, with their columns.
    const std::vector<ClassId> at4 = p.places.classesAtLine(g, 4);
    QVERIFY(!at4.empty());
    const ClassId h = at4.back();
    QCOMPARE(g.structural(h).label(), std::string("max"));  // relu is max(x, 0)
    const std::vector<SourcePlace> hp = p.places.of(g, h);
    QCOMPARE(linesOf(hp), (std::vector<int>{4, 5}));
    QCOMPARE(hp[0].column, 5);   // h = relu(...
    QCOMPARE(hp[1].column, 29);  // ... +   relu(...
    // The last class a line makes is its statement's result.
    QCOMPARE(p.places.classesAtLine(g, 5).back(), g.find(y));
    QCOMPARE(p.places.linesOf(g, {y, h}), (std::vector<int>{4, 5}));
    QVERIFY(p.places.classesAtLine(g, 1).empty());  // a comment makes nothing
    QCOMPARE(placesText(hp), std::string("line 4:5, line 5:29"));
    QCOMPARE(linesText({4, 5, 6, 9}), std::string("lines 4-6, 9"));
    QCOMPARE(linesText({7}), std::string("line 7"));
  }

  // A merge (as a rewrite makes: x + 0 -> x) joins the places of both classes.
  void mergedClassesJoinTheirPlaces() {
    Program p = parseKs("input x: f32[4]\na = x + 0.0\nb = exp(a)\noutput b\n", "merge.ks");
    const ClassId x = p.inputs[0].cls, a = p.places.classesAtLine(p.graph, 2).back();
    QVERIFY(p.graph.merge(x, a, "test: x + 0 -> x"));
    p.graph.rebuild();
    QCOMPARE(linesOf(p.places.of(p.graph, x)), (std::vector<int>{1, 2}));
    QCOMPARE(linesOf(p.places.of(p.graph, a)), (std::vector<int>{1, 2}));
    const std::vector<ClassId> at2 = p.places.classesAtLine(p.graph, 2);
    QVERIFY(std::find(at2.begin(), at2.end(), p.graph.find(x)) != at2.end());
    const auto all = p.places.byCanonicalClass(p.graph);
    QCOMPARE(linesOf(all[p.graph.find(x).v]), (std::vector<int>{1, 2}));
  }

  void sessionsKeepPlacesAndPlanStepsNameLines() {
    if (!haveOpenCL()) KS_SKIP_WITHOUT_OPENCL();
    SessionOptions o;
    o.devices = "opencl:0:0";
    o.tune = TuneLevel::None;
    o.cache = "none";
    Session s(parseKs(kText, "provenance.ks"), o);
    s.runTo(Stage::Planned);
    std::vector<int> covered;
    for (std::size_t i = 0; i < s.trace().plan.steps.size(); ++i)
      for (int l : sourceLines(s, classesOfStep(s, i))) covered.push_back(l);
    QVERIFY(std::count(covered.begin(), covered.end(), 4) > 0);
    QVERIFY(std::count(covered.begin(), covered.end(), 5) > 0);
    const ClassId y = classNamed(s.program(), "y");
    const auto k = kernelComputing(s, y);
    QVERIFY(k.has_value());
    QCOMPARE(sourceLines(s, classesOfKernel(s, *k)).back(), 5);
    // Saved and loaded: the same places, in a version 6 file.
    const json j = json::parse(s.toJson());
    QCOMPARE(j.at("version").get<int>(), 10);
    QVERIFY(j["program"]["places"].size() >= 5);
    const Session back = Session::fromJson(s.toJson());
    const ClassId h = s.program().places.classesAtLine(s.graph(), 4).back();
    QVERIFY(back.program().places.of(back.graph(), h) == s.program().places.of(s.graph(), h));
    // A place naming a class the graph does not have is refused with its JSON pointer.
    json bad = j;
    bad["program"]["places"][0]["class"] = 99999;
    try {
      Session::fromJson(bad.dump());
      QFAIL("a place of class 99999 loaded");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("/program/places/0/class") != std::string::npos, e.what());
    }
  }

  void version4FileLoadsWithoutPlaces() {
    const std::string path = std::string(KS_SOURCE_DIR) + "/tests/data/sessions/softmax_v4.kss.json";
    QCOMPARE(json::parse(std::ifstream(path)).at("version").get<int>(), 4);
    const Session s = Session::load(path);
    QVERIFY(s.program().places.empty());
    QVERIFY(s.hasStage(Stage::Planned));
    for (std::size_t i = 0; i < s.trace().plan.steps.size(); ++i) QVERIFY(sourceLines(s, classesOfStep(s, i)).empty());
    const json saved = json::parse(s.toJson());
    QCOMPARE(saved.at("version").get<int>(), 10);
    QVERIFY(!saved["program"].contains("places"));
  }
};

QTEST_APPLESS_MAIN(TestProvenance)
#include "test_provenance.moc"
