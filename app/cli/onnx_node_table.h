// `print --onnx-nodes`: the table of the ONNX nodes a program was imported from, as text columns
// or as JSON.
#pragma once
#include <string>

#include "engine/program/program.h"

namespace ks::cli {

// One line per node: name, op type, inputs, outputs, result types, the classes it made (%N, as
// the e-graph dump numbers them), under a header line.
std::string onnxNodeTableText(const Program& p);
// A JSON array of {name, op_type, inputs, outputs, shapes, classes} (shapes: {dtype, shape} per output).
std::string onnxNodeTableJson(const Program& p);

}  // namespace ks::cli
