// ONNX model import: a model file (or bytes) to a Program built with the program builder.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "engine/core/host_tensor.h"
#include "engine/program/program.h"

namespace ks {

struct OnnxImportOptions {
  // Values of graph inputs (e.g. ONNX test data). They give inputs with symbolic dims their shape,
  // and inputs that feed shape operands (Reshape's shape, Slice's bounds, axes, pads...) are
  // bound as constants from them instead of becoming program inputs.
  std::map<std::string, HostTensor> inputData;
  // Data of another dtype than the input's is cast to it (as a run binds any program's inputs);
  // when false it is an error (test data must match the model).
  bool castInputData = false;
  // Nodes whose operands are all constants are evaluated at import time (with the host
  // executor) when their operands hold at most this many elements in total.
  int64_t foldLimit = int64_t{1} << 18;
  // Initializers with more elements than this become parameters (Data init); smaller ones constants.
  int64_t paramThreshold = 16;
};

struct OnnxImportResult {
  Program program;
  std::vector<std::string> constantInputs;  // graph inputs bound as constants from inputData
  int64_t opset = 0;
};

// Throws ks::Error: Io/Parse for unreadable or malformed files (never crashes), Unsupported for
// ops, dtypes and attributes the engine lacks, naming the node and its op type.
OnnxImportResult importOnnxModel(const std::string& path, const OnnxImportOptions& options = {});
OnnxImportResult importOnnxBytes(const std::string& bytes, const std::string& file, const OnnxImportOptions& options = {});
// The graph inputs that are not initializers, in order (what test data binds positionally).
std::vector<std::string> onnxModelInputs(const std::string& path);
// The distinct op types of a model's main graph, in first-use order (for per-op statistics).
std::vector<std::string> onnxModelOpTypes(const std::string& path);

}  // namespace ks
