// Session -> Picture: picks the records each picture builder needs.
#include "engine/session/session_pictures.h"

#include "engine/session/source_links.h"
#include "engine/viz/egraph_picture.h"
#include "engine/viz/fusion_frame.h"
#include "engine/viz/fusion_picture.h"
#include "engine/viz/plan_picture.h"

namespace ks {

viz::Picture egraphPictureOf(const Session& s) {
  viz::EGraphPictureOptions o;
  o.extraction = s.hasStage(Stage::Extracted) ? &s.trace().extraction : nullptr;
  o.outputs = s.program().resultClasses();
  o.places = &s.program().places;
  o.rewrites = &s.trace().rewrite.report.steps;
  return viz::egraphPicture(s.graph(), o);
}

viz::Picture fusionPictureOf(const Session& s, int step, int run) {
  const CompileTrace& t = s.trace();
  const KernelizerRun* r = run < 0 ? t.shownRun() : &t.fusionRuns.at(static_cast<std::size_t>(run));
  if (!r) return viz::fusionPicture(FusionTrace{}, step, &s.graph());
  if (r->forms.empty()) return fusionPictureOf(*r, s.graph(), step);
  return fusionPictureOf(*r, runGraph(s.graph(), *r), step);
}

viz::Picture fusionPictureOf(const KernelizerRun& run, const Graph& graph, int step) {
  return viz::fusionPicture(run.trace, step, &graph);
}

viz::Picture fusionFramePictureOf(const Session& s, int run) {
  const CompileTrace& t = s.trace();
  const KernelizerRun* r = run < 0 ? t.shownRun() : &t.fusionRuns.at(static_cast<std::size_t>(run));
  if (!r) return viz::fusionFramePicture(FusionTrace{}, &s.graph());
  if (r->forms.empty()) return fusionFramePictureOf(*r, s.graph());
  return fusionFramePictureOf(*r, runGraph(s.graph(), *r));
}

viz::Picture fusionFramePictureOf(const KernelizerRun& run, const Graph& graph) { return viz::fusionFramePicture(run.trace, &graph); }

viz::Picture planPictureOf(const Session& s) {
  if (!s.hasStage(Stage::Planned)) {
    viz::Picture p;
    p.name = "plan";
    return p;
  }
  std::vector<std::string> kernelNames, deviceNames;
  for (const KernelRecord& k : s.trace().kernels) kernelNames.push_back(k.name);
  for (const DeviceInfo& d : s.devices()) deviceNames.push_back(d.name);
  std::vector<std::string> stepSources;
  for (std::size_t i = 0; i < s.trace().plan.steps.size(); ++i) stepSources.push_back(linesText(sourceLines(s, classesOfStep(s, i))));
  return viz::planPicture({s.trace().plan, s.trace().entries, kernelNames, deviceNames, &stepSources});
}

}  // namespace ks
