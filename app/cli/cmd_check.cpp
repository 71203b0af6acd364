// `check`: runs ONNX backend-test folders and reports every failure with its reason
// (DESIGN.md §4.2); the last line is the summary the CI greps.
#include <cstdio>
#include <cstdlib>

#include "app/cli/commands.h"
#include "engine/io/onnx_check.h"

namespace ks::cli {

int cmdCheck(int argc, char** argv) {
  Args args(argc, argv, {"summary", "verbose"});
  args.allowOnly({"devices", "min-pass", "summary", "verbose", "timeout"});
  if (args.positional().empty()) throw UsageError{"expects at least one DIR"};
  OnnxCheckOptions opt;
  if (auto d = args.get("devices")) {
    // One selection (a plan may mix devices, e.g. opencl:0:0,openblas); "host" alone is the oracle.
    if (d->empty()) throw UsageError{"--devices needs at least one device"};
    opt.devices = {*d};
  }
  for (const auto& dev : opt.devices) onnxRunnerFor(dev);  // unknown devices fail before any work
  long minPass = -1;
  if (auto p = args.get("min-pass")) {
    char* end = nullptr;
    minPass = std::strtol(p->c_str(), &end, 10);
    if (!end || *end || minPass < 0) throw UsageError{"--min-pass needs a non-negative integer"};
  }
  if (auto t = args.get("timeout")) {
    opt.timeoutSeconds = std::atof(t->c_str());
    if (opt.timeoutSeconds <= 0) throw UsageError{"--timeout needs a positive number of seconds"};
  }
  const auto dirs = findOnnxTestDirs(args.positional());
  std::vector<OnnxCaseResult> results;
  int passed = 0, failed = 0, unsupported = 0;
  for (const auto& dir : dirs) {
    OnnxCaseResult r = checkOnnxCase(dir, opt);
    if (r.status == OnnxCaseResult::Status::Pass) {
      ++passed;
      if (args.has("verbose")) std::printf("ok   %s (%.2f s)\n", r.name.c_str(), r.seconds);
    } else {
      ++failed;
      if (r.status == OnnxCaseResult::Status::Unsupported) ++unsupported;
      std::printf("FAIL %s: %s\n", r.name.c_str(), r.reason.c_str());
    }
    std::fflush(stdout);
    results.push_back(std::move(r));
  }
  if (args.has("summary")) {
    std::printf("pass count per op type (a model counts for every op it uses):\n");
    for (const auto& [op, pt] : onnxPassByOp(results)) std::printf("  %-28s %4d / %d\n", op.c_str(), pt.first, pt.second);
  }
  std::printf("onnx check: %d passed, %d failed (%d unsupported)\n", passed, failed, unsupported);
  std::fflush(stdout);
  const int rc = (minPass >= 0 && passed < minPass) ? 1 : 0;
  // Workers abandoned at their deadline may still run: end without waiting for them.
  std::quick_exit(rc);
}

}  // namespace ks::cli
