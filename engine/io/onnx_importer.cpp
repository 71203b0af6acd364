// Fallbacks of the ONNX importer for builds without libonnx (KS_WITH_ONNX=OFF).
#include "engine/io/onnx_importer.h"

#include "engine/core/error.h"

namespace ks {
#ifndef KS_WITH_ONNX
OnnxImportResult importOnnxModel(const std::string& path, const OnnxImportOptions&) {
  throw Error(ErrorCode::Unsupported, "this build has no ONNX support (KS_WITH_ONNX=OFF)", {path});
}
OnnxImportResult importOnnxBytes(const std::string&, const std::string& file, const OnnxImportOptions&) {
  throw Error(ErrorCode::Unsupported, "this build has no ONNX support (KS_WITH_ONNX=OFF)", {file});
}
std::vector<std::string> onnxModelOpTypes(const std::string&) { return {}; }
std::vector<std::string> onnxModelInputs(const std::string&) { return {}; }
#endif
}  // namespace ks
