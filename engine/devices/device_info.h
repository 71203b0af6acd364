// What a device is and what it can run, as `kernelscope-cli devices` and the GUI show it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ks {

enum class DeviceKind : uint8_t { Host, OpenCL, OpenBlas };
const char* deviceKindName(DeviceKind k);  // "host", "opencl", "openblas"

struct DeviceInfo {
  std::string name;  // "host", "opencl:P:D", "openblas"
  DeviceKind kind = DeviceKind::Host;
  int platform = -1, index = -1;  // opencl: platform and device, 0-based in ICD loader order
  std::string platformName, deviceName, vendor, driver;
  int computeUnits = 0;
  uint64_t memoryBytes = 0;
  uint64_t maxWorkGroupSize = 0;
  uint64_t localMemBytes = 0;
  bool fp64 = false;
  // Its memory is host memory (host, openblas; an OpenCL CPU device or one with unified host
  // memory): values pass to and from host memory without a copy.
  bool hostVisible = false;
  std::string fingerprint;  // platform + name + driver + compute units: keys the tuning cache
  std::string canRun;       // "every op (reference)", "fused kernels", "f32 matmuls (AOT only)"
  // Measured peaks (0 until measured): copy bandwidth and GEMM/FMA throughput.
  double peakGBs = 0, peakGflops = 0;

  bool compiles() const { return kind == DeviceKind::OpenCL; }
  bool aotOnly() const { return kind == DeviceKind::OpenBlas; }
};

void to_json(nlohmann::json& j, const DeviceInfo& d);
void from_json(const nlohmann::json& j, DeviceInfo& d);

DeviceInfo hostDeviceInfo();
DeviceInfo openblasDeviceInfo();

// Every device found: host first, then every OpenCL device of every platform, then openblas.
// OpenCL problems (no ICD, no platform) give no OpenCL devices, not an error.
std::vector<DeviceInfo> discoverDevices();

// Resolves a --devices list ("a,b,..."; "" or "all" = every compiling device plus openblas;
// "host" alone runs the reference executor). Throws ks::Error(Usage) naming an unknown device,
// and when the selection cannot run a program (only openblas, or host mixed with others).
std::vector<DeviceInfo> selectDevices(const std::string& spec, const std::vector<DeviceInfo>& found);

}  // namespace ks
