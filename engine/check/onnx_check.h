// The ONNX backend-test checker behind `kernelscope-cli check`: finds test folders, imports each
// model with its test data, runs it on a device under a deadline, compares with the expected
// outputs the way ONNX's runner does, and classifies every failure.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/core/host_tensor.h"
#include "engine/kernel/schedule.h"
#include "engine/program/program.h"
#include "engine/rewrite/rule_set.h"

namespace ks {

// Runs a program on one device selection and returns its outputs in order, given its named
// inputs and every leaf bound (bindLeaves). The check calls this and nothing else, so a new
// device only needs a runner.
using OnnxRunner = std::function<std::vector<HostTensor>(
    const Program&, const std::vector<std::pair<std::string, HostTensor>>& inputs, const std::vector<HostTensor>& leaves)>;
// The runner of a device spec: "host" = the reference executor on the model as imported; anything
// else is a --devices list compiled and run through a Session (its e-graph saturated with
// `rewrite`'s rules, tuned at `tune`, with the tuning cache `cache`: a path, "" for the default
// file, "none" for none). Throws Usage for unknown devices.
OnnxRunner onnxRunnerFor(const std::string& device, TuneLevel tune = TuneLevel::None, const std::string& cache = "none",
                         const RuleSelection& rewrite = {RewriteMode::Default, {}, {}});

struct OnnxCheckOptions {
  std::vector<std::string> devices = {"host"};
  double rtol = 1e-3, atol = 1e-7;
  double timeoutSeconds = 60.0;
  TuneLevel tune = TuneLevel::None;  // devices other than host compile at this level
  std::string cache = "none";        // their tuning cache
  RuleSelection rewrite{RewriteMode::Default, {}, {}};  // their rewrite rules
};

struct OnnxCaseResult {
  enum class Status { Pass, Fail, Unsupported };
  std::string dir;   // the test folder
  std::string name;  // its base name (test_add_bcast)
  Status status = Status::Fail;
  std::string reason;  // why it failed (empty when passed)
  std::vector<std::string> opTypes;
  double seconds = 0.0;
};

// Test folders (holding model.onnx) under each root; a root that is itself one is returned as is.
// Sorted by path. Throws Io for a root that does not exist.
std::vector<std::string> findOnnxTestDirs(const std::vector<std::string>& roots);

// Checks one folder: every test_data_set_* on every device must match. Never throws: errors
// become the result's reason. A run over the deadline is a failure (its worker is abandoned).
OnnxCaseResult checkOnnxCase(const std::string& dir, const OnnxCheckOptions& options);

// "" when got matches expected (dtype, shape, values within atol + rtol*|expected|, NaN == NaN),
// otherwise the first difference in words.
std::string compareOnnxOutput(const HostTensor& got, const HostTensor& expected, double rtol, double atol);

// Pass counts by op type over a set of results: op -> {passed, total}.
std::map<std::string, std::pair<int, int>> onnxPassByOp(const std::vector<OnnxCaseResult>& results);

}  // namespace ks
