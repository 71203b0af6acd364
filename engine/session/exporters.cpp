// DOT, JSON and CSV renderings of the e-graph, the fusion trace, the plan and the timeline.
#include "engine/session/exporters.h"

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace ks {

namespace {
std::string esc(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c == '\n' ? ' ' : c;
  }
  return r;
}
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char c : s) r += c == '"' ? std::string("\"\"") : std::string(1, c);
  return r + "\"";
}
std::string classLabel(const Graph& g, uint32_t c) {
  const Node& n = g.structural(ClassId(c));
  std::string l = "%" + std::to_string(c) + " " + n.label();
  if (n.kind == NodeKind::Leaf) l += " '" + g.leaf(n.ref).name + "'";
  return l + "\\n" + std::string(dtypeName(g.dtype(ClassId(c)))) + shapeStr(g.shape(ClassId(c)));
}
}  // namespace

std::string fusionDot(const Session& s, int step) {
  const FusionTrace& t = s.trace().fusion.trace;
  const std::size_t n = step < 0 ? t.steps.size() : std::min<std::size_t>(static_cast<std::size_t>(step) + 1, t.steps.size());
  const TraceState state = t.stateAfter(n);
  std::set<int32_t> changed;
  if (n > 0)
    for (auto& [k, v] : t.steps[n - 1].diff.set) changed.insert(k);
  const Graph& g = s.graph();
  std::ostringstream os;
  os << "digraph fusion {\n  compound=true;\n  node [shape=box, fontname=\"DejaVu Sans\", fontsize=10];\n";
  if (n > 0) os << "  label=\"after step " << (n - 1) << ": " << esc(std::string(fusionActionName(t.steps[n - 1].action))) << " — "
                << esc(t.steps[n - 1].reason) << "\";\n";
  std::set<uint32_t> drawn;
  for (auto& [kid, k] : state) {
    os << "  subgraph cluster_k" << kid << " {\n    label=\"K" << kid << " (" << k.opCount << " ops)\";\n    style=rounded;\n";
    if (changed.count(kid)) os << "    color=\"#e65100\"; penwidth=2;\n";
    for (uint32_t c : k.classes) {
      if (!drawn.insert(c).second) continue;
      const bool stored = std::find(k.stores.begin(), k.stores.end(), c) != k.stores.end();
      os << "    c" << c << " [label=\"" << esc(classLabel(g, c)) << "\"" << (stored ? ", peripheries=2" : "") << "];\n";
    }
    os << "  }\n";
  }
  // Loads: edges from the class a kernel loads to the kernel's first class.
  for (auto& [kid, k] : state) {
    if (k.classes.empty()) continue;
    for (uint32_t l : k.loads) {
      if (!drawn.count(l)) {
        os << "  c" << l << " [label=\"" << esc(classLabel(g, l)) << "\", style=dashed];\n";
        drawn.insert(l);
      }
      os << "  c" << l << " -> c" << k.classes.front() << " [style=dashed];\n";
    }
  }
  // Data edges between drawn classes inside kernels.
  for (uint32_t c : drawn)
    for (ClassId in : g.structural(ClassId(c)).in)
      if (drawn.count(in.v)) {
        bool sameKernel = false;
        for (auto& [kid, k] : state)
          sameKernel = sameKernel || (std::count(k.classes.begin(), k.classes.end(), c) &&
                                      std::count(k.classes.begin(), k.classes.end(), in.v));
        if (sameKernel) os << "  c" << in.v << " -> c" << c << ";\n";
      }
  os << "}\n";
  return os.str();
}

std::string egraphDot(const Session& s) {
  std::unordered_set<uint32_t> chosen;
  for (const NodeId n : s.trace().extraction.order) chosen.insert(n.v);
  return s.graph().toDot(&chosen);
}

std::string planDot(const Session& s) {
  const ExecPlan& p = s.trace().plan;
  std::ostringstream os;
  os << "digraph plan {\n  rankdir=TB;\n  node [fontname=\"DejaVu Sans\", fontsize=10];\n";
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const PlanStep& st = p.steps[i];
    os << "  s" << i << " [shape=" << (st.kind == PlanStep::Kind::Copy ? "ellipse" : "box") << ", label=\"" << i << ": "
       << esc(st.label) << "\"];\n";
  }
  for (std::size_t b = 0; b < p.buffers.size(); ++b) {
    const PlanBuffer& buf = p.buffers[b];
    int producer = -1;
    for (std::size_t i = 0; i < p.steps.size(); ++i)
      for (uint32_t o : p.steps[i].outputs)
        if (o == b) producer = static_cast<int>(i);
    if (producer < 0) {
      if (!buf.leaf) continue;
      os << "  b" << b << " [shape=note, label=\"%" << buf.cls.v << " " << esc(s.graph().leaf(s.graph().structural(buf.cls).ref).name)
         << "\"];\n";
    }
    for (std::size_t i = 0; i < p.steps.size(); ++i)
      for (uint32_t in : p.steps[i].inputs)
        if (in == b) {
          os << "  " << (producer < 0 ? "b" + std::to_string(b) : "s" + std::to_string(producer)) << " -> s" << i
             << " [label=\"%" << buf.cls.v << "\"];\n";
        }
    if (buf.output && producer >= 0) os << "  out" << b << " [shape=doublecircle, label=\"%" << buf.cls.v << "\"];\n  s" << producer << " -> out" << b << ";\n";
  }
  os << "}\n";
  return os.str();
}

