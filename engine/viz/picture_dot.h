// Graphviz renderings of a Picture: DOT text, and SVG/PNG through libgvc.
#pragma once
#include <string>

#include "engine/viz/picture.h"

namespace ks::viz {

// Clusters become `subgraph cluster_N`, styles the palette's colours, the title the graph label.
// Groups are not drawn here: pass the visible picture of a collapsed view to draw them as boxes.
std::string toDot(const Picture& p);

// Lays out and renders DOT text as "svg" or "png". Throws ks::Error(Unsupported) when built
// without Graphviz, Error(Internal) when Graphviz fails. Calls are serialized (libgvc is not
// thread-safe).
std::string renderDot(const std::string& dot, const std::string& format);

// "dot", "svg" or "png" of a picture.
std::string render(const Picture& p, const std::string& format);

}  // namespace ks::viz
