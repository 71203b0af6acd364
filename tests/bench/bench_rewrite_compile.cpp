// Compile-time cost of the rewrite stage (not a pass/fail test): samples/transformer.ks (or FILE)
// compiled to its plan at --tune quick twice in one process, cold (empty tuning cache, empty
// POCL_CACHE_DIR, empty saturation cache) then warm (all three filled), under one --rewrite mode.
// Run it once per mode (tests/bench/rewrite_compile.sh does both) so that neither mode's PoCL
// builds warm the other's. Prints the compile time, stage times, kernels, schedules measured and
// the rewrite stage's own time and candidates.
// Usage: bench_rewrite_compile [--rewrite none|default|aggressive] [--devices L] [--candidates N] [FILE]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/io/program_source.h"
#include "engine/session/session.h"

using namespace ks;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
void compileOnce(const std::string& file, const SessionOptions& o, const char* what) {
  const auto t0 = Clock::now();
  Session s(loadProgramFile(file), o);
  s.runTo(Stage::Planned);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  int measured = 0;
  for (auto& m : s.trace().measurements) measured += !m.cached;
  std::string stages;
  char part[96];
  for (auto& st : s.trace().stageTimes) {
    std::snprintf(part, sizeof part, "%s%s %.0f", stages.empty() ? "" : ", ", stageName(st.stage), st.ms);
    stages += part;
  }
  const RewriteTrace& r = s.trace().rewrite;
  std::printf("%s --rewrite %s: %.0f ms (stages ms: %s); %zu kernels, %d schedules measured; plan predicted %.3f ms",
              what, rewriteModeName(o.rewrite.mode), ms, stages.c_str(), s.trace().kernels.size(), measured,
              s.trace().extraction.totalNs / 1e6);
  if (r.ran)
    std::printf("; saturation %.1f ms%s (%s), %zu candidate terms", r.report.ms, r.cached ? " cached" : "",
                rewriteStopName(r.report.stop), r.candidates.size());
  std::printf("\n");
}
}  // namespace

int main(int argc, char** argv) {
  std::string mode = "default", devices = "opencl:0:0,openblas", file;
  int candidates = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rewrite" && i + 1 < argc) mode = argv[++i];
    else if (a == "--devices" && i + 1 < argc) devices = argv[++i];
    else if (a == "--candidates" && i + 1 < argc) candidates = std::atoi(argv[++i]);
    else file = a;
  }
  if (file.empty()) file = (fs::path(KS_SOURCE_DIR) / "samples/transformer.ks").string();
  // PoCL reads its cache directory once, when the ICD loads it: set it before any OpenCL call.
  const fs::path tmp = fs::temp_directory_path() / ("ks_rwbench_" + std::to_string(::getpid()));
  fs::create_directories(tmp / "pocl");
  setenv("POCL_CACHE_DIR", (tmp / "pocl").c_str(), 1);
  try {
    SessionOptions o;
    o.devices = devices;
    o.tune = TuneLevel::Quick;
    o.cache = (tmp / "tuning.sqlite").string();
    o.rewrite.mode = parseRewriteMode(mode).value_or(RewriteMode::Default);
    o.termCandidates = candidates;
    compileOnce(file, o, "cold");
    compileOnce(file, o, "warm");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_rewrite_compile: %s\n", e.what());
    fs::remove_all(tmp);
    return 1;
  }
  fs::remove_all(tmp);
  return 0;
}
