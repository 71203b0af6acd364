// Session files (.kss.json, versioned): everything a GUI needs to reopen the pipeline offline.
// Parameter values given as data (ONNX weights) are not stored; random initializers are.
#include <concepts>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/core/scalar_json.h"
#include "engine/devices/device_runtime.h"
#include "engine/session/run_json.h"
#include "engine/session/session.h"
#include "engine/tune/tuning_cache.h"

namespace ks {

namespace {
constexpr int kVersion = 1;
using json = nlohmann::json;

template <class T>
std::vector<uint32_t> ids(const std::vector<T>& v) {
  std::vector<uint32_t> r;
  for (auto& x : v) r.push_back(x.v);
  return r;
}
std::vector<ClassId> classIds(const json& j) {
  std::vector<ClassId> r;
  for (auto& v : j) r.push_back(ClassId(v.get<uint32_t>()));
  return r;
}
DType dtypeOf(const json& j) {
  auto t = parseDType(j.get<std::string>());
  if (!t) throw Error(ErrorCode::Parse, "unknown dtype '" + j.get<std::string>() + "'");
  return *t;
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
Kernel kernelFrom(const json& j) {
  Kernel k;
  for (auto& oj : j) {
    KOp o;
    o.kind = static_cast<KOpKind>(oj.at("kind").get<int>());
    o.op = oj.at("op").get<uint8_t>();
    o.dtype = dtypeOf(oj.at("dtype"));
    o.shape = oj.at("shape").get<Shape>();
    if (oj.contains("src")) o.src = oj["src"].get<std::vector<int32_t>>();
    if (oj.contains("attr")) o.attr = oj["attr"].get<std::vector<int64_t>>();
    if (oj.contains("value")) o.value = scalarFromJson(oj["value"]);
    k.push(std::move(o));
  }
  return k;
}
json fusedJson(const FusedKernel& f) {
  return {{"id", f.id}, {"kernel", kernelJson(f.kernel)}, {"loads", ids(f.loads)}, {"stores", ids(f.stores)},
          {"classes", ids(f.classes)}};
}
FusedKernel fusedFrom(const json& j) {
  FusedKernel f;
  f.id = j.at("id").get<int32_t>();
  f.kernel = kernelFrom(j.at("kernel"));
  f.loads = classIds(j.at("loads"));
  f.stores = classIds(j.at("stores"));
  f.classes = classIds(j.at("classes"));
  return f;
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
// One member to JSON and back; ids are stored as their numbers, a GemmSpec as a record.
json field(const auto& v) { return v; }
json field(ClassId c) { return c.v; }
json field(NodeId n) { return n.v; }
json field(TuneStatus s) { return toString(s); }
json field(const GemmSpec& s);
template <class T>
void read(const json& j, T& v) { v = j.get<T>(); }
void read(const json& j, ClassId& c) { c = ClassId(j.get<uint32_t>()); }
void read(const json& j, NodeId& n) { n = NodeId(j.get<uint32_t>()); }
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
  fields(r, [&](const char* key, auto& v) { read(j.at(key), v); });
  return r;
}
json field(const GemmSpec& s) { return recordJson(s); }
void read(const json& j, GemmSpec& s) { s = recordFrom<GemmSpec>(j); }

json tensorJson(const HostTensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.getDouble(i));
  return {{"dtype", dtypeName(t.dtype())}, {"shape", t.shape()}, {"values", v}};
}
HostTensor tensorFrom(const json& j) {
  HostTensor t(dtypeOf(j.at("dtype")), j.at("shape").get<Shape>());
  const auto& v = j.at("values");
  if (static_cast<int64_t>(v.size()) != t.numel()) throw Error(ErrorCode::Parse, "tensor value count mismatch");
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (v[i].is_string()) {
      const std::string s = v[i];
      t.setDouble(i, s == "nan" ? NAN : s == "inf" ? INFINITY : -INFINITY);
    } else {
      t.setDouble(i, v[i].get<double>());
    }
  }
  return t;
}
json finite(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
double number(const json& j) { return j.is_null() ? INFINITY : j.get<double>(); }
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
  j["program"] = p;
  j["graph"] = json::parse(program_.graph.toJson());
  j["options"] = {{"devices", options_.devices}, {"tune", static_cast<int>(options_.tune)}, {"seed", options_.seed}};
  j["devices"] = devices_;
  j["pools"] = poolOf_;
  j["stage"] = static_cast<int>(stage_);
  // Trace
  const CompileTrace& t = trace_;
  json tj;
  for (auto& s : t.snapshots) tj["snapshots"].push_back({{"stage", stageName(s.stage)}, {"s", static_cast<int>(s.stage)}, {"classes", s.classes}, {"nodes", s.nodes}});
  for (auto& s : t.stageTimes) tj["stage_times"].push_back({{"s", static_cast<int>(s.stage)}, {"ms", s.ms}});
  tj["fusion"] = {{"trace", json::parse(t.fusion.trace.toJson())}, {"kernels", json::array()}};
  for (auto& f : t.fusion.kernels) tj["fusion"]["kernels"].push_back(fusedJson(f));
  if (t.fusion.error) tj["fusion"]["error"] = t.fusion.error->what();
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
      pj["steps"].push_back(sj);
    }
    for (auto& b : pl.buffers) pj["buffers"].push_back(recordJson(b));
    for (auto& a : pl.allocations) pj["allocations"].push_back({{"pool", a.pool}, {"bytes", a.bytes}});
    for (auto& [c, b] : pl.outputs) pj["outputs"].push_back({c.v, b});
    tj["plan"] = pj;
  }
  tj["tune_level"] = t.tuneLevel;
  tj["compile_ms"] = t.compileMs;
  tj["warnings"] = t.warnings;
  j["trace"] = tj;
  // Runs
  for (const RunRecord& r : runs_) {
    json rj = recordJson(r);
    for (auto& s : r.steps) rj["steps"].push_back(recordJson(s));
    for (auto& o : r.outputs) {
      json oj = recordJson(o);
      oj["value"] = o.value.numel() <= 65536 ? tensorJson(o.value) : tensorJson(HostTensor(o.value.dtype(), {0}));
      rj["outputs"].push_back(oj);
    }
    j["runs"].push_back(rj);
  }
  return j.dump();
}

