// cblas_sgemm per batch; strided batches without copies.
#include "engine/devices/openblas_gemm.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/core/median.h"

namespace ks {

namespace {
void sgemm(const GemmSpec& s, const float* a, const float* b, float* c) {
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  cblas_sgemm(CblasRowMajor, s.transA ? CblasTrans : CblasNoTrans, s.transB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a,
              s.transA ? m : k, b, s.transB ? k : n, 0.0f, c, n);
}

// A gather's batch for GEMM batch i (a gather of one batch serves them all) into scratch, once.
const float* gathered(const GemmGather& g, int64_t i, const float* src, float* scratch) {
  if (g.batches() > 1 || i == 0) g.apply(g.batches() > 1 ? static_cast<std::size_t>(i) : 0, src, scratch);
  return scratch;
}
}  // namespace

void runGemm(const GemmSpec& s, const float* a, const float* b, float* c) {
  for (int64_t i = 0; i < s.batch; ++i) sgemm(s, a + i * s.strideA, b + i * s.strideB, c + i * s.m * s.n);
}

void runGemm(const GemmSpec& s, const GemmGather* ga, const GemmGather* gb, const float* a, const float* b, float* c,
             float* scratchA, float* scratchB) {
  // Few rows times a gathered matrix: multiplied straight from the source (see multiplyInto).
  const bool direct = multipliesDirectly(s, gb != nullptr) && gb->prepared(s.k);
  for (int64_t i = 0; i < s.batch; ++i) {
    const float* ai = ga ? gathered(*ga, i, a, scratchA) : a + i * s.strideA;
    if (direct) {
      gb->multiplyInto(gb->batches() > 1 ? static_cast<std::size_t>(i) : 0, b, ai, s.m, s.k, s.transA, c + i * s.m * s.n);
      continue;
    }
    const float* bi = gb ? gathered(*gb, i, b, scratchB) : b + i * s.strideB;
    sgemm(s, ai, bi, c + i * s.m * s.n);
  }
}

double timeGemm(const GemmSpec& s, int repeats, const GemmGather* ga, const GemmGather* gb) {
  auto elems = [&](const GemmGather* g, bool strided, int64_t per) {
    return g ? std::max<int64_t>(g->sourceElements, 1) : (strided ? s.batch : 1) * per;
  };
  std::vector<float> a(elems(ga, s.strideA, s.m * s.k), 1.0f), b(elems(gb, s.strideB, s.k * s.n), 1.0f),
      c(s.batch * s.m * s.n), sa(ga ? s.m * s.k : 0), sb(gb ? s.k * s.n : 0);
  auto once = [&] { runGemm(s, ga, gb, a.data(), b.data(), c.data(), sa.data(), sb.data()); };
  once();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    once();
    t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(std::move(t));
}

const char* openblasConfig() { return openblas_get_config(); }

void setGemmThreads(int n) {
  static const int initial = openblas_get_num_threads();
  const int want = n > 0 ? n : initial;
  if (openblas_get_num_threads() != want) openblas_set_num_threads(want);
}

}  // namespace ks
