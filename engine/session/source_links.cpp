// Source links (see source_links.h).
#include "engine/session/source_links.h"

namespace ks {

std::vector<ClassId> classesOfKernel(const Session& s, std::size_t k) {
  const auto& kernels = s.trace().kernels;
  return k < kernels.size() ? kernels[k].fused.classes : std::vector<ClassId>{};
}

std::vector<ClassId> classesOfStep(const Session& s, std::size_t step) {
  const CompileTrace& t = s.trace();
  if (step >= t.plan.steps.size()) return {};
  const PlanStep& st = t.plan.steps[step];
  if (st.kind == PlanStep::Kind::Launch && st.kernel < t.entries.size() &&
      t.entries[st.kernel].kind == KernelEntry::Kind::Fused)
    return classesOfKernel(s, t.entries[st.kernel].fused);
  // A copy's output is a device copy the memory stage made (no place of its own): it moves the
  // value of its input.
  std::vector<ClassId> r;
  for (uint32_t b : st.kind == PlanStep::Kind::Copy ? st.inputs : st.outputs)
    if (b < t.plan.buffers.size()) r.push_back(t.plan.buffers[b].cls);
  return r;
}

std::optional<std::size_t> kernelComputing(const Session& s, ClassId c) {
  const Graph& g = s.graph();
  if (!c.valid() || c.v >= g.classCount()) return std::nullopt;
  const ClassId want = g.find(c);
  const CompileTrace& t = s.trace();
  for (const PlanStep& st : t.plan.steps) {
    if (st.kind != PlanStep::Kind::Launch || st.kernel >= t.entries.size()) continue;
    const KernelEntry& e = t.entries[st.kernel];
    if (e.kind != KernelEntry::Kind::Fused) continue;
    for (ClassId k : classesOfKernel(s, e.fused))
      if (k.v < g.classCount() && g.find(k) == want) return e.fused;
  }
  return std::nullopt;
}

std::vector<int> sourceLines(const Session& s, const std::vector<ClassId>& classes) {
  return s.program().places.linesOf(s.graph(), classes);
}

std::string linesText(const std::vector<int>& lines) {
  std::string r;
  for (std::size_t i = 0; i < lines.size();) {
    std::size_t j = i;
    while (j + 1 < lines.size() && lines[j + 1] == lines[j] + 1) ++j;
    r += (r.empty() ? "" : ", ") + std::to_string(lines[i]) + (j > i ? "-" + std::to_string(lines[j]) : "");
    i = j + 1;
  }
  if (r.empty()) return r;
  return (lines.size() == 1 ? "line " : "lines ") + r;
}

}  // namespace ks
