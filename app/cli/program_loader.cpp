// Dispatch on file extension; the parsers live in engine/io.
#include "app/cli/program_loader.h"

#include "engine/io/program_source.h"

namespace ks::cli {

Program loadProgram(const std::string& path) { return ks::loadProgramFile(path); }

}  // namespace ks::cli
