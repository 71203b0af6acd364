// planPicture: launches and copies as nodes joined by the buffers they pass.
#include "engine/viz/plan_picture.h"

namespace ks::viz {

namespace {
std::string deviceName(const PlanPictureInput& in, uint32_t d) {
  return d < in.deviceNames.size() ? in.deviceNames[d] : std::to_string(d);
}

// "exp_mul_sum on opencl:0:0" -> "exp_mul_sum"
std::string beforeOn(const std::string& label) { return label.substr(0, label.find(" on ")); }

Node stepNode(const PlanPictureInput& in, std::size_t i) {
  const PlanStep& st = in.plan.steps[i];
  const bool copy = st.kind == PlanStep::Kind::Copy;
  const KernelEntry* e = !copy && st.kernel < in.entries.size() ? &in.entries[st.kernel] : nullptr;
  Node n;
  n.id = "s" + std::to_string(i);
  n.subject = {SubjectKind::PlanStep, static_cast<uint32_t>(i)};
  n.tooltip = "step " + std::to_string(i) + ": " + st.label;
  if (in.stepSources && i < in.stepSources->size() && !(*in.stepSources)[i].empty())
    n.tooltip += "\nfrom " + (*in.stepSources)[i];
  if (copy) {
    n.style = Style::Copy;
    n.label = std::to_string(i) + ": " + st.label;
    return n;
  }
  std::string what = beforeOn(st.label);
  if (e && e->kind == KernelEntry::Kind::Fused && e->fused < in.kernelNames.size()) what = in.kernelNames[e->fused];
  n.label = std::to_string(i) + ": " + what;
  if (e && !e->schedule.empty()) n.label += "\n" + e->schedule;
  // No cluster per device: clusters made dot spread the data flow across the whole width; the
  // style tells GEMMs from launches and the label names the device.
  n.label += "\n" + deviceName(in, st.device);
  n.style = e && e->kind == KernelEntry::Kind::Gemm ? Style::Gemm : Style::Plain;
  if (e && e->timeNs > 0) n.tooltip += "\npredicted " + durationText(e->timeNs);
  return n;
}
}  // namespace

Picture planPicture(const PlanPictureInput& in) {
  Picture p;
  p.name = "plan";
  const ExecPlan& plan = in.plan;
  std::vector<int> producer(plan.buffers.size(), -1);  // buffer -> node that writes it
  std::vector<int> nodeOfStep(plan.steps.size(), -1);
  // A zero-copy step moves nothing: its consumers read the producer's memory, drawn as a dashed
  // edge from the producer labelled zero-copy.
  std::vector<bool> zeroCopied(plan.buffers.size(), false);
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep& st = plan.steps[i];
    if (st.zeroCopy && st.inputs.size() == 1 && st.outputs.size() == 1 && st.inputs[0] < producer.size() &&
        st.outputs[0] < producer.size()) {
      producer[st.outputs[0]] = producer[st.inputs[0]];
      zeroCopied[st.outputs[0]] = true;
      continue;
    }
    const bool upload = st.kind == PlanStep::Kind::Copy && !st.inputs.empty() && st.inputs[0] < producer.size() &&
                        producer[st.inputs[0]] < 0;
    if (upload) continue;
    nodeOfStep[i] = static_cast<int>(p.nodes.size());
    for (uint32_t o : st.outputs)
      if (o < producer.size()) producer[o] = nodeOfStep[i];
    p.nodes.push_back(stepNode(in, i));
  }
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    if (nodeOfStep[i] < 0) continue;
    for (uint32_t b : plan.steps[i].inputs) {
      if (b >= producer.size() || producer[b] < 0) continue;
      Edge e;
      e.from = producer[b];
      e.to = nodeOfStep[i];
      e.label = classRef(plan.buffers[b].cls.v) + (zeroCopied[b] ? " zero-copy" : "");
      e.memory = zeroCopied[b];
      p.edges.push_back(e);
    }
  }
  for (const auto& [cls, buf] : plan.outputs) {
    if (buf >= producer.size() || producer[buf] < 0) continue;
    Node out;
    out.id = "out" + std::to_string(buf);
    out.subject = {SubjectKind::PlanOutput, buf};
    out.label = "output " + classRef(cls.v);
    out.tooltip = out.label;
    out.style = Style::Output;
    p.nodes.push_back(std::move(out));
    Edge e;
    e.from = producer[buf];
    e.to = static_cast<int>(p.nodes.size()) - 1;
    p.edges.push_back(e);
  }
  return p;
}

}  // namespace ks::viz
