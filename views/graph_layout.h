// Positions and edge splines of a picture, computed by Graphviz (dot) in process.
// layoutGraph calls libgvc, which is not thread-safe: only LayoutWorker's thread may call it.
#pragma once
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <vector>

#include "engine/viz/picture.h"

namespace ks {

// What a layout needs of a picture: node sizes (scene units, points as Graphviz uses), the
// cluster of each node and the edges.
struct LayoutInput {
  struct Edge {
    int from = 0;
    int to = 0;
    int count = 1;
  };
  std::vector<QSizeF> sizes;
  std::vector<int> cluster;  // per node, -1 for none
  int clusterCount = 0;
  std::vector<Edge> edges;
};
// Node sizes from their labels (bold first line, plain further lines).
LayoutInput layoutInputOf(const viz::Picture& p);

struct GraphLayout {
  struct EdgePath {
    int edge = 0;          // index into the input's edges
    QPainterPath path;     // the spline, ending where the arrowhead starts
    QPointF arrowBase;     // arrowhead from base to tip (Graphviz stops splines short of it)
    QPointF arrowTip;
    bool hasArrow = false;
  };
  std::vector<QRectF> nodeRects;     // one per node, y grows downward
  std::vector<QRectF> clusterRects;  // one per cluster (null rect when it has no nodes)
  std::vector<EdgePath> edges;
  QRectF bounds;
};

// Layouts are bounded: beyond this many nodes or edges the graph must be shown collapsed.
inline constexpr int kMaxLayoutNodes = 2000;
inline constexpr int kMaxLayoutEdges = 5000;

// Lays out `in` top to bottom with dot. Throws ks::Error (Unsupported without Graphviz, Usage
// when the input exceeds the bounds, Internal when Graphviz fails). Layout thread only.
GraphLayout layoutGraph(const LayoutInput& in);

}  // namespace ks
