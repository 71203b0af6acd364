// The one random generator of Kernelscope: SplitMix64-seeded xoshiro256**, uniform doubles from
// the top 53 bits, normals by Box-Muller (two uniforms per pair of normals). Documented in
// docs/program-format.md so other tools can reproduce parameter values.
#pragma once
#include <cstdint>

namespace ks {

class Random {
 public:
  explicit Random(uint64_t seed);
  uint64_t next();
  double uniform();  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  double normal(double mean, double std);

 private:
  uint64_t s_[4];
  bool haveSpare_ = false;
  double spare_ = 0.0;
};

}  // namespace ks
