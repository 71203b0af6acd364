// Saturated e-graphs kept for the process, keyed by (program, rule set, limits): a warm compile
// of the same program does not saturate again. Thread-safe.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "engine/rewrite/runner.h"

namespace ks {

struct SaturationKey {
  uint64_t program = 0;  // the program's cache key (with its leaf names)
  std::string rules;     // ruleSetKey
  RewriteLimits limits;
  std::string str() const;
};

struct Saturated {
  Graph graph;
  RewriteReport report;
};

// The saturated graph for `key`, or null.
std::shared_ptr<const Saturated> findSaturated(const SaturationKey& key);
// Keeps `s` for `key`; the oldest entry goes when more than a few programs are kept.
void keepSaturated(const SaturationKey& key, std::shared_ptr<const Saturated> s);

}  // namespace ks
