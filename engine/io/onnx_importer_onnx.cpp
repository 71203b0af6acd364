// Placeholder until the ONNX importer lands.
#include "engine/core/error.h"
#include "engine/io/program_source.h"

namespace ks {
Program importOnnx(const std::string& path) {
  throw Error(ErrorCode::Unsupported, "the ONNX importer is not built yet", {path});
}
}  // namespace ks
