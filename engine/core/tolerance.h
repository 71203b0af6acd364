// Agreement with the oracle (DESIGN.md §2.1): integers and bool exact; f32/f64
// |a-b| <= 1e-5 + 1e-4*|b|, scaled by max(1, sqrt(K)/4) for a K-term reduction (DESIGN scales
// only the relative term; we scale both, see tolerance.cpp); f16 <= 1e-3 + 1e-3*|b|. NaN matches
// NaN, infinities match by sign.
#pragma once
#include <cstdint>
#include <string>

#include "engine/core/host_tensor.h"

namespace ks {

// "" when `got` agrees with `want`; otherwise the first mismatch ("index 7: got 1.5, expected 1.25").
std::string compareWithTolerance(const HostTensor& got, const HostTensor& want, int64_t reduceTerms = 1);
// The bound of a term made by inexact rewrites (reassociation): besides compareWithTolerance's,
// |a - b| <= atol + rtol * max(1, sqrt(K)/4) * m with m the element of `magnitude` (the expression
// evaluated on absolute values, same shape), so a sum that cancels near zero is judged by the
// size of its terms, not of its result.
std::string compareWithMagnitude(const HostTensor& got, const HostTensor& want, const HostTensor& magnitude,
                                 int64_t reduceTerms = 1);
// The largest |got - want| over finite pairs (for reports).
double maxAbsDifference(const HostTensor& got, const HostTensor& want);

}  // namespace ks
