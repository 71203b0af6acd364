// The frame of a fusion trace: the union of the pictures of all its steps, laid out once so that
// stepping through the kernelizer moves no node (the principle of iongraph and IGV: a node keeps
// its place when the graph around it changes).
#pragma once
#include "engine/graph/graph.h"
#include "engine/kernelizer/fusion_trace.h"
#include "engine/viz/picture.h"

namespace ks::viz {

// Every node id any step's fusionPicture draws, once, as the last step that draws it does (so
// a class sits in the kernel it ends up in); the edges between them; the kernels as clusters.
// Nothing is highlighted. A trace without steps gives an empty picture.
Picture fusionFramePicture(const FusionTrace& trace, const Graph* graph);

}  // namespace ks::viz
