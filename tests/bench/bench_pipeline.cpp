// Whole-pipeline benchmarks (not a pass/fail test), each with its baseline timed in the same run:
//  1. a 1024^3 f32 matmul program run through a plan with `openblas` vs calling cblas_sgemm directly;
//  2. compile time of samples/transformer.ks at --tune quick: cold (empty tuning cache and empty
//     POCL_CACHE_DIR) vs warm (both caches filled), and the ratio;
//  3. the sample models end to end (median of runs) on the chosen devices.
// Usage: bench_pipeline [--devices L] [--repeat N] [--skip-compile]
#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/io/program_source.h"
#include "engine/program/builder.h"
#include "engine/session/session.h"

using namespace ks;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
std::string source(const std::string& rel) {
  const char* root = std::getenv("KS_SOURCE_DIR");
  return (fs::path(root ? root : KS_SOURCE_DIR) / rel).string();
}
}  // namespace

int main(int argc, char** argv) {
  std::string devices = "opencl:0:0,openblas";
  int repeat = 10;
  bool skipCompile = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--devices" && i + 1 < argc) devices = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--skip-compile") skipCompile = true;
  }
  // PoCL reads its cache directory once, when the ICD loads it: set it before any OpenCL call.
  const fs::path tmp = fs::temp_directory_path() / ("ks_bench_" + std::to_string(::getpid()));
  fs::create_directories(tmp / "pocl");
  setenv("POCL_CACHE_DIR", (tmp / "pocl").c_str(), 1);
  try {
    // 1. matmul through the plan vs cblas directly.
    {
      ProgramBuilder b("matmul1024");
      Value x = b.input("a", DType::F32, {1024, 1024}), w = b.input("b", DType::F32, {1024, 1024});
      b.output("y", op::matmul(x, w));
      SessionOptions o;
      o.devices = devices;
      o.tune = TuneLevel::None;
      o.cache = "none";
      Session s(b.finish(), o);
      std::vector<double> plan;
      for (int r = 0; r < repeat; ++r) plan.push_back(s.run({}, r == 0).totalNs / 1e6);
      const bool ok = s.runs().front().verifyPassed;
      std::vector<float> A(1024 * 1024, 0.5f), B(1024 * 1024, 0.25f), C(1024 * 1024);
      std::vector<double> direct;
      for (int r = 0; r < repeat + 1; ++r) {
        const auto t0 = Clock::now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1024, 1024, 1024, 1.0f, A.data(), 1024, B.data(), 1024,
                    0.0f, C.data(), 1024);
        if (r) direct.push_back(msSince(t0));
      }
      const double p = median(plan), d = median(direct);
      std::printf("matmul 1024^3 f32: plan on [%s] %.3f ms (%s), cblas_sgemm direct %.3f ms (%.1f GFLOP/s) -> ratio %.3f\n",
                  devices.c_str(), p, ok ? "verified" : "MISMATCH", d, 2.0 * 1024 * 1024 * 1024 / d / 1e6, p / d);
      std::string plan0;
      for (auto& st : s.trace().plan.steps) plan0 += " [" + st.label + "]";
      std::printf("  plan:%s\n", plan0.c_str());
    }
    // 2. compile time, cold vs warm.
    if (!skipCompile) {
      const std::string cache = (tmp / "tuning.sqlite").string();
      SessionOptions o;
      o.devices = devices;
      o.tune = TuneLevel::Quick;
      o.cache = cache;
      auto t0 = Clock::now();
      double cold, warm;
      int coldMeasured = 0, warmMeasured = 0;
      {
        Session s(loadProgramFile(source("samples/transformer.ks")), o);
        s.runTo(Stage::Planned);
        cold = msSince(t0);
        for (auto& m : s.trace().measurements) coldMeasured += !m.cached;
      }
      t0 = Clock::now();
      std::string breakdown;
      {
        Session s(loadProgramFile(source("samples/transformer.ks")), o);
        char part[64];
        std::snprintf(part, sizeof part, "open %.0f ms", msSince(t0));
        breakdown = part;
        s.runTo(Stage::Planned);
        warm = msSince(t0);
        for (auto& m : s.trace().measurements) warmMeasured += !m.cached;
        for (auto& st : s.trace().stageTimes) {
          std::snprintf(part, sizeof part, ", %s %.0f ms", stageName(st.stage), st.ms);
          breakdown += part;
        }
      }
      std::printf("compile transformer.ks --tune quick on [%s]: cold %.0f ms (%d schedules measured), warm %.0f ms "
                  "(%d measured) -> warm is %.1fx faster\n",
                  devices.c_str(), cold, coldMeasured, warm, warmMeasured, cold / warm);
      std::printf("  warm: %s\n", breakdown.c_str());
    }
    // 3. the sample models.
    for (const char* f : {"samples/mlp.ks", "samples/lenet.ks", "samples/transformer.ks", "samples/softmax.ks",
                          "samples/layer_norm.ks"}) {
      SessionOptions o;
      o.devices = devices;
      o.tune = TuneLevel::Quick;
      o.cache = (tmp / "tuning.sqlite").string();
      Session s(loadProgramFile(source(f)), o);
      std::vector<double> t;
      for (int r = 0; r < repeat; ++r) t.push_back(s.run({}, r == 0).totalNs / 1e6);
      std::printf("%-24s median %.3f ms over %d runs on [%s], %zu launches, verified: %s\n", f, median(t), repeat,
                  devices.c_str(), s.trace().plan.steps.size(), s.runs().front().verifyPassed ? "ok" : "MISMATCH");
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    fs::remove_all(tmp);
    return 1;
  }
  fs::remove_all(tmp);
  return 0;
}
