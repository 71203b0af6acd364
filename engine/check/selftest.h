// The random-program differential test: seeded programs are kernelized, every kernel is lowered
// under a randomly drawn schedule and run on a device (or the lowered-IR interpreter), and every
// value it stores is compared with the host oracle. `kernelscope-cli selftest` and the ctest
// suites both run it, so it also runs where Qt is absent.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/check/random_program.h"
#include "engine/core/progress.h"

namespace ks {

struct SelftestOptions {
  std::vector<std::string> devices{"interpreter"};  // "interpreter" and/or opencl:P:D
  int programs = 100;
  uint64_t seed = 1;
  RandomProgramOptions generator;
};

struct SelftestReport {
  int programs = 0, kernels = 0, runs = 0, passed = 0, failed = 0;
  int schedulesDrawn = 0, schedulesRejected = 0;  // drawn from the enumerated candidates / refused by lowering
  std::map<std::string, int> ops;        // op kind -> uses
  std::map<std::string, int> schedules;  // schedule option -> kernels run with it
  std::vector<std::string> failures;     // "seed 17 on opencl:0:0, kernel k2 (schedule ...): index 3: ..." + the program
  std::string summary() const;           // coverage tables and the closing "N passed, M failed" line
};

SelftestReport runSelftest(const SelftestOptions& options, const Progress& progress = {});

}  // namespace ks
