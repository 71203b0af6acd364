// Raw-kernel benchmarks for the generic lowering on one OpenCL device (not a pass/fail test):
// an 8-op elementwise chain vs a plain copy, a 16M-element sum vs reading the bytes, and an
// N^3 f32 matmul (N = 1024 or --mm=N) searched over >= 16 schedules vs cblas_sgemm, all timed in
// the same run; the fastest matmul schedule's result is compared with cblas_sgemm's.
// Usage: bench_raw_kernels [opencl:P:D] [--quick] [-v] [--check] [--only=ew|sum|mm] [--mm=N]
// --check runs the lowering test cases under every enumerated and option schedule on the device
// against the kernel interpreter (for machines without Qt, where the QtTest suites do not build).
#include <CL/cl.h>
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/devices/opencl_device.h"
#include "engine/kernel/interpreter.h"
#include "engine/kernel/lowering.h"
#include "tests/engine/lowering_cases.h"

using namespace ks;

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median of `reps` device times (ms) after one warm-up launch.
double timeKernel(OpenCLDevice& dev, const OpenCLKernel& k, const std::vector<OpenCLBuffer>& bufs, int reps) {
  dev.run(k, bufs);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(static_cast<double>(dev.run(k, bufs)) * 1e-6);
  return median(t);
}

double timeRaw(OpenCLDevice& dev, const std::string& src, const std::string& name,
               const std::vector<const OpenCLBuffer*>& args, int64_t items, int reps) {
  auto prog = dev.buildProgram(src, "-cl-std=CL1.2");
  cl_int e = 0;
  cl_kernel k = clCreateKernel(static_cast<cl_program>(prog.get()), name.c_str(), &e);
  const int64_t g[3] = {items, 1, 1};
  dev.launch(k, args, g, nullptr);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(static_cast<double>(dev.launch(k, args, g, nullptr)) * 1e-6);
  clReleaseKernel(k);
  return median(t);
}

std::vector<OpenCLBuffer> buffersFor(OpenCLDevice& dev, const Kernel& k, uint64_t seed) {
  std::mt19937 rng(static_cast<uint32_t>(seed));
  std::vector<OpenCLBuffer> bufs;
  for (int32_t p : k.params()) {
    const int64_t n = numel(k.at(p).shape);
    std::vector<float> data(static_cast<std::size_t>(n));
    for (float& f : data) f = std::uniform_real_distribution<float>(-1, 1)(rng);
    bufs.push_back(dev.alloc(static_cast<std::size_t>(n) * 4));
    dev.write(bufs.back(), data.data(), data.size() * 4);
  }
  return bufs;
}

struct Best {
  double ms = 1e30;
  std::string sched;
  int tried = 0, failed = 0;
  int index = -1;  // of the fastest among the built kernels
  std::vector<OpenCLKernel> built;
  std::vector<OpenCLBuffer> bufs;
};

