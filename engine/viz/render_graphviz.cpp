// renderDot through libgvc. libgvc is not thread-safe: callers serialize (the GUI has one
// layout worker; the CLI is single-threaded), and a mutex here guards against mistakes.
#include <graphviz/gvc.h>

#include <mutex>

#include "engine/core/error.h"
#include "engine/viz/picture_dot.h"

namespace ks::viz {

std::string renderDot(const std::string& dot, const std::string& format) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  agseterr(AGERR);  // warnings would go to stderr from inside the library
  GVC_t* gvc = gvContext();
  Agraph_t* g = agmemread(dot.c_str());
  if (!g) {
    gvFreeContext(gvc);
    throw Error(ErrorCode::Internal, "Graphviz could not parse the DOT text");
  }
  std::string out;
  if (gvLayout(gvc, g, "dot") == 0) {
    char* buf = nullptr;
    unsigned int len = 0;
    if (gvRenderData(gvc, g, format.c_str(), &buf, &len) == 0 && buf) out.assign(buf, len);
    gvFreeRenderData(buf);
    gvFreeLayout(gvc, g);
  }
  agclose(g);
  gvFreeContext(gvc);
  if (out.empty()) throw Error(ErrorCode::Internal, "Graphviz failed to render format '" + format + "'");
  return out;
}

}  // namespace ks::viz
