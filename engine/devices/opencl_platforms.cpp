// openclAbsenceNote: asks the ICD loader what it found.
#include "engine/devices/opencl_platforms.h"

#include <CL/cl.h>

#include <cstdlib>
#include <vector>

namespace ks {

namespace {
constexpr cl_int kPlatformNotFound = -1001;  // CL_PLATFORM_NOT_FOUND_KHR (cl_khr_icd)

std::string platformName(cl_platform_id p) {
  char buf[256] = {};
  clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof buf - 1, buf, nullptr);
  return buf;
}
}  // namespace

std::string openclAbsenceNote() {
  cl_uint n = 0;
  const cl_int e = clGetPlatformIDs(0, nullptr, &n);
  if (e == kPlatformNotFound || (e == CL_SUCCESS && n == 0)) {
    const char* dir = std::getenv("OCL_ICD_VENDORS");
    return std::string("no OpenCL platform: the OpenCL loader found no driver (no .icd file in ") +
           (dir && *dir ? dir : "/etc/OpenCL/vendors") +
           "), so only host and openblas are listed; install one (pocl-opencl-icd for the CPU, or a GPU "
           "vendor's OpenCL driver) to compile and run fused kernels";
  }
  if (e != CL_SUCCESS) return "OpenCL platforms could not be listed (clGetPlatformIDs returned " + std::to_string(e) + ")";
  std::vector<cl_platform_id> ps(n);
  clGetPlatformIDs(n, ps.data(), nullptr);
  std::string names;
  for (cl_platform_id p : ps) {
    cl_uint d = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &d) == CL_SUCCESS && d > 0) return {};
    names += (names.empty() ? "" : ", ") + platformName(p);
  }
  return "the OpenCL platform(s) " + names + " have no device, so only host and openblas are listed";
}

}  // namespace ks
