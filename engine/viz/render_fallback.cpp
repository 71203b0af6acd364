// renderDot without Graphviz: a clear error instead of a picture.
#include "engine/viz/picture_dot.h"

#ifndef KS_WITH_GRAPHVIZ
#include "engine/core/error.h"
namespace ks::viz {
std::string renderDot(const std::string&, const std::string& format) {
  throw Error(ErrorCode::Unsupported, "rendering to " + format + " needs Graphviz; this build has KS_WITH_GRAPHVIZ=OFF");
}
}  // namespace ks::viz
#endif
