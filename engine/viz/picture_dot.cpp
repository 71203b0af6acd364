// toDot: the DOT text of a picture, the only DOT writer in the tree.
#include "engine/viz/picture_dot.h"

#include <sstream>

namespace ks::viz {

namespace {
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '"' || c == '\\') out += std::string("\\") + c;
    else out += c;
  }
  return out + "\"";
}

std::string nodeLine(const Picture& p, int i, const char* indent) {
  const Node& n = p.nodes[i];
  const Palette pal = paletteOf(n.style);
  std::string attrs = "label=" + quoted(n.label) + ", tooltip=" + quoted(n.tooltip.empty() ? n.label : n.tooltip) +
                      ", fillcolor=\"" + pal.fill + "\"";
  if (n.highlighted || n.style == Style::Chosen) attrs += std::string(", penwidth=2, color=\"") + kHighlightColor + "\"";
  else attrs += std::string(", color=\"") + pal.border + "\"";
  if (n.style == Style::Group) attrs += ", shape=box3d";
  if (n.style == Style::Copy) attrs += ", shape=ellipse";
  return std::string(indent) + "n" + std::to_string(i) + " [" + attrs + "];\n";
}
}  // namespace

std::string toDot(const Picture& p) {
  std::ostringstream os;
  os << "digraph " << quoted(p.name.empty() ? "G" : p.name) << " {\n";
  os << "  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\", fontsize=10];\n";
  if (!p.title.empty()) os << "  label=" << quoted(p.title) << ";\n  labelloc=t;\n";
  std::vector<std::vector<int>> members(p.clusters.size());
  for (int i = 0; i < static_cast<int>(p.nodes.size()); ++i) {
    const int c = p.nodes[i].cluster;
    if (c >= 0 && c < static_cast<int>(p.clusters.size())) members[c].push_back(i);
    else os << nodeLine(p, i, "  ");
  }
  for (std::size_t c = 0; c < p.clusters.size(); ++c) {
    if (members[c].empty()) continue;
    const Cluster& cl = p.clusters[c];
    os << "  subgraph cluster_" << c << " {\n    label=" << quoted(cl.label) << "; tooltip=" << quoted(cl.tooltip)
       << "; style=rounded;\n";
    if (cl.highlighted) os << "    color=\"" << kHighlightColor << "\"; penwidth=2;\n";
    for (int i : members[c]) os << nodeLine(p, i, "    ");
    os << "  }\n";
  }
  for (const Edge& e : p.edges) {
    os << "  n" << e.from << " -> n" << e.to;
    std::string attrs;
    std::string label = e.label;
    if (label.empty() && e.count > 1) label = "x" + std::to_string(e.count);
    if (!label.empty()) attrs += "label=" + quoted(label);
    if (e.memory) attrs += std::string(attrs.empty() ? "" : ", ") + "style=dashed";
    if (!attrs.empty()) os << " [" << attrs << "]";
    os << ";\n";
  }
  os << "}\n";
  return os.str();
}

std::string render(const Picture& p, const std::string& format) {
  const std::string dot = toDot(p);
  return format == "dot" ? dot : renderDot(dot, format);
}

}  // namespace ks::viz
