// Extension dispatch for program files.
#include "engine/io/program_source.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"

namespace ks {

Program loadProgramFile(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".onnx") return importOnnx(path);
  if (ext != ".ks")
    throw Error(ErrorCode::Usage, "unknown program type '" + ext + "' (expected .ks or .onnx)", {path});
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::Io, "cannot open file", {path});
  std::ostringstream ss;
  ss << in.rdbuf();
  Program p = parseKs(ss.str(), path);
  p.name = std::filesystem::path(path).stem().string();
  return p;
}

#ifndef KS_WITH_ONNX
Program importOnnx(const std::string& path) {
  throw Error(ErrorCode::Unsupported, "this build has no ONNX support (KS_WITH_ONNX=OFF)", {path});
}
#endif

}  // namespace ks
