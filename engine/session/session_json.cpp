// Session files (.kss.json, versioned): everything a GUI needs to reopen the pipeline offline.
// Parameter values given as data (ONNX weights) are not stored; random initializers are.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/core/file_io.h"
#include "engine/core/json_read.h"
#include "engine/core/scalar_json.h"
#include "engine/devices/device_runtime.h"
#include "engine/session/run_json.h"
#include "engine/session/session_check.h"
#include "engine/session/session.h"
#include "engine/tune/tuning_cache.h"

namespace ks {

namespace {
constexpr const char* kSessionFileWhat = "a session file (.kss.json)";
// 2: the e-graph may hold merged classes (graph JSON version 2) and the trace has "rewrite".
// Version 1 files load as they are (no rewrite ran).
// 3: the fusion trace writes a kernel that only grew by what it gained (fusion trace version 2), so
// a chain of appends writes each class once, not once per later step of its kernel. Versions 1
// and 2 hold whole states and load as they are.
// 4: plan steps say "zero_copy" and buffers their "alias" (a zero-copy step's destination is its
// source's memory), devices "host_visible", runs their "verification" (mode, elements compared,
// time). Earlier files load with every copy a real copy and each verified run taken as full.
// 5: the program says where each class came from ("places": the .ks line and column, or the ONNX
// node). Earlier files load with no places: nothing links back to the source.
// 6: the program's "updates" (each `param <- value` of a training program: the param's index and
// the value's class) and each run's "updates" (the params' new values). Without them a training
// session reopened as a program without updates, whose plan key then differed from the file's (a
// false "edited" warning), and its runs lost the updated values. Earlier files load without
// updates, as before.
// 7: the rewrite trace lists the candidate terms compiled ("candidates", "plan_candidate").
// Earlier files load with none (only the static best compiled).
// 8: every kernelizer run with its own trace ("fusion_runs": per candidate term, before and after
// AOT matching) and the run the plan's kernels come from ("plan_run"), instead of the one
// "fusion" run before AOT matching. Earlier files load that run as the only one, the plan's.
// 9: the plan choice ("plan_choice": every candidate plan measured, its devices, OpenBLAS threads,
// local-search variant and excluded nodes, predicted and measured time, step labels, and which was
// kept and why). Earlier files load without candidates, as a plan nobody compared.
// 10: an imported ONNX model's node table ("onnx_nodes": name, op type, operands, results and
// their types), so a reopened model shows its nodes, not only the node names of its places, and
// a tuning search may stop at "model budget" (the program's tuning time ran out). Earlier files
// load without the table.
constexpr int kVersion = 10;
using json = nlohmann::json;

template <class T>
std::vector<uint32_t> ids(const std::vector<T>& v) {
  std::vector<uint32_t> r;
  for (auto& x : v) r.push_back(x.v);
  return r;
}
std::vector<ClassId> classIds(const json& j) {
  std::vector<ClassId> r;
  for (uint32_t v : jsonAs<std::vector<uint32_t>>(j)) r.push_back(ClassId(v));
  return r;
}
std::vector<ClassId> classIds(const json& j, const char* key) {
  JsonPath at(key);
  return classIds(j.at(key));
}
DType dtypeOf(const json& j) {
  auto t = parseDType(j.get<std::string>());
  if (!t) throw Error(ErrorCode::Parse, "unknown dtype '" + j.get<std::string>() + "'");
  return *t;
}
DType dtypeOf(const json& j, const char* key) {
  JsonPath at(key);
  return dtypeOf(j.at(key));
}
// A kind written as one of two words.
bool kindIs(const json& j, const char* yes, const char* no) {
  const std::string k = jsonGet<std::string>(j, "kind");
  if (k != yes && k != no) {
    JsonPath at("kind");
    throw Error(ErrorCode::Parse, std::string("expected \"") + yes + "\" or \"" + no + "\", found \"" + k + "\"");
  }
  return k == yes;
}

json kernelJson(const Kernel& k) {
  json ops = json::array();
  for (const KOp& o : k.ops) {
    json oj = {{"kind", static_cast<int>(o.kind)}, {"op", o.op}, {"dtype", dtypeName(o.dtype)}, {"shape", o.shape}};
    if (!o.src.empty()) oj["src"] = o.src;
    if (!o.attr.empty()) oj["attr"] = o.attr;
    if (o.kind == KOpKind::Const || (o.kind == KOpKind::Move && o.moveKind() == MoveKind::Pad)) oj["value"] = scalarToJson(o.value);
    ops.push_back(oj);
  }
  return ops;
}
// Ops are taken as written (not through Kernel's builders): checkSession says what is wrong.
Kernel kernelFrom(const json& j) {
  Kernel k;
  if (!j.is_array()) throw Error(ErrorCode::Parse, "expected a list of ops");
  for (std::size_t i = 0; i < j.size(); ++i) {
    JsonPath at(i);
    const json& oj = j[i];
    KOp o;
    o.kind = static_cast<KOpKind>(jsonGet<uint8_t>(oj, "kind"));
    o.op = jsonGet<uint8_t>(oj, "op");
    o.dtype = dtypeOf(oj, "dtype");
    o.shape = jsonGet<Shape>(oj, "shape");
    o.src = jsonGet<std::vector<int32_t>>(oj, "src", {});
    o.attr = jsonGet<std::vector<int64_t>>(oj, "attr", {});
    if (oj.contains("value")) {
      JsonPath v("value");
      o.value = scalarFromJson(oj["value"]);
    }
    k.ops.push_back(std::move(o));
  }
  return k;
}
json fusedJson(const FusedKernel& f) {
  return {{"id", f.id}, {"kernel", kernelJson(f.kernel)}, {"loads", ids(f.loads)}, {"stores", ids(f.stores)},
          {"classes", ids(f.classes)}};
}
FusedKernel fusedFrom(const json& j) {
  FusedKernel f;
  f.id = jsonGet<int32_t>(j, "id");
  {
    JsonPath at("kernel");
    f.kernel = kernelFrom(j.at("kernel"));
  }
  f.loads = classIds(j, "loads");
  f.stores = classIds(j, "stores");
  f.classes = classIds(j, "classes");
  return f;
}

json fusionRunJson(const KernelizerRun& r) {
  json forms = json::array();
  for (auto [c, n] : r.forms) forms.push_back({c, n});
  return {{"candidate", r.candidate}, {"term", r.term}, {"after_aot", r.afterAot}, {"kernels", r.kernels},
          {"gemms", r.gemms}, {"forms", forms}, {"trace", json::parse(r.trace.toJson())}};
}

// Each record's keys and members, listed once for writing and reading: fields(r, f) calls f(key, member).
// What needs more than a plain conversion (kinds, tensors, lists left out when empty) is done by the callers.
template <class T, class U>
concept Is = std::same_as<std::remove_const_t<T>, U>;
void fields(Is<GemmSpec> auto& s, auto&& f) {
  f("batch", s.batch), f("m", s.m), f("n", s.n), f("k", s.k), f("trans_a", s.transA), f("trans_b", s.transB);
  f("stride_a", s.strideA), f("stride_b", s.strideB);
}
void fields(Is<TuneMeasurement> auto& m, auto&& f) {
  f("kernel", m.kernel), f("device", m.device), f("schedule", m.schedule), f("status", m.status), f("ns", m.ns);
  f("reason", m.reason), f("cached", m.cached);
}
void fields(Is<TuneSearch> auto& s, auto&& f) {  // and "stop_reason"
  f("kernel", s.kernel), f("device", s.device), f("winner", s.winner), f("winner_ns", s.winnerNs);
  f("candidates", s.candidates), f("measured", s.measured), f("cache_hits", s.cacheHits), f("build_ms", s.buildMs);
}
void fields(Is<KernelEntry> auto& e, auto&& f) {  // and "kind"
  f("fused", e.fused), f("device", e.device), f("schedule", e.schedule), f("schedule_json", e.scheduleJson);
  f("gemm", e.gemm), f("ns", e.timeNs), f("flops", e.flops), f("bytes", e.bytes);
}
void fields(Is<PlanStep> auto& s, auto&& f) {  // and "kind"
  f("node", s.node), f("device", s.device), f("kernel", s.kernel), f("inputs", s.inputs), f("outputs", s.outputs);
  f("label", s.label);
}
void fields(Is<PlanBuffer> auto& b, auto&& f) {
  f("class", b.cls), f("pool", b.pool), f("bytes", b.bytes), f("first", b.firstStep), f("last", b.lastStep);
  f("leaf", b.leaf), f("output", b.output), f("allocation", b.allocation);
}
void fields(Is<StepTiming> auto& s, auto&& f) {
  f("label", s.label), f("device", s.device), f("kind", s.kind), f("ns", s.ns), f("gflops", s.gflops), f("gbps", s.gbps);
}
void fields(Is<OutputValue> auto& o, auto&& f) {  // and "value"
  f("name", o.name), f("min", o.min), f("max", o.max), f("mean", o.mean), f("verified", o.verified);
  f("max_abs_error", o.maxAbsError), f("mismatch", o.mismatch);
}
void fields(Is<RunRecord> auto& r, auto&& f) {  // and the lists "steps" and "outputs"
  f("devices", r.devices), f("total_ns", r.totalNs), f("peak_bytes", r.peakBytes), f("verified", r.verified);
  f("verify_passed", r.verifyPassed);
}
void fields(Is<PlanCandidate> auto& c, auto&& f) {  // and "steps" (labels)
  f("devices", c.devices), f("allowed", c.allowed), f("blas_threads", c.blasThreads), f("variant", c.variant);
  f("excluded", c.excluded), f("predicted_ns", c.predictedNs), f("measured_ns", c.measuredNs), f("runs", c.runs);
  f("note", c.note), f("chosen", c.chosen);
}
void fields(Is<RuleRound> auto& r, auto&& f) {
  f("rule", r.rule), f("round", r.round), f("matches", r.matches), f("merges", r.merges), f("nodes_added", r.nodesAdded);
  f("ms", r.ms), f("banned", r.banned);
}
void fields(Is<RewriteStep> auto& s, auto&& f) {
  f("rule", s.rule), f("round", s.round), f("root", s.root), f("added", s.added), f("first_node", s.firstNode);
  f("end_node", s.endNode);
}
void fields(Is<RewriteReport> auto& r, auto&& f) {  // and "stop", "rules", "steps"
  f("stop_detail", r.stopDetail), f("rounds", r.rounds), f("nodes_before", r.nodesBefore), f("nodes_after", r.nodesAfter);
  f("classes_before", r.classesBefore), f("classes_after", r.classesAfter), f("ms", r.ms);
}
void fields(Is<TermCandidateRecord> auto& c, auto&& f) {
  f("source", c.source), f("static_ns", c.staticNs), f("differ", c.differ), f("kernels", c.kernels), f("gemms", c.gemms);
  f("plan_kernels", c.planKernels), f("plan_only", c.planOnly);
}
void fields(Is<RewriteTrace> auto& t, auto&& f) {  // and "report", "candidates", "plan_candidate"
  f("ran", t.ran), f("mode", t.mode), f("rules", t.rules), f("cached", t.cached), f("term_changes", t.termChanges);
  f("term_ns", t.termNs), f("original_ns", t.originalNs);
}
// One member to JSON and back; ids are stored as their numbers, a GemmSpec as a record.
json field(const auto& v) { return v; }
// JSON has no NaN or infinity (nlohmann writes null): they are the strings "nan", "inf", "-inf",
// as in tensor values. null, which older files hold for them, reads as NaN.
json field(double v) { return std::isfinite(v) ? json(v) : json(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"); }
double nonFinite(const json& j) {
  if (j.is_null()) return NAN;
  const std::string s = j.get<std::string>();
  if (s == "nan") return NAN;
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  throw Error(ErrorCode::Parse, "expected a number, \"nan\", \"inf\" or \"-inf\", found \"" + s + "\"");
}
json field(ClassId c) { return c.v; }
json field(NodeId n) { return n.v; }
json field(const std::vector<NodeId>& v) { return ids(v); }
json field(TuneStatus s) { return toString(s); }
json field(const GemmSpec& s);
template <class T>
void read(const json& j, T& v) { v = jsonAs<T>(j); }
void read(const json& j, ClassId& c) { c = ClassId(jsonAs<uint32_t>(j)); }
void read(const json& j, NodeId& n) { n = NodeId(jsonAs<uint32_t>(j)); }
void read(const json& j, std::vector<NodeId>& v) {
  for (uint32_t n : jsonAs<std::vector<uint32_t>>(j)) v.push_back(NodeId(n));
}
void read(const json& j, double& v) { v = j.is_null() || j.is_string() ? nonFinite(j) : jsonAs<double>(j); }
void read(const json& j, TuneStatus& s) {
  const auto status = tuneStatusFrom(j.get<std::string>());
  if (!status) throw Error(ErrorCode::Parse, "unknown tuning status '" + j.get<std::string>() + "'");
  s = *status;
}
void read(const json& j, GemmSpec& s);
json recordJson(const auto& r) {
  json j = json::object();
  fields(r, [&](const char* key, const auto& v) { j[key] = field(v); });
  return j;
}
template <class T>
T recordFrom(const json& j) {
  T r;
  if (!j.is_object()) throw Error(ErrorCode::Parse, "expected an object, found " + std::string(j.type_name()));
  fields(r, [&](const char* key, auto& v) {
    JsonPath at(key);
    if (!j.contains(key)) throw Error(ErrorCode::Parse, "missing (expected a value here)");
    read(j[key], v);
  });
  return r;
}
json field(const GemmSpec& s) { return recordJson(s); }
void read(const json& j, GemmSpec& s) { s = recordFrom<GemmSpec>(j); }

json rewriteJson(const RewriteTrace& t) {
  json j = recordJson(t);
  json r = recordJson(t.report);
  r["stop"] = rewriteStopName(t.report.stop);
  r["rules"] = json::array();
  for (const RuleRound& x : t.report.rules) {
    json row = recordJson(x);
    row["classes_added"] = x.classesAdded;  // outside fields(): files written before it lack it
    r["rules"].push_back(std::move(row));
  }
  r["steps"] = json::array();
  for (const RewriteStep& x : t.report.steps) r["steps"].push_back(recordJson(x));
  j["report"] = r;
  j["candidates"] = json::array();
  for (const TermCandidateRecord& c : t.candidates) j["candidates"].push_back(recordJson(c));
  j["plan_candidate"] = t.planCandidate;
  return j;
}
RewriteTrace rewriteFrom(const json& j) {
  RewriteTrace t = recordFrom<RewriteTrace>(j);
  JsonPath at("report");
  const json& r = j.at("report");
  t.report = recordFrom<RewriteReport>(r);
  const std::string stop = jsonGet<std::string>(r, "stop");
  bool known = false;
  for (RewriteStop s : {RewriteStop::Saturated, RewriteStop::IterationLimit, RewriteStop::NodeLimit, RewriteStop::TimeLimit,
                        RewriteStop::Cancelled})
    if (stop == rewriteStopName(s)) t.report.stop = s, known = true;
  if (!known) {
    JsonPath st("stop");
    throw Error(ErrorCode::Parse, "unknown rewrite stop reason '" + stop + "'");
  }
  jsonEach(r, "rules", [&](const json& x) {
    t.report.rules.push_back(recordFrom<RuleRound>(x));
    t.report.rules.back().classesAdded = x.value("classes_added", std::size_t{0});
  });
  jsonEach(r, "steps", [&](const json& x) { t.report.steps.push_back(recordFrom<RewriteStep>(x)); });
  // Files before version 7 compiled the static best alone.
  if (j.contains("candidates")) {
    jsonEach(j, "candidates", [&](const json& x) { t.candidates.push_back(recordFrom<TermCandidateRecord>(x)); });
    t.planCandidate = jsonGet<int>(j, "plan_candidate", -1);
  }
  return t;
}
// Version 1 files have no rewrite options: nothing was rewritten.
void readRewriteOptions(const json& o, RuleSelection& sel) {
  const std::string mode = jsonGet<std::string>(o, "rewrite", "none");
  const auto m = parseRewriteMode(mode);
  if (!m) {
    JsonPath at("rewrite");
    throw Error(ErrorCode::Parse, "expected \"none\", \"default\" or \"aggressive\", found \"" + mode + "\"");
  }
  sel.mode = *m;
  sel.off = jsonGet<std::vector<std::string>>(o, "rewrite_off", {});
  sel.on = jsonGet<std::vector<std::string>>(o, "rewrite_on", {});
}

json tensorJson(const HostTensor& t) {
  json v = json::array();
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(field(t.getDouble(i)));
  return {{"dtype", dtypeName(t.dtype())}, {"shape", t.shape()}, {"values", v}};
}
// The count is checked before anything is allocated: a file can claim any shape.
HostTensor tensorFrom(const json& j) {
  const Shape shape = jsonGet<Shape>(j, "shape");
  int64_t count = 1;
  for (Dim d : shape)
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) {
      JsonPath at("shape");
      throw Error(ErrorCode::Parse, "expected dimensions >= 0, found " + shapeStr(shape));
    }
  JsonPath at("values");
  const json& v = j.at("values");
  if (!v.is_array() || static_cast<int64_t>(v.size()) != count)
    throw Error(ErrorCode::Parse, "expected " + std::to_string(count) + " values for the shape " + shapeStr(shape));
  HostTensor t(dtypeOf(j, "dtype"), shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    JsonPath ai(static_cast<std::size_t>(i));
    if (v[i].is_string() || v[i].is_null()) {
      t.setDouble(i, nonFinite(v[i]));
    } else {
      t.setDouble(i, v[i].get<double>());
    }
  }
  return t;
}
json finite(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
// One ONNX node's row; an unused optional result has a null type.
json onnxNodeJson(const OnnxNodeInfo& n) {
  json types = json::array();
  for (std::size_t k = 0; k < n.outputs.size(); ++k)
    types.push_back(n.outputs[k].empty() ? json(nullptr) : json{{"dtype", dtypeName(n.outputDTypes[k])}, {"shape", n.outputShapes[k]}});
  return {{"name", n.name}, {"op_type", n.opType}, {"inputs", n.inputs}, {"outputs", n.outputs}, {"types", std::move(types)}};
}
OnnxNodeInfo onnxNodeFromJson(const json& j) {
  OnnxNodeInfo n{jsonGet<std::string>(j, "name"), jsonGet<std::string>(j, "op_type"), jsonGet<std::vector<std::string>>(j, "inputs"),
                 jsonGet<std::vector<std::string>>(j, "outputs"), {}, {}};
  JsonPath at("types");
  const json& types = j.at("types");
  if (!types.is_array() || types.size() != n.outputs.size())
    throw Error(ErrorCode::Parse, "expected one type per output (" + std::to_string(n.outputs.size()) + ")");
  for (const json& t : types) {
    if (t.is_null()) {
      n.outputShapes.emplace_back(), n.outputDTypes.push_back(DType::F32);
      continue;
    }
    const auto dt = parseDType(jsonGet<std::string>(t, "dtype"));
    if (!dt) throw Error(ErrorCode::Parse, "expected a dtype name, found '" + jsonGet<std::string>(t, "dtype") + "'");
    n.outputDTypes.push_back(*dt);
    n.outputShapes.push_back(jsonGet<Shape>(t, "shape"));
  }
  return n;
}
double number(const json& j, const char* key) {
  JsonPath at(key);
  const json& v = j.at(key);
  return v.is_null() ? INFINITY : v.get<double>();
}
}  // namespace

std::string Session::toJson() const {
  json j;
  j["format"] = "kernelscope-session";
  j["version"] = kVersion;
  // Program
  json p = {{"name", program_.name}, {"source", program_.source}};
  for (auto& i : program_.inputs) p["inputs"].push_back({{"name", i.name}, {"class", i.cls.v}, {"leaf", i.leaf}});
  for (auto& q : program_.params)
    p["params"].push_back({{"name", q.name}, {"class", q.cls.v}, {"leaf", q.leaf}, {"init", static_cast<int>(q.init.kind)},
                           {"a", q.init.a}, {"b", q.init.b}, {"seed", q.init.seed}, {"text", q.init.str()}});
  for (auto& o : program_.outputs) p["outputs"].push_back({{"name", o.name}, {"class", o.cls.v}});
  const auto& places = program_.places.byClass();
  for (std::size_t c = 0; c < places.size(); ++c)
    for (const SourcePlace& q : places[c]) {
      json pj = {{"class", c}};
      if (q.line > 0) pj["line"] = q.line;
      if (q.column > 0) pj["col"] = q.column;
      if (!q.node.empty()) pj["node"] = q.node;
      p["places"].push_back(pj);
    }
  p["updates"] = json::array();
  for (auto& u : program_.updates) p["updates"].push_back({{"param", u.param}, {"class", u.value.v}});
  for (const OnnxNodeInfo& n : program_.onnxNodes) p["onnx_nodes"].push_back(onnxNodeJson(n));
  j["program"] = p;
  j["graph"] = json::parse(program_.graph.toJson());
  j["options"] = {{"devices", options_.devices}, {"tune", static_cast<int>(options_.tune)}, {"seed", options_.seed},
                  {"rewrite", rewriteModeName(options_.rewrite.mode)}, {"rewrite_off", options_.rewrite.off},
                  {"rewrite_on", options_.rewrite.on}};
  j["devices"] = devices_;
  j["pools"] = poolOf_;
  j["stage"] = static_cast<int>(stage_);
  // Trace
  const CompileTrace& t = trace_;
  json tj;
  for (auto& s : t.snapshots) tj["snapshots"].push_back({{"stage", stageName(s.stage)}, {"s", static_cast<int>(s.stage)}, {"classes", s.classes}, {"nodes", s.nodes}});
  for (auto& s : t.stageTimes) tj["stage_times"].push_back({{"s", static_cast<int>(s.stage)}, {"ms", s.ms}});
  tj["fusion_runs"] = json::array();
  for (const KernelizerRun& r : t.fusionRuns) tj["fusion_runs"].push_back(fusionRunJson(r));
  tj["plan_run"] = t.planRun;
  for (auto& k : t.kernels)
    tj["kernels"].push_back({{"fused", fusedJson(k.fused)}, {"name", k.name}, {"flops", k.flops}, {"bytes", k.bytes}, {"pass", k.pass}});
  for (auto& m : t.matches) tj["matches"].push_back({{"out", m.out.v}, {"a", m.a.v}, {"b", m.b.v}, {"gemm", recordJson(m.spec)}});
  for (auto& m : t.measurements) tj["measurements"].push_back(recordJson(m));
  for (auto& s : t.searches) {
    json sj = recordJson(s);
    sj["stop_reason"] = s.stopText();
    tj["searches"].push_back(sj);
  }
  for (auto& e : t.entries) {
    json ej = recordJson(e);
    ej["kind"] = e.kind == KernelEntry::Kind::Gemm ? "gemm" : "fused";
    tj["entries"].push_back(ej);
  }
  {
    const Extraction& ex = t.extraction;
    json ej = {{"order", ids(ex.order)}, {"total_ns", finite(ex.totalNs)}, {"greedy_ns", finite(ex.greedyTreeNs)},
               {"improvements", ex.improvements}};
    std::map<uint32_t, uint32_t> chosen;  // sorted: the file must not depend on hash-map order
    for (auto& [c, n] : ex.chosen) chosen[c.v] = n.v;
    for (auto& [c, n] : chosen) ej["chosen"].push_back({c, n});
    for (auto& d : ex.decisions) {
      json dj = {{"class", d.cls.v}, {"chosen", d.chosen.v}, {"why", d.why}};
      for (auto& a : d.alternatives)
        dj["alternatives"].push_back({{"node", a.node.v}, {"own_ns", finite(a.ownNs)}, {"tree_ns", finite(a.treeNs)}, {"valid", a.valid}});
      ej["decisions"].push_back(dj);
    }
    tj["extraction"] = ej;
  }
  {
    const ExecPlan& pl = t.plan;
    json pj = {{"key", pl.key}, {"bytes_without_reuse", pl.bytesWithoutReuse}, {"bytes_saved", pl.bytesSaved},
               {"predicted_ns", finite(pl.predictedNs)}, {"peak_bytes", pl.peakBytes}};
    for (auto& s : pl.steps) {
      json sj = recordJson(s);
      sj["kind"] = s.kind == PlanStep::Kind::Launch ? "launch" : "copy";
      sj["zero_copy"] = s.zeroCopy;
      pj["steps"].push_back(sj);
    }
    for (auto& b : pl.buffers) {
      json bj = recordJson(b);
      bj["alias"] = b.alias;
      pj["buffers"].push_back(bj);
    }
    for (auto& a : pl.allocations) pj["allocations"].push_back({{"pool", a.pool}, {"bytes", a.bytes}});
    for (auto& [c, b] : pl.outputs) pj["outputs"].push_back({c.v, b});
    tj["plan"] = pj;
  }
  tj["rewrite"] = rewriteJson(t.rewrite);
  {
    const PlanChoice& pc = t.planChoice;
    json cj = {{"chosen", pc.chosen}, {"why", pc.why}, {"policy", pc.policy}, {"candidates", json::array()}};
    for (const PlanCandidate& c : pc.candidates) {
      json x = recordJson(c);
      x["steps"] = json::array();
      for (const PlanStep& s : c.plan.steps) x["steps"].push_back(s.label);
      cj["candidates"].push_back(x);
    }
    tj["plan_choice"] = cj;
  }
  tj["tune_level"] = t.tuneLevel;
  tj["compile_ms"] = t.compileMs;
  tj["warnings"] = t.warnings;
  j["trace"] = tj;
  // Runs
  for (const RunRecord& r : runs_) {
    json rj = recordJson(r);
    rj["verification"] = {{"mode", verifyModeName(r.verifyMode)}, {"checked", r.verifyChecked}, {"total", r.verifyTotal},
                          {"reason", r.verifyReason}, {"ns", field(r.verifyNs)}};
    for (auto& s : r.steps) rj["steps"].push_back(recordJson(s));
    for (const auto* list : {&r.outputs, &r.updates})
      for (auto& o : *list) {
        json oj = recordJson(o);
        oj["value"] = o.value.numel() <= 65536 ? tensorJson(o.value) : tensorJson(HostTensor(o.value.dtype(), {0}));
        rj[list == &r.outputs ? "outputs" : "updates"].push_back(oj);
      }
    j["runs"].push_back(rj);
  }
  return j.dump();
}

namespace {
void readProgram(const json& j, Program& prog) {
  JsonPath at("program");
  const json& p = j.at("program");
  prog.name = jsonGet<std::string>(p, "name", "");
  prog.source = jsonGet<std::string>(p, "source", "");
  jsonEach(p, "inputs", [&](const json& i) {
    prog.inputs.push_back({jsonGet<std::string>(i, "name"), ClassId(jsonGet<uint32_t>(i, "class")), jsonGet<uint32_t>(i, "leaf")});
  });
  jsonEach(p, "params", [&](const json& q) {
    ProgramParam pp{jsonGet<std::string>(q, "name"), ClassId(jsonGet<uint32_t>(q, "class")), jsonGet<uint32_t>(q, "leaf"), {}};
    pp.init.kind = static_cast<ParamInit::Kind>(jsonGet<uint8_t>(q, "init"));
    pp.init.a = jsonGet<double>(q, "a");
    pp.init.b = jsonGet<double>(q, "b");
    pp.init.seed = jsonGet<uint64_t>(q, "seed");
    prog.params.push_back(pp);
  });
  jsonEach(p, "outputs", [&](const json& o) { prog.outputs.push_back({jsonGet<std::string>(o, "name"), ClassId(jsonGet<uint32_t>(o, "class"))}); });
  jsonEach(p, "updates", [&](const json& u) { prog.updates.push_back({jsonGet<uint32_t>(u, "param"), ClassId(jsonGet<uint32_t>(u, "class")), {}}); });
  jsonEach(p, "onnx_nodes", [&](const json& n) { prog.onnxNodes.push_back(onnxNodeFromJson(n)); });
}

// After the graph: every place names one of its classes.
void readPlaces(const json& j, Program& prog) {
  JsonPath at("program");
  jsonEach(j.at("program"), "places", [&](const json& q) {
    const uint32_t c = jsonGet<uint32_t>(q, "class");
    if (c >= prog.graph.classCount()) {
      JsonPath key("class");
      throw Error(ErrorCode::Parse, "expected a class of the graph (0.." + std::to_string(prog.graph.classCount()) +
                                        "), found " + std::to_string(c));
    }
    SourcePlace place{jsonGet<int>(q, "line", 0), jsonGet<int>(q, "col", 0), jsonGet<std::string>(q, "node", "")};
    if (place.line < 0 || place.column < 0) throw Error(ErrorCode::Parse, "expected a line and column of 1 or more");
    prog.places.add(ClassId(c), std::move(place));
  });
}

void readExtraction(const json& ej, Extraction& ex) {
  jsonEach(ej, "order", [&](const json& n) { ex.order.push_back(NodeId(jsonAs<uint32_t>(n))); });
  ex.totalNs = number(ej, "total_ns");
  ex.greedyTreeNs = number(ej, "greedy_ns");
  ex.improvements = jsonGet<int>(ej, "improvements", 0);
  jsonEach(ej, "chosen", [&](const json& c) {
    const auto pair = jsonAs<std::vector<uint32_t>>(c);
    if (pair.size() != 2) throw Error(ErrorCode::Parse, "expected [class, node]");
    ex.chosen[ClassId(pair[0])] = NodeId(pair[1]);
  });
  jsonEach(ej, "decisions", [&](const json& d) {
    ClassDecision cd{ClassId(jsonGet<uint32_t>(d, "class")), NodeId(jsonGet<uint32_t>(d, "chosen")), {}, jsonGet<std::string>(d, "why")};
    jsonEach(d, "alternatives", [&](const json& a) {
      cd.alternatives.push_back({NodeId(jsonGet<uint32_t>(a, "node")), number(a, "own_ns"), number(a, "tree_ns"), jsonGet<bool>(a, "valid")});
    });
    ex.decisions.push_back(std::move(cd));
  });
}

// A loaded candidate keeps what the views show: its numbers, and its steps as labels only.
void readPlanChoice(const json& cj, PlanChoice& pc) {
  pc.chosen = jsonGet<int>(cj, "chosen", -1);
  pc.why = jsonGet<std::string>(cj, "why", "");
  pc.policy = jsonGet<std::string>(cj, "policy", "");
  jsonEach(cj, "candidates", [&](const json& x) {
    PlanCandidate c = recordFrom<PlanCandidate>(x);
    for (const std::string& label : jsonGet<std::vector<std::string>>(x, "steps", {})) {
      c.plan.steps.emplace_back();
      c.plan.steps.back().label = label;
    }
    pc.candidates.push_back(std::move(c));
  });
}

void readPlan(const json& pj, ExecPlan& pl) {
  pl.key = jsonGet<uint64_t>(pj, "key", 0);
  pl.bytesWithoutReuse = jsonGet<int64_t>(pj, "bytes_without_reuse", 0);
  pl.bytesSaved = jsonGet<int64_t>(pj, "bytes_saved", 0);
  pl.predictedNs = number(pj, "predicted_ns");
  pl.peakBytes = jsonGet<std::vector<int64_t>>(pj, "peak_bytes", {});
  jsonEach(pj, "steps", [&](const json& x) {
    pl.steps.push_back(recordFrom<PlanStep>(x));
    pl.steps.back().kind = kindIs(x, "launch", "copy") ? PlanStep::Kind::Launch : PlanStep::Kind::Copy;
    pl.steps.back().zeroCopy = jsonGet<bool>(x, "zero_copy", false);
  });
  jsonEach(pj, "buffers", [&](const json& x) {
    pl.buffers.push_back(recordFrom<PlanBuffer>(x));
    pl.buffers.back().alias = jsonGet<int>(x, "alias", -1);
  });
  jsonEach(pj, "allocations", [&](const json& x) { pl.allocations.push_back({jsonGet<uint32_t>(x, "pool"), jsonGet<int64_t>(x, "bytes")}); });
  jsonEach(pj, "outputs", [&](const json& x) {
    const auto pair = jsonAs<std::vector<uint32_t>>(x);
    if (pair.size() != 2) throw Error(ErrorCode::Parse, "expected [class, buffer]");
    pl.outputs.push_back({ClassId(pair[0]), pair[1]});
  });
}

// A fused entry's schedule is JSON inside a string, read when its source is shown: it must parse
// now, and be the schedule its "schedule" names.
void checkScheduleText(const KernelEntry& e) {
  JsonPath at("schedule_json");
  const std::string named = Schedule::fromJsonText(e.scheduleJson).str();
  if (named != e.schedule)
    throw Error(ErrorCode::Parse, "expected the schedule that \"schedule\" names ('" + e.schedule + "'), found '" + named + "'");
}

KernelizerRun fusionRunFrom(const json& j) {
  KernelizerRun r;
  r.candidate = jsonGet<int>(j, "candidate");
  r.term = jsonGet<std::string>(j, "term");
  r.afterAot = jsonGet<bool>(j, "after_aot");
  r.kernels = jsonGet<std::vector<uint32_t>>(j, "kernels");
  r.gemms = jsonGet<std::vector<uint32_t>>(j, "gemms");
  jsonEach(j, "forms", [&](const json& x) {
    const auto pair = jsonAs<std::vector<uint32_t>>(x);
    if (pair.size() != 2) throw Error(ErrorCode::Parse, "expected [class, node]");
    r.forms.push_back({pair[0], pair[1]});
  });
  JsonPath tr("trace");
  r.trace = FusionTrace::fromJson(j.at("trace").dump());
  return r;
}

// Files before version 8 kept one kernelizer run, the static best's before AOT matching, with its
// kernels as IR: they are found among the trace's kernels by code, loads and stores. Read after
// the kernels and the rewrite trace.
void legacyFusionRun(const json& fj, CompileTrace& t) {
  KernelizerRun r;
  r.term = t.rewrite.candidates.empty() ? "program" : t.rewrite.candidates[0].source;
  {
    JsonPath tr("trace");
    r.trace = FusionTrace::fromJson(fj.at("trace").dump());
  }
  if (r.trace.error.empty() && fj.contains("error")) r.trace.error = jsonGet<std::string>(fj, "error");
  jsonEach(fj, "kernels", [&](const json& k) {
    const FusedKernel f = fusedFrom(k);
    for (uint32_t i = 0; i < t.kernels.size(); ++i) {
      const FusedKernel& g = t.kernels[i].fused;
      if (g.kernel.hash() == f.kernel.hash() && g.loads == f.loads && g.stores == f.stores) {
        r.kernels.push_back(i);
        break;
      }
    }
  });
  t.fusionRuns.push_back(std::move(r));
  t.planRun = 0;
}

Stage stageOf(const json& j, const char* key) { return static_cast<Stage>(jsonGet<uint8_t>(j, key)); }

void readTrace(const json& j, CompileTrace& t) {
  JsonPath at("trace");
  const json& tj = j.at("trace");
  jsonEach(tj, "snapshots", [&](const json& x) {
    t.snapshots.push_back({stageOf(x, "s"), jsonGet<uint32_t>(x, "classes"), jsonGet<uint32_t>(x, "nodes")});
  });
  jsonEach(tj, "stage_times", [&](const json& x) { t.stageTimes.push_back({stageOf(x, "s"), jsonGet<double>(x, "ms")}); });
  jsonEach(tj, "fusion_runs", [&](const json& r) { t.fusionRuns.push_back(fusionRunFrom(r)); });
  t.planRun = jsonGet<int>(tj, "plan_run", -1);
  jsonEach(tj, "kernels", [&](const json& k) {
    JsonPath fused("fused");
    FusedKernel f = fusedFrom(k.at("fused"));
    t.kernels.push_back({std::move(f), jsonGet<std::string>(k, "name"), jsonGet<double>(k, "flops"), jsonGet<int64_t>(k, "bytes"),
                         jsonGet<int>(k, "pass")});
  });
  jsonEach(tj, "matches", [&](const json& m) {
    t.matches.push_back({ClassId(jsonGet<uint32_t>(m, "out")), ClassId(jsonGet<uint32_t>(m, "a")), ClassId(jsonGet<uint32_t>(m, "b")),
                         [&] {
                           JsonPath g("gemm");
                           return recordFrom<GemmSpec>(m.at("gemm"));
                         }()});
  });
  jsonEach(tj, "measurements", [&](const json& m) { t.measurements.push_back(recordFrom<TuneMeasurement>(m)); });
  jsonEach(tj, "searches", [&](const json& x) {
    t.searches.push_back(recordFrom<TuneSearch>(x));
    const std::string stop = jsonGet<std::string>(x, "stop_reason");
    if (!t.searches.back().setStopFromText(stop)) throw Error(ErrorCode::Parse, "unknown tuning stop reason '" + stop + "'");
  });
  jsonEach(tj, "entries", [&](const json& e) {
    t.entries.push_back(recordFrom<KernelEntry>(e));
    KernelEntry& entry = t.entries.back();
    entry.kind = kindIs(e, "gemm", "fused") ? KernelEntry::Kind::Gemm : KernelEntry::Kind::Fused;
    if (entry.kind == KernelEntry::Kind::Fused) checkScheduleText(entry);
  });
  if (tj.contains("extraction")) {
    JsonPath e("extraction");
    readExtraction(tj["extraction"], t.extraction);
  }
  if (tj.contains("plan")) {
    JsonPath p("plan");
    readPlan(tj["plan"], t.plan);
  }
  if (tj.contains("rewrite")) {
    JsonPath r("rewrite");
    t.rewrite = rewriteFrom(tj["rewrite"]);
  }
  if (tj.contains("plan_choice")) {  // files before version 9 did not keep the candidates
    JsonPath c("plan_choice");
    readPlanChoice(tj["plan_choice"], t.planChoice);
  }
  if (tj.contains("fusion")) {
    JsonPath f("fusion");
    legacyFusionRun(tj["fusion"], t);
  }
  t.tuneLevel = jsonGet<std::string>(tj, "tune_level", "");
  t.compileMs = jsonGet<double>(tj, "compile_ms", 0.0);
  t.warnings = jsonGet<std::vector<std::string>>(tj, "warnings", {});
}

void readRuns(const json& j, std::vector<RunRecord>& runs) {
  jsonEach(j, "runs", [&](const json& rj) {
    RunRecord r = recordFrom<RunRecord>(rj);
    if (rj.contains("verification")) {  // files before version 4 do not say how a run was verified
      JsonPath at("verification");
      const json& v = rj["verification"];
      const std::string mode = jsonGet<std::string>(v, "mode", "full");
      if (mode != "full" && mode != "sampled" && mode != "skipped")
        throw Error(ErrorCode::Parse, "expected \"full\", \"sampled\" or \"skipped\", found \"" + mode + "\"");
      r.verifyMode = mode == "sampled" ? VerifyMode::Sampled : mode == "skipped" ? VerifyMode::Skipped : VerifyMode::Full;
      r.verifyChecked = jsonGet<int64_t>(v, "checked", 0);
      r.verifyTotal = jsonGet<int64_t>(v, "total", 0);
      r.verifyReason = jsonGet<std::string>(v, "reason", "");
      if (v.contains("ns")) read(v["ns"], r.verifyNs);
    }
    jsonEach(rj, "steps", [&](const json& x) { r.steps.push_back(recordFrom<StepTiming>(x)); });
    for (const char* key : {"outputs", "updates"})
      jsonEach(rj, key, [&](const json& x) {
        OutputValue ov = recordFrom<OutputValue>(x);
        JsonPath v("value");
        ov.value = tensorFrom(x.at("value"));
        (key[0] == 'o' ? r.outputs : r.updates).push_back(std::move(ov));
      });
    runs.push_back(std::move(r));
  });
}
}  // namespace

Session Session::fromJson(const std::string& text, const std::string& file) {
  Session s;
  JsonPath::current().clear();
  try {
    const json j = parseJson(text);
    if (!j.is_object() || j.value("format", "") != "kernelscope-session")
      throw Error(ErrorCode::Parse, "not a Kernelscope session file (no \"format\": \"kernelscope-session\")");
    const json version = j.value("version", json());
    if (!version.is_number_integer() || version.get<int64_t>() < 1 || version.get<int64_t>() > kVersion)
      throw Error(ErrorCode::Parse,
                  "session file version " + version.dump() + " is not supported (expected 1 to " + std::to_string(kVersion) + ")");
    readProgram(j, s.program_);
    {
      JsonPath g("graph");
      s.program_.graph = Graph::fromJson(j.at("graph").dump());
    }
    readPlaces(j, s.program_);
    {
      JsonPath at("options");
      const json& o = j.at("options");
      s.options_.devices = jsonGet<std::string>(o, "devices", "all");
      s.options_.tune = static_cast<TuneLevel>(jsonGet<uint8_t>(o, "tune", 1));
      s.options_.seed = jsonGet<uint64_t>(o, "seed", 0);
      readRewriteOptions(o, s.options_.rewrite);
    }
    s.devices_ = jsonGet<std::vector<DeviceInfo>>(j, "devices");
    s.poolOf_ = jsonGet<std::vector<uint32_t>>(j, "pools");
    s.stage_ = stageOf(j, "stage");
    s.reached_ = true;
    s.loaded_ = true;
    readTrace(j, s.trace_);
    readRuns(j, s.runs_);
    checkSession(s, s.poolOf_);
  } catch (const json::exception& e) {
    throw Error(ErrorCode::Parse, "malformed session file: " + readErrorText(e.what(), true), {file});
  } catch (const Error& e) {
    const std::string m = readErrorText(e.message(), true);
    throw Error(e.code(), m, e.where().known() ? e.where() : SourceLoc(file));
  }
  // The key hashes the engine's own node and kernel structures, so a build that hashes them
  // differently gives another key for the same graph: a file of a supported version still loads
  // (its ids were all checked above), and the mismatch is reported. A file without a key (0) has
  // nothing to compare.
  if (!s.trace_.plan.steps.empty() && s.trace_.plan.key != 0 && s.trace_.plan.key != s.planKey()) {
    const std::string w = "the plan's key does not match this graph and device list (the file was edited, or saved "
                          "by a build that hashes graphs differently): the plan shown may not be the one this graph gets";
    if (std::find(s.trace_.warnings.begin(), s.trace_.warnings.end(), w) == s.trace_.warnings.end())
      s.trace_.warnings.push_back(w);
  }
  return s;
}

void Session::save(const std::string& path) const { writeFileAtomically(path, toJson(), kSessionFileWhat); }

Session Session::load(const std::string& path) { return fromJson(readFile(path, kSessionFileWhat), path); }

}  // namespace ks
