// `check`: runs ONNX backend-test folders and reports every failure with its reason
// (DESIGN.md §4.2); the last line is the summary the CI greps.
#include <cstdio>
#include <cstdlib>

#include "app/cli/commands.h"
#include "engine/check/onnx_check.h"

namespace ks::cli {

int cmdCheck(int argc, char** argv) {
  Args args("check");
  OnnxCheckOptions opt;
  std::string devices;
  long minPass = -1;
  std::string tune = "none";
  bool summary = false, verbose = false;
  // One selection (a plan may mix devices, e.g. opencl:0:0,openblas); "host" alone is the oracle.
  args.app().add_option("--devices", devices, "one device selection (default: the host oracle)")->check(deviceList());
  args.app().add_option("--min-pass", minPass, "exit 1 when fewer models pass")->check(atLeast(0));
  args.app().add_option("--timeout", opt.timeoutSeconds, "seconds per model before it counts as failed")
      ->check(finiteAtLeast(0, true));
  args.app().add_option("--tune", tune, "autotune level of the compiling devices")
      ->check(CLI::IsMember({"none", "quick", "full"}));
  args.app().add_option("--cache", opt.cache, "tuning cache: PATH, or none (the default)");
  args.app().add_option("--rtol", opt.rtol, "relative tolerance (default 1e-3)")->check(finiteAtLeast(0));
  args.app().add_option("--atol", opt.atol, "absolute tolerance (default 1e-7)")->check(finiteAtLeast(0));
  std::string rewrite = "default";
  args.app()
      .add_option("--rewrite", rewrite, "rewrite rules of the compiling devices: none, default (the default) or aggressive")
      ->check(CLI::IsMember({"none", "default", "aggressive"}));
  args.app().add_flag("--summary", summary, "pass counts per op type");
  args.app().add_flag("--verbose", verbose, "a line for every model that passes too");
  args.positionals("DIR", "ONNX backend-test folders, or folders holding them");
  if (!args.parse(argc, argv)) return 0;
  if (args.positional().empty()) throw UsageError{"expects at least one DIR"};
  if (args.given("devices")) opt.devices = {devices};
  opt.tune = tune == "full" ? TuneLevel::Full : tune == "quick" ? TuneLevel::Quick : TuneLevel::None;
  opt.rewrite.mode = *parseRewriteMode(rewrite);
  for (const auto& dev : opt.devices) onnxRunnerFor(dev);  // unknown devices fail before any work
  const auto dirs = findOnnxTestDirs(args.positional());
  std::vector<OnnxCaseResult> results;
  int passed = 0, failed = 0, unsupported = 0;
  for (const auto& dir : dirs) {
    OnnxCaseResult r = checkOnnxCase(dir, opt);
    if (r.status == OnnxCaseResult::Status::Pass) {
      ++passed;
      if (verbose) std::printf("ok   %s (%.2f s)\n", r.name.c_str(), r.seconds);
    } else {
      ++failed;
      if (r.status == OnnxCaseResult::Status::Unsupported) ++unsupported;
      std::printf("FAIL %s: %s\n", r.name.c_str(), r.reason.c_str());
    }
    std::fflush(stdout);
    results.push_back(std::move(r));
  }
  if (summary) {
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
