// NumPy .npy files (format versions 1-3, little-endian, C order) to and from HostTensor.
#pragma once
#include <string>

#include "engine/core/host_tensor.h"

namespace ks {

// Reads a .npy file. Dtypes: bool, u1, i1, i2, i4, i8, u4, f2, f4, f8 (others and Fortran order
// are ks::Error Unsupported; a truncated or malformed file is ks::Error Parse naming the file).
HostTensor readNpy(const std::string& path);
// Parses .npy bytes; `file` names the source in errors.
HostTensor parseNpy(const std::string& bytes, const std::string& file);
// Writes a version-1.0 .npy file.
void writeNpy(const std::string& path, const HostTensor& t);
std::string npyBytes(const HostTensor& t);

}  // namespace ks