std::string timelineTrace(const Session& s) {
  if (s.runs().empty()) throw Error(ErrorCode::Usage, "the session has no run yet: nothing to put on a timeline");
  const RunRecord& r = s.runs().back();
  nlohmann::json events = nlohmann::json::array();
  std::map<std::string, int> tid;
  double t = 0;
  for (const StepTiming& st : r.steps) {
    const int id = tid.emplace(st.device, static_cast<int>(tid.size())).first->second;
    events.push_back({{"name", st.label}, {"cat", st.kind}, {"ph", "X"}, {"ts", t / 1e3}, {"dur", st.ns / 1e3}, {"pid", 0},
                      {"tid", id}, {"args", {{"gflops", st.gflops}, {"gbps", st.gbps}}}});
    t += st.ns;
  }
  for (auto& [name, id] : tid)
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", id}, {"args", {{"name", name}}}});
  return nlohmann::json({{"traceEvents", events}, {"displayTimeUnit", "ns"}}).dump(1);
}

std::string exportView(const Session& s, ExportView view, const std::string& format, int step) {
  const bool graphFormat = format == "dot" || format == "svg" || format == "png";
  auto render = [&](const std::string& dot) { return format == "dot" ? dot : renderDot(dot, format); };
  std::ostringstream os;
  switch (view) {
    case ExportView::EGraph:
      if (graphFormat) return render(egraphDot(s));
      if (format == "json") return s.graph().toJson();
      if (format == "csv") {
        os << "class,op,dtype,shape,alternatives,chosen\n";
        const Graph& g = s.graph();
        for (uint32_t c = 0; c < g.classCount(); ++c) {
          auto it = s.trace().extraction.chosen.find(ClassId(c));
          os << c << "," << csvField(g.structural(ClassId(c)).label()) << "," << dtypeName(g.dtype(ClassId(c))) << ","
             << csvField(shapeStr(g.shape(ClassId(c)))) << "," << g.eclass(ClassId(c)).nodes.size() << ","
             << (it == s.trace().extraction.chosen.end() ? "" : csvField(g.node(it->second).label())) << "\n";
        }
        return os.str();
      }
      break;
    case ExportView::Fusion:
      if (graphFormat) return render(fusionDot(s, step));
      if (format == "json") return s.trace().fusion.trace.toJson(1);
      if (format == "csv") {
        os << "step,class,node,action,rule,reason,kernels\n";
        for (const FusionStep& f : s.trace().fusion.trace.steps) {
          std::string ks;
          for (int32_t k : f.kernels) ks += (ks.empty() ? "K" : " K") + std::to_string(k);
          os << f.index << "," << (f.cls == UINT32_MAX ? std::string() : std::to_string(f.cls)) << "," << csvField(f.node) << ","
             << fusionActionName(f.action) << "," << csvField(f.rule) << "," << csvField(f.reason) << "," << ks << "\n";
        }
        return os.str();
      }
      break;
    case ExportView::Plan:
      if (graphFormat) return render(planDot(s));
      if (format == "csv") {
        os << "step,kind,label,device,inputs,outputs\n";
        for (std::size_t i = 0; i < s.trace().plan.steps.size(); ++i) {
          const PlanStep& st = s.trace().plan.steps[i];
          os << i << "," << (st.kind == PlanStep::Kind::Launch ? "launch" : "copy") << "," << csvField(st.label) << ","
             << s.devices().at(st.device).name << "," << st.inputs.size() << "," << st.outputs.size() << "\n";
        }
        return os.str();
      }
      if (format == "json") {
        nlohmann::json j = nlohmann::json::parse(s.toJson());
        return j["trace"]["plan"].dump(1);
      }
      break;
    case ExportView::Timeline:
      if (format == "json") return timelineTrace(s);
      if (format == "csv") {
        if (s.runs().empty()) throw Error(ErrorCode::Usage, "the session has no run yet");
        os << "step,label,device,kind,ms,gflops,gbps\n";
        const RunRecord& r = s.runs().back();
        for (std::size_t i = 0; i < r.steps.size(); ++i)
          os << i << "," << csvField(r.steps[i].label) << "," << r.steps[i].device << "," << r.steps[i].kind << ","
             << r.steps[i].ns / 1e6 << "," << r.steps[i].gflops << "," << r.steps[i].gbps << "\n";
        return os.str();
      }
      break;
  }
  throw Error(ErrorCode::Usage, "this view cannot be exported as '" + format + "'");
}

}  // namespace ks
