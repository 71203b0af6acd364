// GraphModel helpers: label-based node sizes and the DOT text used for export.
#include "views/graph_model.h"

#include <QFont>
#include <QFontMetricsF>
#include <QStringList>
#include <algorithm>

namespace ks {

void GraphModel::sizeNodesFromLabels() {
  QFont plain;
  plain.setPointSizeF(9);
  QFont bold = plain;
  bold.setBold(true);
  QFontMetricsF fp(plain), fb(bold);
  for (Node& n : nodes) {
    const QStringList lines = n.label.split('\n');
    double w = 0, h = 0;
    for (int i = 0; i < lines.size(); ++i) {
      const QFontMetricsF& fm = i == 0 ? fb : fp;
      w = std::max(w, fm.horizontalAdvance(lines[i]));
      h += fm.height();
    }
    n.width = std::max(40.0, w + 16);
    n.height = std::max(24.0, h + 10);
  }
}

namespace {
QString quoted(const QString& s) {
  QString out = s;
  out.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
  return '"' + out + '"';
}
}  // namespace

QString GraphModel::toDot(const QString& graphName) const {
  QString out;
  out += "digraph " + quoted(graphName) + " {\n";
  out += "  node [shape=box, style=rounded, fontsize=10];\n";
  auto nodeLine = [&](int i, const QString& indent) {
    const Node& n = nodes[i];
    QString attrs = "label=" + quoted(n.label) + ", tooltip=" + quoted(n.tooltip);
    if (n.style == Style::Chosen || n.highlighted) attrs += ", penwidth=2, color=\"#d9480f\"";
    if (n.style == Style::Group) attrs += ", shape=box3d";
    return indent + "n" + QString::number(i) + " [" + attrs + "];\n";
  };
  std::vector<std::vector<int>> members(clusters.size());
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    if (nodes[i].cluster >= 0) members[nodes[i].cluster].push_back(i);
    else out += nodeLine(i, "  ");
  }
  for (std::size_t c = 0; c < clusters.size(); ++c) {
    if (members[c].empty()) continue;
    out += "  subgraph cluster_" + QString::number(c) + " {\n";
    out += "    label=" + quoted(clusters[c].label) + "; style=rounded;\n";
    for (int i : members[c]) out += nodeLine(i, "    ");
    out += "  }\n";
  }
  for (const Edge& e : edges) {
    out += "  n" + QString::number(e.from) + " -> n" + QString::number(e.to);
    QString label = e.label;
    if (label.isEmpty() && e.count > 1) label = QString("x%1").arg(e.count);
    if (!label.isEmpty()) out += " [label=" + quoted(label) + "]";
    out += ";\n";
  }
  out += "}\n";
  return out;
}

}  // namespace ks
