// .ks printing beyond printKs (program_source.h): the graph-structural form, and number
// formatting that parses back to the same bits.
#pragma once
#include <string>

#include "engine/program/program.h"

namespace ks {

// Prints the program node by node from its e-graph (one statement per e-class, in class order,
// dead classes included), using the low-level ops of the registry where a high-level op would
// not give exactly the same node. Parsing the result gives the same cache key. printKs uses this
// for programs that did not come from text (ONNX, builder code).
std::string printKsGraph(const Program& p);

// Shortest text that reads back as the same double: "0.05", "1e-05", "inf", "-inf", "nan".
std::string formatKsNumber(double v);

}  // namespace ks
