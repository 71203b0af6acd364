// exportView: the stage pictures through engine/viz, CSV tables, and the timeline trace.
#include "engine/session/exporters.h"

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/session/session_pictures.h"
#include "engine/viz/collapse.h"
#include "engine/viz/picture_dot.h"
#include "engine/viz/picture_json.h"

namespace ks {

namespace {
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char c : s) r += c == '"' ? std::string("\"\"") : std::string(1, c);
  return r + "\"";
}

// The picture as the GUI opens it (groups of a large one closed unless named in `expand`).
std::string renderPicture(const viz::Picture& p, const std::string& format, const ExportOptions& o) {
  const std::set<int> open = viz::groupsNamed(p, o.expand);
  if (format == "json") return viz::toJson(p, open);
  return viz::render(viz::collapse(p, open).visible, format);
}
}  // namespace

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

std::string exportView(const Session& s, ExportView view, const std::string& format, const ExportOptions& options) {
  const bool picture = format == "dot" || format == "svg" || format == "png" || format == "json";
  std::ostringstream os;
  switch (view) {
    case ExportView::EGraph:
      if (picture) return renderPicture(egraphPictureOf(s), format, options);
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
      if (picture) return renderPicture(fusionPictureOf(s, options.step), format, options);
      if (format == "csv") {
        os << "step,class,node,action,rule,reason,kernels\n";
        const KernelizerRun* run = s.trace().shownRun();
        for (const FusionStep& f : run ? run->trace.steps : std::vector<FusionStep>{}) {
          std::string ks;
          for (int32_t k : f.kernels) ks += (ks.empty() ? "K" : " K") + std::to_string(k);
          os << f.index << "," << (f.cls == UINT32_MAX ? std::string() : std::to_string(f.cls)) << "," << csvField(f.node) << ","
             << fusionActionName(f.action) << "," << csvField(f.rule) << "," << csvField(f.reason) << "," << ks << "\n";
        }
        return os.str();
      }
      break;
    case ExportView::Plan:
      if (picture) return renderPicture(planPictureOf(s), format, options);
      if (format == "csv") {
        os << "step,kind,label,device,inputs,outputs\n";
        for (std::size_t i = 0; i < s.trace().plan.steps.size(); ++i) {
          const PlanStep& st = s.trace().plan.steps[i];
          os << i << "," << (st.kind == PlanStep::Kind::Launch ? "launch" : "copy") << "," << csvField(st.label) << ","
             << s.devices().at(st.device).name << "," << st.inputs.size() << "," << st.outputs.size() << "\n";
        }
        return os.str();
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
