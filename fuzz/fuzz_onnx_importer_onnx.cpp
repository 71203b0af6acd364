// libFuzzer target for the ONNX importer: any bytes must import or give ks::Error (never crash,
// hang or throw anything else); a model that imports must also run on the host oracle or give
// ks::Error (shapes and dtypes the importer accepted must be executable).
#include <cstdint>
#include <string>

#include "engine/core/error.h"
#include "engine/eval/host_executor.h"
#include "engine/io/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 18)) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  ks::OnnxImportOptions options;
  options.foldLimit = 1 << 12;  // keep import-time folding cheap under the fuzzer
  try {
    ks::OnnxImportResult r = ks::importOnnxBytes(bytes, "fuzz.onnx", options);
    // Every value the host computes counts (a large padding makes big intermediates from small
    // inputs and outputs: 13 s per run under the sanitizers).
    int64_t elements = 0;
    const ks::Graph& g = r.program.graph;
    for (std::size_t c = 0; c < g.classCount(); ++c) elements += ks::numel(g.shape(ks::ClassId(static_cast<uint32_t>(c))));
    if (elements > (1 << 18)) return 0;  // valid but too big to run quickly
    const auto leaves = ks::bindLeaves(r.program, {}, 0);
    ks::HostExecutor::run(r.program.graph, r.program.outputClasses(), leaves);
  } catch (const ks::Error&) {
  }
  return 0;
}
