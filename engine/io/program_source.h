// One entry point for every way a program arrives: .ks text, .onnx model.
#pragma once
#include <string>

#include "engine/program/program.h"

namespace ks {

// Loads by extension (.ks, .onnx). Throws ks::Error naming the file and the place.
Program loadProgramFile(const std::string& path);

// Parses .ks text (io/ks_parser). `file` names the source in errors.
Program parseKs(const std::string& text, const std::string& file);
// Prints a program as .ks text that parses back to the same e-graph cache key (io/ks_printer).
std::string printKs(const Program& p);
// Imports an ONNX model (io/onnx_importer_onnx.cpp); without libonnx, throws Unsupported.
Program importOnnx(const std::string& path);

}  // namespace ks
