// cblas_sgemm per batch; strided batches without copies.
#include "engine/devices/openblas_gemm.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/core/median.h"

namespace ks {

void runGemm(const GemmSpec& s, const float* a, const float* b, float* c) {
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  const int lda = s.transA ? m : k, ldb = s.transB ? k : n;
  for (int64_t i = 0; i < s.batch; ++i)
    cblas_sgemm(CblasRowMajor, s.transA ? CblasTrans : CblasNoTrans, s.transB ? CblasTrans : CblasNoTrans, m, n, k,
                1.0f, a + i * s.strideA, lda, b + i * s.strideB, ldb, 0.0f, c + i * s.m * s.n, n);
}

double timeGemm(const GemmSpec& s, int repeats) {
  std::vector<float> a((s.strideA ? s.batch : 1) * s.m * s.k, 1.0f), b((s.strideB ? s.batch : 1) * s.k * s.n, 1.0f),
      c(s.batch * s.m * s.n);
  runGemm(s, a.data(), b.data(), c.data());  // warm-up
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    runGemm(s, a.data(), b.data(), c.data());
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
