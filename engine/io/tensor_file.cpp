// Tensor file dispatch by extension; the ONNX .pb reader lives in onnx_proto_onnx.cpp.
#include "engine/io/tensor_file.h"

#include <filesystem>

#include "engine/core/error.h"
#include "engine/io/npy.h"

namespace ks {

HostTensor readTensorFile(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".npy") return readNpy(path);
  if (ext == ".pb") return readOnnxTensorFile(path);
  throw Error(ErrorCode::Usage, "unknown tensor file type '" + ext + "' (expected .npy or .pb)", {path});
}

#ifndef KS_WITH_ONNX
HostTensor readOnnxTensorFile(const std::string& path, std::string*) {
  throw Error(ErrorCode::Unsupported, "this build has no ONNX support (KS_WITH_ONNX=OFF): cannot read .pb tensors", {path});
}
#endif

}  // namespace ks
