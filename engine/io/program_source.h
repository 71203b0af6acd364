// One entry point for every way a program arrives: .ks text, .onnx model.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "engine/program/program.h"

namespace ks {

// Loads by extension (.ks, .onnx). Throws ks::Error naming the file and the place.
Program loadProgramFile(const std::string& path);

// Data for a program's inputs by name, as a run binds them.
using InputValues = std::vector<std::pair<std::string, HostTensor>>;
struct LoadedProgram {
  Program program;
  InputValues inputs;  // the given data that the program still binds when it runs
};
// Loads by extension with the data of some inputs known before the program is built. An ONNX
// model gets it as the importer's inputData: an input with a symbolic dim (a dynamic batch) takes
// the data's shape, and an input that feeds a shape operand becomes a constant and leaves
// `inputs`. Data of another dtype is cast, as when it is bound. A .ks program keeps all inputs.
LoadedProgram loadProgramFile(const std::string& path, InputValues inputs);

// Parses .ks text (io/ks_parser). `file` names the source in errors.
Program parseKs(const std::string& text, const std::string& file);
// Prints a program as .ks text that parses back to the same e-graph cache key (io/ks_printer).
std::string printKs(const Program& p);
// Imports an ONNX model (io/onnx_importer_onnx.cpp); without libonnx, throws Unsupported.
Program importOnnx(const std::string& path);

}  // namespace ks
