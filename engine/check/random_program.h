// Seeded random tensor programs for differential and fusion tests: ranks up to 4, elementwise,
// reduce and movement ops, pads, flips, narrows and wheres. Reusable by any test or selftest.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "engine/program/program.h"

namespace ks {

struct RandomProgramOptions {
  int minOps = 6;       // ops that made it into the graph (at least this many)
  int maxOps = 14;
  int maxRank = 4;
  int64_t maxDim = 5;   // dims are drawn from 1..maxDim (plus the odd 7 so sizes are not all small)
  int maxInputs = 3;
  int64_t maxElements = 4096;  // no value grows beyond this many elements (expand is skipped)
  int reusePercent = 35;       // chance that an operand is any earlier value (fan-out) rather than a recent one
  // Chance that the program also outputs the gradients of a random scalar of its last value with
  // respect to its inputs (reverse-mode autograd through the same ops). 0 draws nothing, so the
  // programs of a seed stay what they were.
  int gradPercent = 0;
};

// The same seed gives the same program on every platform (own generator, no std distributions).
// `opCounts`, when given, receives how often each op kind was used (for coverage reports).
Program randomProgram(uint64_t seed, const RandomProgramOptions& options = {},
                      std::map<std::string, int>* opCounts = nullptr);

}  // namespace ks
