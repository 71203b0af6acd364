// What the autotuner records: every measured schedule and, per kernel and device, the search.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace ks {

// How the measurement of one schedule ended.
enum class TuneStatus : uint8_t { Ok, BuildError, LaunchError, TooSlow, Skipped, WrongResult };
const char* toString(TuneStatus s);  // "ok", "build error", "launch error", "too slow", "skipped", "wrong result"
std::optional<TuneStatus> tuneStatusFrom(const std::string& text);

// Why the search of one kernel on one device stopped.
enum class StopReason : uint8_t {
  Exhausted,         // every candidate was measured
  CountBudget,       // more candidates than the budget allows
  TimeBudget,        // the wall-time budget ran out
  Cancelled,
  Cached,            // the tuning cache knew the winner
  NothingToCompute,  // the kernel stores zero elements
  SameKernel,        // an earlier kernel of the same structure was searched
  ModelBudget,       // the program's tuning time ran out: only the first schedule was measured
};
const char* toString(StopReason r);  // "exhausted", "count budget", ..., "same kernel as"

// One schedule of one kernel on one device, as measured.
struct TuneMeasurement {
  uint32_t kernel = 0, device = 0;
  std::string schedule;  // Schedule::str()
  TuneStatus status = TuneStatus::Ok;
  double ns = 0;
  std::string reason;
  bool cached = false;  // taken from the tuning cache, not measured now
};

// The search of one kernel on one device.
struct TuneSearch {
  uint32_t kernel = 0, device = 0;
  std::string winner;
  double winnerNs = 0;
  StopReason stopReason = StopReason::Exhausted;
  // The reason's particulars: "8 of 12 schedules" (count budget), "10 s" (time budget), the cached
  // search's own stop text (cached), "zero elements", the name of the kernel searched instead.
  std::string stopDetail;
  int candidates = 0, measured = 0, cacheHits = 0;
  double buildMs = 0;  // time spent building this kernel's candidates

  // The reason in words, as views and files show it: "count budget (8 of 12 schedules)", with
  // "; no schedule ran" when a search that ran its candidates found no winner.
  std::string stopText() const;
  // Reads stopText() back into stopReason and stopDetail; false for a text no search writes.
  bool setStopFromText(const std::string& text);
};

}  // namespace ks
