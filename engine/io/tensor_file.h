// Tensor files: ONNX TensorProto (.pb, as in ONNX test data) and NumPy (.npy).
#pragma once
#include <string>

#include "engine/core/host_tensor.h"

namespace ks {

// Reads a tensor by extension (.pb or .npy). Errors (unreadable, malformed, unsupported dtype)
// are ks::Error naming the file. .pb needs a build with KS_WITH_ONNX.
HostTensor readTensorFile(const std::string& path);
// Reads a serialized onnx.TensorProto; `name` (if given) receives the tensor's name field.
HostTensor readOnnxTensorFile(const std::string& path, std::string* name = nullptr);

}  // namespace ks
