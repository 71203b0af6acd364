// The kernelizer's state after a fusion step as a Picture: each kernel a cluster of the classes it
// computes, its loads drawn as leaves and its stores as outputs, edges along operands inside a
// kernel and from a store to the loads of it in other kernels. The step's kernels and class are
// highlighted.
#pragma once
#include "engine/graph/graph.h"
#include "engine/kernelizer/fusion_trace.h"
#include "engine/viz/picture.h"

namespace ks::viz {

// Node ids "c<class>" for the class computed in a kernel (a duplicated chain's second copy
// "c<class>@K<kernel>"), "K<kernel>/load c<class>" for loads; cluster ids "K<kernel>" (subject
// Kernel). `graph` may be null (labels then carry class ids only).
Picture fusionStatePicture(const TraceState& state, const FusionStep* step, const Graph* graph);

// The state after step `step` of the trace (-1 or past the end: the last step).
Picture fusionPicture(const FusionTrace& trace, int step, const Graph* graph);

}  // namespace ks::viz
