// Why the device list holds no OpenCL device, in words a user can act on.
#pragma once
#include <string>

namespace ks {

// "" when at least one OpenCL device exists; otherwise what is missing: no platform at all (the
// ICD loader found no driver, and where it looked), or platforms without devices.
std::string openclAbsenceNote();

}  // namespace ks
