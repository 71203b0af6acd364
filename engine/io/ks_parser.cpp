// Placeholder until the .ks parser lands: a clear error, never a crash.
#include "engine/io/program_source.h"
#include "engine/core/error.h"

namespace ks {
Program parseKs(const std::string&, const std::string& file) {
  throw Error(ErrorCode::Unsupported, "the .ks parser is not built yet", {file});
}
std::string printKs(const Program&) { throw Error(ErrorCode::Unsupported, "the .ks printer is not built yet"); }
}  // namespace ks
