// What the autotuner records: every measured schedule and, per kernel and device, the search.
#pragma once
#include <cstdint>
#include <string>

namespace ks {

// One schedule of one kernel on one device, as measured.
struct TuneMeasurement {
  uint32_t kernel = 0, device = 0;
  std::string schedule;  // Schedule::str()
  std::string status;  // "ok", "build error", "launch error", "too slow", "skipped", "wrong result"
  double ns = 0;
  std::string reason;
  bool cached = false;  // taken from the tuning cache, not measured now
};

// The search of one kernel on one device.
struct TuneSearch {
  uint32_t kernel = 0, device = 0;
  std::string winner;
  double winnerNs = 0;
  std::string stopReason;  // "exhausted", "count budget", "time budget", "cancelled", "cached"
  int candidates = 0, measured = 0, cacheHits = 0;
  double buildMs = 0;  // time spent building this kernel's candidates
};

}  // namespace ks
