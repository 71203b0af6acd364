// The error for a tensor that cannot be allocated: it names the dtype, the shape, the bytes and
// where the memory was asked for, instead of a bare std::bad_alloc.
#pragma once
#include <string>

#include "engine/core/dtype.h"
#include "engine/core/error.h"
#include "engine/core/shape.h"

namespace ks {

// numel(shape) * elementBytes without overflow (shapes of a hostile file can exceed 2^63).
long double tensorBytes(const Shape& shape, std::size_t elementBytes);
// "4398046511104 bytes (4.0 TiB)".
std::string bytesStr(long double bytes);
// ErrorCode::Allocation: "cannot allocate f32[1048576, 1048576] (4398046511104 bytes (4.0 TiB)) in `where`".
Error allocationFailure(DType t, const Shape& shape, long double bytes, const std::string& where);

}  // namespace ks
