// Headless pictures and tables of every stage, for `kernelscope-cli export` (and the GUI's
// exports): DOT (rendered to SVG/PNG with Graphviz), JSON and CSV.
#pragma once
#include <string>

#include "engine/session/session.h"

namespace ks {

enum class ExportView : uint8_t { EGraph, Fusion, Plan, Timeline };

// Kernels after fusion step `step` (-1: the last) as clusters of the classes they hold; the
// classes the step changed are highlighted.
std::string fusionDot(const Session& s, int step);
// The e-graph with the extracted producers highlighted.
std::string egraphDot(const Session& s);
// The plan as a graph of launches and copies joined by the buffers they pass.
std::string planDot(const Session& s);
// The last run as Chrome-trace JSON (chrome://tracing, Perfetto): one row per device.
std::string timelineTrace(const Session& s);

// `format`: dot, svg, png (via Graphviz), json or csv. Throws ks::Error(Usage) for a combination
// that does not exist and Error(Unsupported) for svg/png without Graphviz.
std::string exportView(const Session& s, ExportView view, const std::string& format, int step = -1);

}  // namespace ks
