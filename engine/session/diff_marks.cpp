// Per-node marks of a session diff (see diff_marks.h).
#include "engine/session/diff_marks.h"

#include <unordered_set>

namespace ks {

std::string_view diffMarkName(DiffMark m) {
  switch (m) {
    case DiffMark::Same: return "same";
    case DiffMark::Added: return "added";
    case DiffMark::Removed: return "removed";
    case DiffMark::Changed: return "changed";
  }
  return "same";
}

namespace {
DiffMark stepMark(const std::string& status, DiffSideId side) {
  if (status == "changed") return DiffMark::Changed;
  if (status == "only_a" || status == "only_b") return side == DiffSideId::A ? DiffMark::Removed : DiffMark::Added;
  return DiffMark::Same;
}
}  // namespace

std::vector<DiffMark> diffMarks(const viz::Picture& p, const Session& s, const SessionDiff& d, DiffSideId side) {
  const bool isA = side == DiffSideId::A;
  const std::vector<std::string>& steps = isA ? d.stepStatusA : d.stepStatusB;
  const Graph& g = s.graph();
  // Class ids as the diff names them: canonical in their own session.
  std::unordered_set<uint32_t> only, changed;
  for (uint32_t c : isA ? d.onlyAClasses : d.onlyBClasses) only.insert(g.find(ClassId(c)).v);
  for (const DiffChoice& c : d.choices) changed.insert(g.find(ClassId(isA ? c.classA : c.classB)).v);
  const DiffMark onlyMark = isA ? DiffMark::Removed : DiffMark::Added;

  std::vector<DiffMark> marks(p.nodes.size(), DiffMark::Same);
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const viz::Subject& sub = p.nodes[i].subject;
    if (sub.kind == viz::SubjectKind::PlanStep && sub.id < steps.size()) {
      marks[i] = stepMark(steps[sub.id], side);
    } else if (sub.kind == viz::SubjectKind::ENode && sub.id < g.nodeCount()) {
      const uint32_t c = g.classOf(NodeId(sub.id)).v;
      if (only.count(c)) marks[i] = onlyMark;
      else if (changed.count(c)) marks[i] = DiffMark::Changed;
    }
  }
  return marks;
}

}  // namespace ks
