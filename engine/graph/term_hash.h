// Structural hashes of e-classes: the hash of the term a class's structural nodes form, down to
// the leaves. Two graphs built from the same program (or sharing a sub-program) give a class the
// same hash whatever its id, so classes, kernels and plan steps can be matched across sessions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/graph.h"

namespace ks {

// Boost's hash_combine with a 64-bit constant: order-sensitive, cheap.
inline uint64_t hashMix(uint64_t h, uint64_t v) { return h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }
uint64_t hashString(const std::string& s);  // FNV-1a

// By class id (merged ids carry their canonical class's hash). A leaf hashes by its name, kind,
// dtype and shape (a constant's data too); every other node by its kind, op, dtype, attributes,
// value and its operands' hashes, with the class's shape and dtype. Device indices (ToDevice,
// Kernel nodes) hash by `deviceNames[i]` when given, so two sessions with different device lists
// still agree. Measured times are ignored. Walks iteratively (deep chains do not overflow).
std::vector<uint64_t> termHashes(const Graph& g, const std::vector<std::string>& deviceNames = {});

}  // namespace ks
