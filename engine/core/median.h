// The median of repeated timings: every measured time the engine reports (autotune candidates,
// plan candidates, steady-state runs, device comparisons, transfer costs) is one.
#pragma once
#include <algorithm>
#include <vector>

namespace ks {

// The middle value, the mean of the two middle ones for an even count; 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2) return *mid;
  return 0.5 * (*std::max_element(v.begin(), mid) + *mid);
}

}  // namespace ks
