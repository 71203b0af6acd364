// Extension dispatch for program files.
#include "engine/io/program_source.h"

#include <algorithm>
#include <filesystem>

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/io/onnx_importer.h"

namespace ks {

Program loadProgramFile(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".onnx") return importOnnx(path);
  if (ext != ".ks")
    throw Error(ErrorCode::Usage, "unknown program type '" + ext + "' (expected .ks or .onnx)", {path});
  Program p = parseKs(readFile(path, "a .ks program"), path);
  p.name = std::filesystem::path(path).stem().string();
  return p;
}

LoadedProgram loadProgramFile(const std::string& path, InputValues inputs) {
  if (std::filesystem::path(path).extension() != ".onnx") return {loadProgramFile(path), std::move(inputs)};
#ifdef KS_WITH_ONNX
  OnnxImportOptions o;
  o.castInputData = true;
  for (const auto& [name, t] : inputs) o.inputData[name] = t;  // the last of a repeated name wins, as in binding
  OnnxImportResult r = importOnnxModel(path, o);
  std::erase_if(inputs, [&](const auto& in) {
    return std::find(r.constantInputs.begin(), r.constantInputs.end(), in.first) != r.constantInputs.end();
  });
  return {std::move(r.program), std::move(inputs)};
#else
  return {importOnnx(path), std::move(inputs)};
#endif
}

#ifndef KS_WITH_ONNX
Program importOnnx(const std::string& path) {
  throw Error(ErrorCode::Unsupported, "this build has no ONNX support (KS_WITH_ONNX=OFF)", {path});
}
#endif

}  // namespace ks
