// A GEMM operand gathered on the host: the packed matrix the GEMM reads is copied out of another
// buffer (an im2col matrix out of a convolution's input) run by run, batch by batch, so no kernel
// has to store it and the matrix of one batch stays in cache between its gather and its product.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace ks {

// `reps` copies of `len` source elements `step` apart, the r-th from src + r * stride (a window's
// rows: one per output row of the image; a strided convolution reads every step-th element),
// written one after the other.
struct GatherRun {
  int64_t src = 0;  // first source element; < 0: the run is `len` fill values (reps 1)
  int64_t len = 0;
  int64_t reps = 1;
  int64_t stride = 0;
  int64_t step = 1;
};

struct GemmGather {
  // Runs of consecutive source elements (or fills) in destination order; batch b's packed
  // matrix is runs [batchStart[b], batchStart[b + 1]). One batch: every batch reads the same.
  std::vector<GatherRun> runs;
  std::vector<std::size_t> batchStart{0};
  int64_t batchElements = 0;   // elements of one batch's packed matrix
  int64_t sourceElements = 0;  // elements the source buffer must hold
  float fill = 0;

  // Runs of `src` (per destination element, in order; < 0 is the fill), `batchElements` per batch.
  static GemmGather fromIndices(const std::vector<int64_t>& src, int64_t batchElements, int64_t sourceElements,
                                float fill);
  std::size_t batches() const { return batchStart.size() - 1; }
  // Writes batch `b`'s packed matrix (batchElements floats) to dst.
  void apply(std::size_t b, const float* src, float* dst) const;
  // c (m x n) = a (m x k; stored k x m when transA) times batch `b`'s packed matrix (k x n, with
  // k * n == batchElements), reading the source where the runs point instead of packing it first:
  // for a product of few rows (a depthwise convolution: one row of 9 weights per channel) packing
  // and a GEMM call cost many times the arithmetic. Needs prepareProduct(k) first (prepared()).
  void multiplyInto(std::size_t b, const float* src, const float* a, int64_t m, int64_t k, bool transA, float* c) const;
  // Splits the runs into pieces of one packed row each and groups them for multiplyInto: up to
  // three pieces that write the same stretch of the output (a window's taps one below the other)
  // form a bundle, added in one pass, and bundles that repeat at a constant output and source
  // stride (the same taps over the next output row) fold into one bundle with `reps`.
  void prepareProduct(int64_t k);

  // One piece of a run inside one packed row: `len` elements `step` apart from `src` (< 0: fills)
  // go to row `row` of the packed matrix at column `col`.
  struct ProductPiece {
    int64_t col, len, src, step, row;
  };
  struct ProductBundle {
    ProductPiece piece[3];
    int count = 1;
    int64_t reps = 1, colStride = 0, srcStride = 0;  // repeat r writes col + r * colStride from src + r * srcStride
  };
  std::vector<ProductBundle> bundles;    // empty until prepareProduct
  std::vector<std::size_t> bundleStart;  // batch b's bundles: [bundleStart[b], bundleStart[b + 1])
  int64_t productRows = 0;               // the k prepareProduct split for
  bool prepared(int64_t k) const { return productRows == k; }

 private:
  void foldRepeats();
};

// The gathers of a GEMM's A and B (nothing: read in place).
using GemmGathers = std::array<std::optional<GemmGather>, 2>;

}  // namespace ks
