// The pictures of a session's stages, built the same way for the GUI's graph views and for
// `kernelscope-cli export`, so both show the same nodes and edges.
#pragma once
#include "engine/session/session.h"
#include "engine/viz/picture.h"

namespace ks {

// The session's e-graph with the extraction's choices once extracted.
viz::Picture egraphPictureOf(const Session& s);
// The kernels after fusion step `step` (-1: the last) of kernelizer run `run` (-1: the one the
// plan's kernels come from, CompileTrace::shownRun), drawn on that run's graph.
viz::Picture fusionPictureOf(const Session& s, int step, int run = -1);
// The same for a run whose graph (runGraph) is at hand: the Fusion view keeps it between steps.
viz::Picture fusionPictureOf(const KernelizerRun& run, const Graph& graph, int step);
// Every fusion step's nodes at once (viz::fusionFramePicture) of run `run` (-1: the plan's): laid
// out once, it keeps each node in one place while the steps are stepped through.
viz::Picture fusionFramePictureOf(const Session& s, int run = -1);
viz::Picture fusionFramePictureOf(const KernelizerRun& run, const Graph& graph);
// The plan's launches and copies (empty before planning).
viz::Picture planPictureOf(const Session& s);

}  // namespace ks
