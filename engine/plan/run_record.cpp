// Names of run record enums.
#include "engine/plan/run_record.h"

namespace ks {

const char* verifyModeName(VerifyMode m) {
  switch (m) {
    case VerifyMode::Full: return "full";
    case VerifyMode::Sampled: return "sampled";
    case VerifyMode::Skipped: return "skipped";
  }
  return "full";
}

}  // namespace ks
