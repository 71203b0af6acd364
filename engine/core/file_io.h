// Whole-file reads and atomic writes that say what is wrong with a path: a directory where a file
// was expected, a missing file or folder, a failed write or rename (with the system's reason).
#pragma once
#include <string>

namespace ks {

// The bytes of `path`. `expected` names what the caller wants ("a .ks program"), for the error
// given when `path` is a directory.
std::string readFile(const std::string& path, const std::string& expected);

// Throws unless `path` can be written as a file: not a directory, its folder exists.
void checkWritableFile(const std::string& path, const std::string& expected);

// Writes `data` to a new temporary file beside `path` (never one that exists), then renames it
// over `path`: a reader sees the old file or the whole new one. On any failure the temporary is
// removed, `path` is as it was, and the error names the step and the system's reason.
void writeFileAtomically(const std::string& path, const std::string& data, const std::string& expected);

}  // namespace ks
