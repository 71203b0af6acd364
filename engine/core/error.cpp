// Formatting of ks::Error.
#include "engine/core/error.h"

namespace ks {

std::string SourceLoc::str() const {
  std::string s = file;
  if (line > 0) {
    s += (s.empty() ? "" : ":") + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  if (!node.empty()) s += (s.empty() ? "" : " ") + std::string("(node '") + node + "')";
  return s;
}

const char* errorCodeName(ErrorCode c) {
  switch (c) {
    case ErrorCode::Shape: return "shape error";
    case ErrorCode::DType: return "dtype error";
    case ErrorCode::Axis: return "axis error";
    case ErrorCode::Parse: return "parse error";
    case ErrorCode::Unsupported: return "unsupported";
    case ErrorCode::Io: return "I/O error";
    case ErrorCode::Device: return "device error";
    case ErrorCode::Build: return "kernel build error";
    case ErrorCode::Launch: return "kernel launch error";
    case ErrorCode::Allocation: return "allocation error";
    case ErrorCode::Invariant: return "invariant violated";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::Usage: return "usage error";
    case ErrorCode::Internal: return "internal error";
  }
  return "error";
}

Error::Error(ErrorCode code, std::string message, SourceLoc where, std::string op)
    : std::runtime_error(format(message, where, op)),
      code_(code), message_(std::move(message)), where_(std::move(where)), op_(std::move(op)) {}

std::string Error::format(const std::string& msg, const SourceLoc& where, const std::string& op) {
  std::string s;
  if (where.known()) s += where.str() + ": ";
  if (!op.empty()) s += op + ": ";
  return s + msg;
}

Error Error::at(const SourceLoc& where) const {
  if (where_.known() || !where.known()) return *this;
  return Error(code_, message_, where, op_);
}

}  // namespace ks
