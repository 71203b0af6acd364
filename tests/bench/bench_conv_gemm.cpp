// Convolution GEMMs on the openblas device, piece by piece, for the layer shapes of ResNet-18 and
// MobileNetV2 (batch 1): the im2col gather alone, the sgemm alone on a packed matrix, and the
// step as the plan runs it (gather + product, or the direct product for few rows), with GFLOP/s.
// It says where a convolution step's time goes; the whole models are in model_ort.sh.
// Usage: bench_conv_gemm [REPEATS=20]   (OPENBLAS_NUM_THREADS sets the threads)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "engine/core/median.h"
#include "engine/devices/gemm_gather.h"
#include "engine/devices/openblas_gemm.h"

using namespace ks;

namespace {

struct Conv {
  const char* name;
  int64_t cin, h, w, cout, kh, kw, stride, pad, groups;
};

// The packed [cin/groups * kh * kw, oh * ow] matrix of each group, as indices into the image.
GemmGather im2col(const Conv& c, int64_t oh, int64_t ow) {
  const int64_t cg = c.cin / c.groups;
  std::vector<int64_t> idx;
  for (int64_t g = 0; g < c.groups; ++g)
    for (int64_t ci = 0; ci < cg; ++ci)
      for (int64_t y = 0; y < c.kh; ++y)
        for (int64_t x = 0; x < c.kw; ++x)
          for (int64_t oy = 0; oy < oh; ++oy)
            for (int64_t ox = 0; ox < ow; ++ox) {
              const int64_t iy = oy * c.stride - c.pad + y, ix = ox * c.stride - c.pad + x;
              const bool in = iy >= 0 && iy < c.h && ix >= 0 && ix < c.w;
              idx.push_back(in ? ((g * cg + ci) * c.h + iy) * c.w + ix : -1);
            }
  return GemmGather::fromIndices(idx, cg * c.kh * c.kw * oh * ow, c.cin * c.h * c.w, 0.0f);
}

template <class F>
double medianNs(int repeats, F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(std::move(t));
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  const Conv convs[] = {
      {"resnet conv1 7x7/2", 3, 224, 224, 64, 7, 7, 2, 3, 1},
      {"resnet layer1 3x3", 64, 56, 56, 64, 3, 3, 1, 1, 1},
      {"resnet layer2 3x3/2", 64, 56, 56, 128, 3, 3, 2, 1, 1},
      {"resnet layer2 3x3", 128, 28, 28, 128, 3, 3, 1, 1, 1},
      {"resnet layer3 3x3", 256, 14, 14, 256, 3, 3, 1, 1, 1},
      {"resnet layer4 3x3", 512, 7, 7, 512, 3, 3, 1, 1, 1},
      {"mobilenet dw 3x3 112", 32, 112, 112, 32, 3, 3, 1, 1, 32},
      {"mobilenet dw 3x3/2 112", 96, 112, 112, 96, 3, 3, 2, 1, 96},
      {"mobilenet dw 3x3 56", 144, 56, 56, 144, 3, 3, 1, 1, 144},
      {"mobilenet dw 3x3 14", 384, 14, 14, 384, 3, 3, 1, 1, 384},
  };
  std::printf("%-24s %-28s %9s %9s %9s %8s %7s %7s\n", "layer", "gemm", "gather_us", "sgemm_us", "step_us", "GFLOP/s", "runs",
              "bundles");
  for (const Conv& c : convs) {
    const int64_t oh = (c.h + 2 * c.pad - c.kh) / c.stride + 1, ow = (c.w + 2 * c.pad - c.kw) / c.stride + 1;
    GemmSpec s;
    s.batch = c.groups, s.m = c.cout / c.groups, s.n = oh * ow, s.k = c.cin / c.groups * c.kh * c.kw;
    s.strideA = c.groups > 1 ? s.m * s.k : 0;
    s.strideB = c.groups > 1 ? s.k * s.n : 0;
    GemmGather g = im2col(c, oh, ow);
    if (multipliesDirectly(s, true)) g.prepareProduct(s.k);  // as the plan's gathers are
    std::vector<float> image(c.cin * c.h * c.w, 0.5f), weights(c.cout * s.k, 0.25f), packed(s.batch * s.k * s.n),
        out(c.cout * s.n), scratchA(1), scratchB(s.k * s.n);
    const double gather = medianNs(repeats, [&] {
      for (std::size_t b = 0; b < g.batches(); ++b) g.apply(b, image.data(), packed.data() + b * s.k * s.n);
    });
    const double sgemm = medianNs(repeats, [&] { runGemm(s, weights.data(), packed.data(), out.data()); });
    const double step = medianNs(repeats, [&] {
      runGemm(s, nullptr, &g, weights.data(), image.data(), out.data(), scratchA.data(), scratchB.data());
    });
    std::printf("%-24s %-28s %9.1f %9.1f %9.1f %8.1f %7zu %7zu\n", c.name, s.str().c_str(), gather / 1e3, sgemm / 1e3,
                step / 1e3, s.flops() / step, g.runs.size(), g.bundles.size());
  }
  return 0;
}
