// GraphFrame: a picture laid out once (the frame) and the places it gives the nodes, cluster
// boxes and edges of any picture whose node ids it holds, so pictures that share a frame (the
// fusion steps) draw every node where the others drew it.
#pragma once
#include <QRectF>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "engine/viz/picture.h"
#include "views/graph_layout.h"

namespace ks {

class GraphFrame {
 public:
  GraphFrame(std::shared_ptr<const viz::Picture> picture, std::shared_ptr<const GraphLayout> layout);

  const viz::Picture& picture() const { return *picture_; }
  // Every node of `p` has a place in the frame.
  bool holds(const viz::Picture& p) const;
  QRectF nodeRect(const viz::Node& n) const;
  // The box around the cluster's members with room for its title (null when it has none).
  QRectF clusterRect(const viz::Picture& p, int cluster) const;
  // The frame's spline between the edge's two nodes when the frame has that edge, else a
  // straight line between them, with its arrowhead.
  GraphLayout::EdgePath edgePath(const viz::Picture& p, const viz::Edge& e) const;
  // The frame's whole extent: the same for every picture drawn in it, so the view's scroll
  // position means the same place at every step.
  QRectF bounds() const { return layout_->bounds; }

 private:
  int indexOf(const std::string& id) const;
  std::shared_ptr<const viz::Picture> picture_;
  std::shared_ptr<const GraphLayout> layout_;
  std::unordered_map<std::string, int> nodeAt_;
  std::map<std::pair<int, int>, const GraphLayout::EdgePath*> pathOf_;
};

}  // namespace ks
