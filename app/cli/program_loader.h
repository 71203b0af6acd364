// Loads a program from a path by its extension (.ks text, .onnx model) or a sample name.
#pragma once
#include <string>

#include "engine/program/program.h"

namespace ks::cli {

// Throws ks::Error naming the file and place on bad input.
Program loadProgram(const std::string& path);

}  // namespace ks::cli
