// The pictures of a session's stages, built the same way for the GUI's graph views and for
// `kernelscope-cli export`, so both show the same nodes and edges.
#pragma once
#include "engine/session/session.h"
#include "engine/viz/picture.h"

namespace ks {

// The session's e-graph with the extraction's choices once extracted.
viz::Picture egraphPictureOf(const Session& s);
// The kernels after fusion step `step` (-1: the last).
viz::Picture fusionPictureOf(const Session& s, int step);
// Every fusion step's nodes at once (viz::fusionFramePicture): laid out once, it keeps each node
// in one place while the steps are stepped through.
viz::Picture fusionFramePictureOf(const Session& s);
// The plan's launches and copies (empty before planning).
viz::Picture planPictureOf(const Session& s);

}  // namespace ks
