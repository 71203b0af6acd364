// .ks printing beyond printKs (program_source.h): the graph-structural form, and number
// formatting that parses back to the same bits.
#pragma once
#include <filesystem>
#include <string>

#include "engine/program/program.h"

namespace ks {

// Prints the program node by node from its e-graph (one statement per e-class, in class order,
// dead classes included), using the low-level ops of the registry where a high-level op would
// not give exactly the same node. Parsing the result gives the same cache key. printKs uses this
// for programs that did not come from text (ONNX, builder code).
//
// With `weights`, each parameter initialised from data is written to weights->dir as NAME.npy
// (NAME: its .ks name) and printed as `data("REFERENCE/NAME.npy")`, so that a model with
// hundreds of MB of weights prints as a few hundred lines that parse back to the same key.
struct KsWeightFiles {
  std::filesystem::path dir;  // created if missing
  std::string reference;      // the same folder as the .ks file will name it ("" = next to it)
};
std::string printKsGraph(const Program& p, const KsWeightFiles* weights = nullptr);

// Shortest text that reads back as the same double: "0.05", "1e-05", "inf", "-inf", "nan".
std::string formatKsNumber(double v);

}  // namespace ks
