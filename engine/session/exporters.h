// Headless pictures and tables of every stage, for `kernelscope-cli export`: the stage pictures
// (engine/viz) as DOT, SVG, PNG or JSON, tables as CSV, the last run as a Chrome trace.
#pragma once
#include <string>

#include "engine/session/session.h"

namespace ks {

enum class ExportView : uint8_t { EGraph, Fusion, Plan, Timeline };

struct ExportOptions {
  int step = -1;       // fusion: the state after this step (-1: the last)
  std::string expand;  // groups shown open: "g0,g3", "all" or "" (a large picture opens collapsed)
};

// The last run as Chrome-trace JSON (chrome://tracing, Perfetto): one row per device.
std::string timelineTrace(const Session& s);

// `format`: dot, svg, png (via Graphviz), json or csv. Throws ks::Error(Usage) for a combination
// that does not exist and Error(Unsupported) for svg/png without Graphviz.
std::string exportView(const Session& s, ExportView view, const std::string& format, const ExportOptions& options = {});

}  // namespace ks
