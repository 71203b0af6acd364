// Whole-pipeline benchmarks (not a pass/fail test), each with its baseline timed in the same run:
//  1. a 1024^3 f32 matmul program run through a plan with `openblas` vs calling cblas_sgemm directly;
//  2. compile time of samples/transformer.ks at --tune quick: cold (empty tuning cache and empty
//     POCL_CACHE_DIR) vs warm (both caches filled), and the ratio;
//  3. the sample models end to end (median of runs) on the chosen devices;
//  0. (first) the 16M-element 8-op chain's steady state with zero-copy on and off against a
//     memcpy of its bytes (64 MiB into warm memory, and into a fresh allocation).
// Usage: bench_pipeline [--devices L] [--repeat N] [--skip-compile] [--only-chain]
#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/core/host_allocator.h"
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

// Steady-state wall (ms) of a program: one verified cold run, then 3 warm-ups and `repeat` runs.
double steadyMs(const std::string& file, const std::string& devices, bool zeroCopy, int repeat, bool& ok, std::string& plan) {
  SessionOptions o;
  o.devices = devices;
  o.tune = TuneLevel::Quick;
  o.cache = "none";
  o.zeroCopy = zeroCopy;
  Session s(loadProgramFile(file), o);
  ok = s.run({}, true).verifyPassed;
  plan.clear();
  for (auto& st : s.trace().plan.steps) plan += " [" + st.label + "]";
  return s.repeatRuns(3, repeat, 30.0).totalNs / 1e6;
}

// The chain against a memcpy of the input's bytes, all timed in this run.
void chainVsMemcpy(const std::string& devices, int repeat) {
  const std::size_t n = std::size_t{64} << 20;
  std::vector<char, HostAllocator<char>> src(n, 1), dst(n, 2);
  void* (*volatile copy)(void*, const void*, std::size_t) = std::memcpy;  // not folded away
  std::vector<double> warm, fresh;
  for (int r = 0; r < repeat + 1; ++r) {
    auto t0 = Clock::now();
    copy(dst.data(), src.data(), n);
    if (r) warm.push_back(msSince(t0));
    t0 = Clock::now();
    std::vector<char> f(n);  // value-initialised: the pages are touched as a returned tensor's would be
    copy(f.data(), src.data(), n);
    if (r) fresh.push_back(msSince(t0));
  }
  const double mw = median(warm), mf = median(fresh);
  bool okOn = false, okOff = false;
  std::string planOn, planOff;
  const std::string file = source("tests/bench/gpu/chain16m.ks");
  const double on = steadyMs(file, devices, true, repeat, okOn, planOn);
  const double off = steadyMs(file, devices, false, repeat, okOff, planOff);
  std::printf("chain16m (8 ops over 16M f32) steady state on [%s]: zero-copy %.3f ms (%s), copies %.3f ms (%s); "
              "memcpy of 64 MiB: warm %.3f ms, fresh %.3f ms -> zero-copy %.2fx a warm memcpy (copies %.2fx)\n",
              devices.c_str(), on, okOn ? "verified" : "MISMATCH", off, okOff ? "verified" : "MISMATCH", mw, mf, on / mw,
              off / mw);
  std::printf("  plan zero-copy:%s\n  plan copies:%s\n", planOn.c_str(), planOff.c_str());
}
}  // namespace

int main(int argc, char** argv) {
  std::string devices = "opencl:0:0,openblas";
  int repeat = 10;
  bool skipCompile = false, onlyChain = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--devices" && i + 1 < argc) devices = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--skip-compile") skipCompile = true;
    else if (a == "--only-chain") onlyChain = true;
  }
  // PoCL reads its cache directory once, when the ICD loads it: set it before any OpenCL call.
  const fs::path tmp = fs::temp_directory_path() / ("ks_bench_" + std::to_string(::getpid()));
  fs::create_directories(tmp / "pocl");
  setenv("POCL_CACHE_DIR", (tmp / "pocl").c_str(), 1);
  try {
    chainVsMemcpy(devices, repeat < 20 ? 20 : repeat);
    // 1. matmul through the plan vs cblas directly.
    if (!onlyChain) {
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
    if (!skipCompile && !onlyChain) {
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
    std::vector<const char*> samples = {"samples/mlp.ks", "samples/lenet.ks", "samples/transformer.ks",
                                        "samples/softmax.ks", "samples/layer_norm.ks"};
    if (onlyChain) samples.clear();
    for (const char* f : samples) {
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