// Lowers every candidate, builds them as one program, times each; returns the best.
Best search(OpenCLDevice& dev, const Kernel& k, TuneLevel level, int reps, bool verbose) {
  std::vector<LoweredKernel> lowered;
  for (const Schedule& s : enumerateSchedules(k, dev.info().limits(), level)) lowered.push_back(lowerKernel(k, s, dev.info().limits()));
  const auto t0 = std::chrono::steady_clock::now();
  auto built = dev.build(lowered);
  const double buildS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto bufs = buffersFor(dev, k, 1);
  Best b;
  for (const OpenCLKernel& ck : built) {
    ++b.tried;
    try {
      const double ms = timeKernel(dev, ck, bufs, reps);
      if (verbose) std::printf("    %-40s %9.3f ms\n", ck.lowered.schedule.str().c_str(), ms);
      if (ms < b.ms) b.ms = ms, b.sched = ck.lowered.schedule.str(), b.index = b.tried - 1;
    } catch (const Error& e) {
      ++b.failed;
      if (verbose) std::printf("    %-40s failed: %s\n", ck.lowered.schedule.str().c_str(), e.what());
    }
  }
  std::printf("  searched %d schedules (%d failed), one build of %.2f s\n", b.tried, b.failed, buildS);
  b.built = std::move(built);
  b.bufs = std::move(bufs);
  return b;
}
// The lowering cases on `dev` under every schedule, against the unlowered interpreter. One program
// per case, its name printed first: a driver that fails on one case names it.
int checkCases(OpenCLDevice& dev) {
  using namespace ks::testing;
  int bad = 0, kernels = 0;
  const std::vector<KernelCase> cases = loweringCases();
  for (const KernelCase& c : cases) {
    if (!dev.info().fp64 && c.name.find("f64") != std::string::npos) continue;
    auto scheds = enumerateSchedules(c.kernel, dev.info().limits(), TuneLevel::Full);
    for (const Schedule& s : optionSchedules())
      if (checkSchedule(c.kernel, s, dev.info().limits()).empty() && std::find(scheds.begin(), scheds.end(), s) == scheds.end())
        scheds.push_back(s);
    std::vector<LoweredKernel> lowered;
    for (const Schedule& s : scheds) lowered.push_back(lowerKernel(c.kernel, s, dev.info().limits()));
    std::printf("  %-22s %3zu schedules\n", c.name.c_str(), lowered.size());
    auto built = dev.build(lowered);
    for (std::size_t i = 0; i < built.size(); ++i, ++kernels) {
      std::vector<HostTensor> want = randomBuffers(c.kernel, 5 + kernels), got = want;
      runKernel(c.kernel, want);
      dev.runOnHost(built[i], got);
      const std::string diff = compareBuffers(got, want, c.reduceLen);
      if (!diff.empty()) ++bad, std::printf("MISMATCH %s [%s]: %s\n", c.name.c_str(), lowered[i].schedule.str().c_str(), diff.c_str());
    }
  }
  std::printf("check: %d kernels (%zu cases x schedules), %d mismatches\n", kernels, cases.size(), bad);
  return bad ? 1 : 0;
}
}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string id = "opencl:0:0";
  bool quick = false, verbose = false, check = false;
  std::string only;  // "ew", "sum" or "mm": run one benchmark
  int64_t mmSize = 1024;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "-v")) verbose = true;
    else if (!std::strcmp(argv[i], "--check")) check = true;
    else if (!std::strncmp(argv[i], "--only=", 7)) only = argv[i] + 7;
    else if (!std::strncmp(argv[i], "--mm=", 5)) mmSize = std::atoll(argv[i] + 5);
    else id = argv[i];
  }
  try {
    auto dev = OpenCLDevice::open(id);
    std::printf("device %s: %s\n", id.c_str(), dev->info().fingerprint.c_str());
    std::printf("cl_khr_subgroups: %s\n", dev->info().extensions.find("cl_khr_subgroups") != std::string::npos ? "yes" : "no");
    if (check) return checkCases(*dev);
    const int reps = 5;
    const int64_t n = int64_t{1} << 24;

    // Baselines: plain copy (scalar and float4, the faster one counts).
    OpenCLBuffer a = dev->alloc(n * 4), b = dev->alloc(n * 4);
    {
      std::vector<float> init(n, 1.0f);
      dev->write(a, init.data(), n * 4);
    }
    const double copy1 = timeRaw(*dev, "__kernel void c(__global const float* a, __global float* b) { size_t i = get_global_id(0); b[i] = a[i]; }", "c", {&a, &b}, n, reps);
    const double copy4 = timeRaw(*dev, "__kernel void c(__global const float4* a, __global float4* b) { size_t i = get_global_id(0); b[i] = a[i]; }", "c", {&a, &b}, n / 4, reps);
    const double copy = std::min(copy1, copy4);
    std::printf("copy 16M f32: scalar %.3f ms, float4 %.3f ms -> %.1f GB/s\n", copy1, copy4, 2.0 * n * 4 / copy * 1e-6);

    // 8-op elementwise chain.
    if (only.empty() || only == "ew") {
      Kernel k;
      const int32_t x = k.param(ParamKind::Read, DType::F32, {n}), o = k.param(ParamKind::ReadWrite, DType::F32, {n});
      auto c = [&k](double v) { return k.constant(Scalar::of(DType::F32, v)); };
      int32_t v = k.binary(x, c(1.5), BinaryOp::Mul);
      v = k.binary(v, c(0.25), BinaryOp::Add);
      v = k.binary(v, c(-0.5), BinaryOp::Max);
      v = k.binary(v, v, BinaryOp::Mul);
      v = k.binary(v, c(0.125), BinaryOp::Sub);
      v = k.unary(v, UnaryOp::Abs);
      v = k.unary(v, UnaryOp::Sqrt);
      v = k.binary(v, c(3.0), BinaryOp::Min);
      k.store(o, v);
      std::printf("elementwise chain of 8 ops over 16M f32:\n");
      const Best best = search(*dev, k, quick ? TuneLevel::Quick : TuneLevel::Full, reps, verbose);
      std::printf("  best %.3f ms [%s] = %.2fx copy (target <= 1.5x)\n", best.ms, best.sched.c_str(), best.ms / copy);
    }
    // 16M sum.
    if (only.empty() || only == "sum") {
      Kernel k;
      const int32_t x = k.param(ParamKind::Read, DType::F32, {n}), o = k.param(ParamKind::ReadWrite, DType::F32, {});
      k.store(o, k.reduce(x, ReduceOp::Sum));
      std::printf("sum of 16M f32:\n");
      const Best best = search(*dev, k, quick ? TuneLevel::Quick : TuneLevel::Full, reps, verbose);
      const double read = copy / 2;  // reading the bytes at the measured copy bandwidth
      std::printf("  best %.3f ms [%s] = %.2fx reading the bytes (%.3f ms at copy bandwidth; target <= 1.5x)\n", best.ms,
                  best.sched.c_str(), best.ms / read, read);
    }
    // N^3 matmul vs OpenBLAS, the fastest schedule's result checked against cblas_sgemm's.
    if (only.empty() || only == "mm") {
      const int64_t M = mmSize, N = mmSize, K = mmSize;
      Kernel k;
      const int32_t A = k.param(ParamKind::Read, DType::F32, {M, K}), B = k.param(ParamKind::Read, DType::F32, {K, N});
      const int32_t C = k.param(ParamKind::ReadWrite, DType::F32, {M, N});
      const int32_t ae = k.move(k.move(A, MoveKind::Reshape, {M, 1, K}), MoveKind::Expand, {M, N, K});
      const int32_t be = k.move(k.move(k.move(B, MoveKind::Permute, {1, 0}), MoveKind::Reshape, {1, N, K}), MoveKind::Expand, {M, N, K});
      k.store(C, k.reduce(k.binary(ae, be, BinaryOp::Mul), ReduceOp::Sum));
      const double flop = 2.0 * static_cast<double>(M * N * K);
      Best best = search(*dev, k, TuneLevel::Full, 3, verbose);
      std::vector<float> ha(M * K), hb(K * N), hc(M * N), got(M * N);
      dev->read(best.bufs[0], ha.data(), ha.size() * 4);
      dev->read(best.bufs[1], hb.data(), hb.size() * 4);
      std::vector<double> bt;
      for (int i = 0; i < 4; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, ha.data(), K, hb.data(), N, 0.0f, hc.data(), N);
        bt.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      bt.erase(bt.begin());
      const double blas = median(bt);
      // Two f32 sums of the same K products differ by at most 2 K u sum_k |a_ik| |b_kj| (u = 2^-24,
      // the forward error bound of each order of summation): |A| |B| gives each element's bound.
      std::vector<float> aa(ha.size()), ab(hb.size()), bound(hc.size());
      for (std::size_t i = 0; i < ha.size(); ++i) aa[i] = std::fabs(ha[i]);
      for (std::size_t i = 0; i < hb.size(); ++i) ab[i] = std::fabs(hb[i]);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, aa.data(), K, ab.data(), N, 0.0f, bound.data(), N);
      const double tol = 2.0 * static_cast<double>(K) * std::ldexp(1.0, -24) * 1.01;
      std::printf("matmul %lld^3 f32: cblas_sgemm %.2f ms = %.1f GFLOP/s\n", static_cast<long long>(M), blas, flop / blas * 1e-6);
      // Every schedule's result against cblas_sgemm's, element by element within that bound;
      // the error printed is the largest |difference| / (1 + |c|).
      double worst = 0;
      int bad = 0;
      for (std::size_t c = 0; c < best.built.size(); ++c) {
        std::fill(got.begin(), got.end(), 0.0f);
        dev->write(best.bufs[2], got.data(), got.size() * 4);
        dev->run(best.built[c], best.bufs);
        dev->read(best.bufs[2], got.data(), got.size() * 4);
        double err = 0;
        bool within = true;
        for (std::size_t i = 0; i < got.size(); ++i) {
          const double d = std::fabs(static_cast<double>(got[i]) - hc[i]);
          err = std::max(err, d / (1.0 + std::fabs(hc[i])));
          within = within && d <= tol * bound[i] + 1e-30;
        }
        if (!within) ++bad, std::printf("MISMATCH [%s]: max rel error %.2e\n", best.built[c].lowered.schedule.str().c_str(), err);
        if (static_cast<int>(c) == best.index) worst = err;
      }
      const bool ok = best.index >= 0 && bad == 0;
      std::printf("  %zu schedules vs cblas_sgemm: %d mismatches\n", best.built.size(), bad);
      std::printf("  best %.3f ms [%s] = %.1f GFLOP/s = %.0f%% of OpenBLAS; vs cblas_sgemm: max rel error %.2e %s\n",
                  best.ms, best.sched.c_str(), flop / best.ms * 1e-6, 100.0 * blas / best.ms, worst, ok ? "ok" : "MISMATCH");
      if (!ok) return 1;
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_raw_kernels: %s\n", e.what());
    return 1;
  }
  return 0;
}