Session Session::fromJson(const std::string& text, const std::string& file) {
  Session s;
  try {
    const json j = json::parse(text);
    if (j.value("format", "") != "kernelscope-session")
      throw Error(ErrorCode::Parse, "not a Kernelscope session file (no \"format\": \"kernelscope-session\")", {file});
    if (j.value("version", 0) != kVersion)
      throw Error(ErrorCode::Parse, "session file version " + std::to_string(j.value("version", 0)) + " is not supported (expected " +
                                        std::to_string(kVersion) + ")", {file});
    const json& p = j.at("program");
    s.program_.name = p.value("name", "");
    s.program_.source = p.value("source", "");
    s.program_.graph = Graph::fromJson(j.at("graph").dump());
    for (auto& i : p.value("inputs", json::array()))
      s.program_.inputs.push_back({i.at("name"), ClassId(i.at("class").get<uint32_t>()), i.at("leaf").get<uint32_t>()});
    for (auto& q : p.value("params", json::array())) {
      ProgramParam pp{q.at("name"), ClassId(q.at("class").get<uint32_t>()), q.at("leaf").get<uint32_t>(), {}};
      pp.init.kind = static_cast<ParamInit::Kind>(q.at("init").get<int>());
      pp.init.a = q.at("a");
      pp.init.b = q.at("b");
      pp.init.seed = q.at("seed");
      s.program_.params.push_back(pp);
    }
    for (auto& o : p.value("outputs", json::array()))
      s.program_.outputs.push_back({o.at("name"), ClassId(o.at("class").get<uint32_t>())});
    const json& o = j.at("options");
    s.options_.devices = o.value("devices", "all");
    s.options_.tune = static_cast<TuneLevel>(o.value("tune", 1));
    s.options_.seed = o.value("seed", uint64_t{0});
    s.devices_ = j.at("devices").get<std::vector<DeviceInfo>>();
    s.poolOf_ = j.at("pools").get<std::vector<uint32_t>>();
    s.stage_ = static_cast<Stage>(j.at("stage").get<int>());
    s.reached_ = true;
    s.loaded_ = true;
    const json& tj = j.at("trace");
    CompileTrace& t = s.trace_;
    for (auto& x : tj.value("snapshots", json::array()))
      t.snapshots.push_back({static_cast<Stage>(x.at("s").get<int>()), x.at("classes"), x.at("nodes")});
    for (auto& x : tj.value("stage_times", json::array())) t.stageTimes.push_back({static_cast<Stage>(x.at("s").get<int>()), x.at("ms")});
    if (tj.contains("fusion")) {
      t.fusion.trace = FusionTrace::fromJson(tj["fusion"].at("trace").dump());
      for (auto& f : tj["fusion"].at("kernels")) t.fusion.kernels.push_back(fusedFrom(f));
      if (tj["fusion"].contains("error")) t.fusion.error = Error(ErrorCode::Invariant, tj["fusion"]["error"].get<std::string>());
    }
    for (auto& k : tj.value("kernels", json::array()))
      t.kernels.push_back({fusedFrom(k.at("fused")), k.at("name"), k.at("flops"), k.at("bytes"), k.at("pass")});
    for (auto& m : tj.value("matches", json::array()))
      t.matches.push_back({ClassId(m.at("out").get<uint32_t>()), ClassId(m.at("a").get<uint32_t>()), ClassId(m.at("b").get<uint32_t>()),
                           recordFrom<GemmSpec>(m.at("gemm"))});
    for (auto& m : tj.value("measurements", json::array())) t.measurements.push_back(recordFrom<TuneMeasurement>(m));
    for (auto& x : tj.value("searches", json::array())) {
      t.searches.push_back(recordFrom<TuneSearch>(x));
      const std::string stop = x.at("stop_reason");
      if (!t.searches.back().setStopFromText(stop)) throw Error(ErrorCode::Parse, "unknown tuning stop reason '" + stop + "'");
    }
    for (auto& e : tj.value("entries", json::array())) {
      const auto kind = e.at("kind") == "gemm" ? KernelEntry::Kind::Gemm : KernelEntry::Kind::Fused;
      t.entries.push_back(recordFrom<KernelEntry>(e));
      t.entries.back().kind = kind;
    }
    if (tj.contains("extraction")) {
      const json& ej = tj["extraction"];
      Extraction& ex = t.extraction;
      for (auto& n : ej.value("order", json::array())) ex.order.push_back(NodeId(n.get<uint32_t>()));
      ex.totalNs = number(ej.at("total_ns"));
      ex.greedyTreeNs = number(ej.at("greedy_ns"));
      ex.improvements = ej.value("improvements", 0);
      for (auto& c : ej.value("chosen", json::array())) ex.chosen[ClassId(c[0].get<uint32_t>())] = NodeId(c[1].get<uint32_t>());
      for (auto& d : ej.value("decisions", json::array())) {
        ClassDecision cd{ClassId(d.at("class").get<uint32_t>()), NodeId(d.at("chosen").get<uint32_t>()), {}, d.at("why")};
        for (auto& a : d.value("alternatives", json::array()))
          cd.alternatives.push_back({NodeId(a.at("node").get<uint32_t>()), number(a.at("own_ns")), number(a.at("tree_ns")), a.at("valid")});
        ex.decisions.push_back(std::move(cd));
      }
    }
    if (tj.contains("plan")) {
      const json& pj = tj["plan"];
      ExecPlan& pl = t.plan;
      pl.key = pj.value("key", uint64_t{0});
      pl.bytesWithoutReuse = pj.value("bytes_without_reuse", int64_t{0});
      pl.bytesSaved = pj.value("bytes_saved", int64_t{0});
      pl.predictedNs = number(pj.at("predicted_ns"));
      pl.peakBytes = pj.value("peak_bytes", std::vector<int64_t>{});
      for (auto& x : pj.value("steps", json::array())) {
        const auto kind = x.at("kind") == "launch" ? PlanStep::Kind::Launch : PlanStep::Kind::Copy;
        pl.steps.push_back(recordFrom<PlanStep>(x));
        pl.steps.back().kind = kind;
      }
      for (auto& x : pj.value("buffers", json::array())) pl.buffers.push_back(recordFrom<PlanBuffer>(x));
      for (auto& x : pj.value("allocations", json::array())) pl.allocations.push_back({x.at("pool"), x.at("bytes")});
      for (auto& x : pj.value("outputs", json::array())) pl.outputs.push_back({ClassId(x[0].get<uint32_t>()), x[1].get<uint32_t>()});
    }
    t.tuneLevel = tj.value("tune_level", "");
    t.compileMs = tj.value("compile_ms", 0.0);
    t.warnings = tj.value("warnings", std::vector<std::string>{});
    for (auto& rj : j.value("runs", json::array())) {
      RunRecord r = recordFrom<RunRecord>(rj);
      for (auto& x : rj.value("steps", json::array())) r.steps.push_back(recordFrom<StepTiming>(x));
      for (auto& x : rj.value("outputs", json::array())) {
        OutputValue ov = recordFrom<OutputValue>(x);
        ov.value = tensorFrom(x.at("value"));
        r.outputs.push_back(std::move(ov));
      }
      s.runs_.push_back(std::move(r));
    }
    // Cross-references must hold, or the views would index out of range.
    const std::size_t nc = s.program_.graph.classCount(), nn = s.program_.graph.nodeCount();
    for (auto& o : s.program_.outputs)
      if (o.cls.v >= nc) throw Error(ErrorCode::Parse, "output class out of range", {file});
    for (auto& e : t.entries)
      if (e.device >= s.devices_.size() || (e.kind == KernelEntry::Kind::Fused && e.fused >= t.kernels.size()))
        throw Error(ErrorCode::Parse, "kernel entry refers to a missing kernel or device", {file});
    for (auto& st : t.plan.steps)
      if (st.node.v >= nn || st.device >= s.devices_.size()) throw Error(ErrorCode::Parse, "plan step out of range", {file});
    for (auto& m : t.measurements)
      if (m.kernel >= t.kernels.size() || m.device >= s.devices_.size())
        throw Error(ErrorCode::Parse, "measurement refers to a missing kernel or device", {file});
  } catch (const json::exception& e) {
    throw Error(ErrorCode::Parse, std::string("malformed session file: ") + e.what(), {file});
  } catch (const Error& e) {
    throw e.at(SourceLoc(file));
  }
  return s;
}

void Session::save(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw Error(ErrorCode::Io, "cannot write session file", {path});
    out << toJson();
    if (!out) throw Error(ErrorCode::Io, "writing the session file failed", {path});
  }
  std::rename(tmp.c_str(), path.c_str());
}

Session Session::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::Io, "cannot open session file", {path});
  std::ostringstream ss;
  ss << in.rdbuf();
  return fromJson(ss.str(), path);
}

}  // namespace ks
