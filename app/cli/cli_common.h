// Helpers shared by the CLI commands: session options from flags, printing of tables and values.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "app/cli/args.h"
#include "engine/session/session.h"

namespace ks::cli {

// --devices, --tune, --cache, --seed, --budget-count, --budget-seconds.
SessionOptions sessionOptions(const Args& args);
// --input NAME=FILE (.npy or ONNX TensorProto .pb), repeatable.
std::vector<std::pair<std::string, HostTensor>> inputsFrom(const Args& args);
// "1.5, -2, 3, ... (1024 values)"
std::string previewValues(const HostTensor& t, int count = 8);
std::string formatNs(double ns);  // "1.23 ms"
// The per-step timing table of a run, with achieved GFLOP/s and GB/s.
std::string timingTable(const RunRecord& r);

}  // namespace ks::cli
