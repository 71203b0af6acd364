// Peak probes per device kind, remembered per process (a comparison builds several sessions on
// the same devices; measuring again each time would cost seconds and give noisier yardsticks).
#include "engine/devices/device_peaks.h"

#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "engine/core/error.h"
#include "engine/devices/opencl_device.h"
#include "engine/devices/openblas_gemm.h"

namespace ks {

namespace {
using Clock = std::chrono::steady_clock;

double nsSince(Clock::time_point t0) { return std::chrono::duration<double, std::nano>(Clock::now() - t0).count(); }

double hostCopyGBs() {
  const std::size_t n = 64u << 20;
  std::vector<char> a(n, 1), b(n, 2);
  std::memcpy(b.data(), a.data(), n);  // first touch outside the timing
  double best = 1e300;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = Clock::now();
    std::memcpy(b.data(), a.data(), n);
    best = std::min(best, nsSince(t0));
  }
  volatile char sink = b[n / 2];
  (void)sink;
  return 2.0 * n / std::max(best, 1.0);  // bytes per ns == GB/s
}

double hostFmaGflops() {
  // 16 independent chains so neither latency nor a missed vectorization hides the throughput
  // a single core gives plain loops.
  volatile float scale = 0.999f, add = 0.001f;
  const float s = scale, t = add;
  float acc[16];
  for (int j = 0; j < 16; ++j) acc[j] = 1.0f + j * 0.01f;
  const int iters = 1 << 20;
  double best = 1e300;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i)
      for (int j = 0; j < 16; ++j) acc[j] = acc[j] * s + t;
    best = std::min(best, nsSince(t0));
  }
  float sum = 0;
  for (float v : acc) sum += v;
  volatile float sink = sum;
  (void)sink;
  return 2.0 * 16 * iters / std::max(best, 1.0);
}

const char* kProbeSource = R"CL(
__kernel void ks_peak_copy(__global const float4* a, __global float4* b) {
  const size_t i = get_global_id(0);
  b[i] = a[i];
}
__kernel void ks_peak_fma(__global const float* s, __global float* out) {
  const size_t i = get_global_id(0);
  const float16 m = (float16)(s[0]), c = (float16)(s[1]);
  const float16 b = (float16)(i * 1e-7f);
  float16 x0 = b, x1 = b + 1, x2 = b + 2, x3 = b + 3, x4 = b + 4, x5 = b + 5, x6 = b + 6, x7 = b + 7;
  for (int k = 0; k < 16; ++k) {
    x0 = mad(x0, m, c); x1 = mad(x1, m, c); x2 = mad(x2, m, c); x3 = mad(x3, m, c);
    x4 = mad(x4, m, c); x5 = mad(x5, m, c); x6 = mad(x6, m, c); x7 = mad(x7, m, c);
  }
  const float16 r = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
  out[i] = r.s0 + r.s1 + r.s2 + r.s3 + r.s4 + r.s5 + r.s6 + r.s7 + r.s8 + r.s9 + r.sa + r.sb + r.sc + r.sd + r.se + r.sf;
}
)CL";

std::shared_ptr<void> kernelOf(const std::shared_ptr<void>& program, const char* name, const std::string& id) {
  cl_int e = CL_SUCCESS;
  cl_kernel k = clCreateKernel(static_cast<cl_program>(program.get()), name, &e);
  if (e != CL_SUCCESS || !k)
    throw Error(ErrorCode::Build, id + ": peak probe: clCreateKernel " + name + " failed (" + std::to_string(e) + ")");
  return std::shared_ptr<void>(k, [](void* p) { clReleaseKernel(static_cast<cl_kernel>(p)); });
}

