// Picture: style names and palette, look-ups, and the small text helpers every builder shares.
#include "engine/viz/picture.h"

#include <array>
#include <cstdio>

namespace ks::viz {

namespace {
constexpr std::array<std::string_view, kNumStyles> kStyleNames = {"plain",  "leaf", "output", "alternative",
                                                                  "chosen", "group", "copy",  "gemm"};
}

std::string_view styleName(Style s) { return kStyleNames.at(static_cast<std::size_t>(s)); }

Palette paletteOf(Style s) {
  switch (s) {
    case Style::Leaf: return {"#e7f5ff", "#495057"};
    case Style::Output: return {"#fff3bf", "#495057"};
    case Style::Alternative: return {"#f1f3f5", "#495057"};
    case Style::Chosen: return {"#ffe8cc", kHighlightColor};
    case Style::Group: return {"#e6fcf5", "#495057"};
    case Style::Copy: return {"#f3f0ff", "#495057"};
    case Style::Gemm: return {"#ebfbee", "#2b8a3e"};
    case Style::Plain: break;
  }
  return {"#ffffff", "#495057"};
}

std::string_view subjectKindName(SubjectKind k) {
  switch (k) {
    case SubjectKind::ENode: return "enode";
    case SubjectKind::EClass: return "eclass";
    case SubjectKind::Kernel: return "kernel";
    case SubjectKind::PlanStep: return "plan_step";
    case SubjectKind::PlanOutput: return "plan_output";
    case SubjectKind::Group: return "group";
    case SubjectKind::None: break;
  }
  return "none";
}

int Picture::findNode(std::string_view id) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].id == id) return static_cast<int>(i);
  return -1;
}

int Picture::findSubject(Subject s) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].subject == s) return static_cast<int>(i);
  return -1;
}

std::string classRef(uint32_t cls) { return "%" + std::to_string(cls); }

std::string durationText(double ns) {
  char buf[32];
  if (ns >= 1e6) std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else if (ns >= 1e3) std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  return buf;
}

}  // namespace ks::viz
