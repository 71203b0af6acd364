// renderDot through libgvc. libgvc is not thread-safe: callers serialize (the GUI has one
// layout worker; the CLI is single-threaded), and a mutex here guards against mistakes.
#include <graphviz/gvc.h>

#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/viz/layout_cost.h"
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
  // The ranks dot would need decide the engine: a graph that would take dot minutes gets neato.
  std::unordered_map<Agnode_t*, int> index;
  for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) index.emplace(n, static_cast<int>(index.size()));
  std::vector<std::pair<int, int>> edges;
  for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n))
    for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) edges.push_back({index[agtail(e)], index[aghead(e)]});
  const char* engine = layoutEngineFor(static_cast<int>(index.size()), edges);
  if (std::string(engine) == "neato") {
    agsafeset(g, const_cast<char*>("overlap"), const_cast<char*>("false"), const_cast<char*>(""));
    agsafeset(g, const_cast<char*>("splines"), const_cast<char*>("line"), const_cast<char*>(""));
  }
  std::string out;
  if (gvLayout(gvc, g, engine) == 0) {
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
