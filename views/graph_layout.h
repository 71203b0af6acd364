// Positions and edge splines of a GraphModel, computed by Graphviz (dot) in process.
// layoutGraph calls libgvc, which is not thread-safe: only LayoutWorker's thread may call it.
#pragma once
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <vector>

#include "views/graph_model.h"

namespace ks {

struct GraphLayout {
  struct EdgePath {
    int edge = 0;          // index into the model's edges
    QPainterPath path;     // the spline, ending where the arrowhead starts
    QPointF arrowBase;     // arrowhead from base to tip (Graphviz stops splines short of it)
    QPointF arrowTip;
    bool hasArrow = false;
  };
  std::vector<QRectF> nodeRects;     // one per model node, y grows downward
  std::vector<QRectF> clusterRects;  // one per model cluster (null rect when it has no nodes)
  std::vector<EdgePath> edges;
  QRectF bounds;
};

// Layouts are bounded: beyond this many nodes or edges the graph must be shown collapsed.
inline constexpr int kMaxLayoutNodes = 2000;
inline constexpr int kMaxLayoutEdges = 5000;

// Lays out `m` top to bottom with dot. Throws ks::Error (Unsupported without Graphviz, Usage
// when the model exceeds the bounds, Internal when Graphviz fails). Layout thread only.
GraphLayout layoutGraph(const GraphModel& m);

}  // namespace ks
