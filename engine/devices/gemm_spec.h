// An ahead-of-time matrix product the OpenBLAS device runs: C[b] = op(A[b]) x op(B[b]), row-major.
#pragma once
#include <cstdint>
#include <string>

namespace ks {

struct GemmSpec {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool transA = false;  // A is stored k x m (its rows are columns of the product's left factor)
  bool transB = false;  // B is stored n x k
  int64_t strideA = 0, strideB = 0;  // elements between batches; 0 broadcasts one matrix
  double flops() const { return 2.0 * static_cast<double>(batch) * m * n * k; }
  int64_t bytes() const { return 4 * (batch * m * n + (strideA ? batch : 1) * m * k + (strideB ? batch : 1) * k * n); }
  std::string str() const;  // "sgemm 64x512x784 (A^T) batch 1"
  bool operator==(const GemmSpec&) const = default;
};

}  // namespace ks