DevicePeaks openclPeaks(OpenCLDevice& dev) {
  DevicePeaks p;
  const std::string id = dev.info().id;
  std::shared_ptr<void> program = dev.buildProgram(kProbeSource, "-cl-std=CL1.2");
  auto copy = kernelOf(program, "ks_peak_copy", id);
  auto fma = kernelOf(program, "ks_peak_fma", id);

  // Bandwidth: 32 MiB in, 32 MiB out (smaller when the device allows less).
  std::size_t bytes = 32u << 20;
  if (dev.info().maxAllocBytes > 0) bytes = std::min<std::size_t>(bytes, static_cast<std::size_t>(dev.info().maxAllocBytes / 2));
  bytes &= ~std::size_t(15);
  OpenCLBuffer a = dev.alloc(bytes), b = dev.alloc(bytes);
  std::vector<float> ones(bytes / 4, 1.0f);
  dev.write(a, ones.data(), bytes);
  const int64_t g[3] = {static_cast<int64_t>(bytes / 16), 1, 1};
  double best = 1e300;
  for (int r = 0; r < 4; ++r) {  // the first launch pays first touch and JIT; best of the rest
    const double ns = static_cast<double>(dev.launch(copy.get(), {&a, &b}, g, nullptr));
    if (r > 0 && ns > 0) best = std::min(best, ns);
  }
  if (best < 1e300) p.gbs = 2.0 * bytes / best;

  // Throughput: grow the grid until one launch takes >= 20 ms (or 16M work-items).
  const float sc[2] = {0.999f, 0.001f};
  OpenCLBuffer s = dev.alloc(sizeof sc);
  dev.write(s, sc, sizeof sc);
  int64_t items = 1 << 14;
  const int64_t maxItems = 1 << 24;
  OpenCLBuffer out = dev.alloc(static_cast<std::size_t>(maxItems) * 4);
  for (;;) {
    const int64_t gg[3] = {items, 1, 1};
    dev.launch(fma.get(), {&s, &out}, gg, nullptr);  // warm-up at this size
    double t = 1e300;
    for (int r = 0; r < 3; ++r) {
      const double ns = static_cast<double>(dev.launch(fma.get(), {&s, &out}, gg, nullptr));
      if (ns > 0) t = std::min(t, ns);
    }
    if (t < 1e300) p.gflops = 2.0 * 8 * 16 * 16 * static_cast<double>(items) / t;  // 8 float16 chains, 16 steps
    if (t >= 20e6 || items >= maxItems) break;
    items *= t < 2.5e6 ? 8 : 2;
    items = std::min(items, maxItems);
  }
  return p;
}

std::mutex& cacheMutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, DevicePeaks>& cache() {
  static std::map<std::string, DevicePeaks> c;
  return c;
}
}  // namespace

DevicePeaks measurePeaks(const DeviceInfo& d, OpenCLDevice* device) {
  const std::string key = d.name + "|" + d.fingerprint;
  {
    std::lock_guard<std::mutex> lock(cacheMutex());
    if (auto it = cache().find(key); it != cache().end()) return it->second;
  }
  DevicePeaks p;
  switch (d.kind) {
    case DeviceKind::Host:
      p.gbs = hostCopyGBs();
      p.gflops = hostFmaGflops();
      break;
    case DeviceKind::OpenBlas: {
      p.gbs = hostCopyGBs();
      GemmSpec g;
      g.m = g.n = g.k = 512;
      p.gflops = g.flops() / std::max(timeGemm(g, 5), 1.0);
      break;
    }
    case DeviceKind::OpenCL: {
      std::unique_ptr<OpenCLDevice> own;
      if (!device) {
        own = OpenCLDevice::open(d.platform, d.index);
        device = own.get();
      }
      p = openclPeaks(*device);
      break;
    }
  }
  std::lock_guard<std::mutex> lock(cacheMutex());
  cache()[key] = p;
  return p;
}

void fillPeaks(std::vector<DeviceInfo>& devices) {
  for (DeviceInfo& d : devices) {
    try {
      const DevicePeaks p = measurePeaks(d);
      d.peakGBs = p.gbs;
      d.peakGflops = p.gflops;
    } catch (const Error&) {
      d.peakGBs = d.peakGflops = 0;  // shown as "not measured"
    }
  }
}

}  // namespace ks
