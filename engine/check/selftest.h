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
#include "engine/rewrite/rule_set.h"

namespace ks {

struct SelftestOptions {
  std::vector<std::string> devices{"interpreter"};  // "interpreter" and/or opencl:P:D
  int programs = 100;
  uint64_t seed = 1;
  RandomProgramOptions generator;
  // Rules saturating each program's e-graph before kernelizing (none: the program as built). The
  // static best term is checked against the program as built by the host oracle first, then
  // kernelized, and its kernels checked against the term's host values.
  RuleSelection rewrite{RewriteMode::Default, {}, {}};
};

struct SelftestReport {
  int programs = 0, kernels = 0, runs = 0, passed = 0, failed = 0;
  int schedulesDrawn = 0, schedulesRejected = 0;  // drawn from the enumerated candidates / refused by lowering
  std::string rewriteMode = "none";
  int rewritten = 0;        // programs whose term differs from the program as built
  std::size_t merges = 0;   // rule applications that merged classes, over every program
  int inexactTerms = 0;     // terms from inexact rules: checked with the magnitude bound
  std::map<std::string, int> ops;        // op kind -> uses
  std::map<std::string, int> schedules;  // schedule option -> kernels run with it
  std::vector<std::string> failures;     // "seed 17 on opencl:0:0, kernel k2 (schedule ...): index 3: ..." + the program
  std::string summary() const;           // coverage tables and the closing "N passed, M failed" line
};

SelftestReport runSelftest(const SelftestOptions& options, const Progress& progress = {});

}  // namespace ks
