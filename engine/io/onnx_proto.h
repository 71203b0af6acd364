// Internal to the *_onnx.cpp files: conversions from ONNX protobuf messages to engine types.
// Includes the libonnx headers, so only files compiled with KS_WITH_ONNX may include it.
#pragma once
#include <onnx/onnx_pb.h>

#include "engine/core/error.h"
#include "engine/core/host_tensor.h"
#include "engine/io/onnx_node.h"

namespace ks {

// A TensorProto's values (raw_data or the typed fields). Unsupported dtypes, external data and
// sizes that disagree with the dims are ks::Error naming `what` at `where`.
HostTensor tensorFromProto(const onnx::TensorProto& t, const std::string& what, const SourceLoc& where);
// A NodeProto in engine terms. `index` names unnamed nodes.
OnnxNode nodeFromProto(const onnx::NodeProto& n, int64_t opset, std::size_t index, const SourceLoc& where);

}  // namespace ks
