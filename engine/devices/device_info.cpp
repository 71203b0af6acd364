// Device descriptions, JSON, and resolution of --devices lists.
#include "engine/devices/device_info.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/json_read.h"
#include "engine/devices/openblas_gemm.h"

namespace ks {

const char* deviceKindName(DeviceKind k) {
  switch (k) {
    case DeviceKind::Host: return "host";
    case DeviceKind::OpenCL: return "opencl";
    case DeviceKind::OpenBlas: return "openblas";
  }
  return "?";
}

void to_json(nlohmann::json& j, const DeviceInfo& d) {
  j = {{"name", d.name},
       {"kind", deviceKindName(d.kind)},
       {"platform", d.platformName},
       {"platform_index", d.platform},
       {"device_index", d.index},
       {"device", d.deviceName},
       {"vendor", d.vendor},
       {"driver", d.driver},
       {"compute_units", d.computeUnits},
       {"memory_bytes", d.memoryBytes},
       {"max_work_group_size", d.maxWorkGroupSize},
       {"local_mem_bytes", d.localMemBytes},
       {"fp64", d.fp64},
       {"host_visible", d.hostVisible},
       {"fingerprint", d.fingerprint},
       {"can_run", d.canRun},
       {"peak_gbs", d.peakGBs},
       {"peak_gflops", d.peakGflops}};
}

// Read from session files (user input): every value is checked for its type and range, and a
// kind other than the three is an error, not a host.
void from_json(const nlohmann::json& j, DeviceInfo& d) {
  d.name = jsonGet<std::string>(j, "name");
  const std::string kind = jsonGet<std::string>(j, "kind");
  if (kind != "opencl" && kind != "openblas" && kind != "host") {
    JsonPath at("kind");
    throw Error(ErrorCode::Parse, "expected \"opencl\", \"openblas\" or \"host\", found \"" + kind + "\"");
  }
  d.kind = kind == "opencl" ? DeviceKind::OpenCL : kind == "openblas" ? DeviceKind::OpenBlas : DeviceKind::Host;
  d.platformName = jsonGet<std::string>(j, "platform", "");
  d.platform = jsonGet<int>(j, "platform_index", -1);
  d.index = jsonGet<int>(j, "device_index", -1);
  d.deviceName = jsonGet<std::string>(j, "device", "");
  d.vendor = jsonGet<std::string>(j, "vendor", "");
  d.driver = jsonGet<std::string>(j, "driver", "");
  d.computeUnits = jsonGet<int>(j, "compute_units", 0);
  d.memoryBytes = jsonGet<uint64_t>(j, "memory_bytes", 0);
  d.maxWorkGroupSize = jsonGet<uint64_t>(j, "max_work_group_size", 0);
  d.localMemBytes = jsonGet<uint64_t>(j, "local_mem_bytes", 0);
  d.fp64 = jsonGet<bool>(j, "fp64", false);
  // Files written before the key existed: host and openblas always work in host memory.
  d.hostVisible = jsonGet<bool>(j, "host_visible", d.kind != DeviceKind::OpenCL);
  d.fingerprint = jsonGet<std::string>(j, "fingerprint", "");
  d.canRun = jsonGet<std::string>(j, "can_run", "");
  d.peakGBs = jsonGet<double>(j, "peak_gbs", 0.0);
  d.peakGflops = jsonGet<double>(j, "peak_gflops", 0.0);
}

DeviceInfo hostDeviceInfo() {
  DeviceInfo d;
  d.name = "host";
  d.kind = DeviceKind::Host;
  d.deviceName = "reference executor";
  d.vendor = "kernelscope";
  d.driver = "1";
  d.computeUnits = 1;
  d.fp64 = true;
  d.hostVisible = true;
  d.fingerprint = "host|reference|1";
  d.canRun = "every op, node by node (the oracle; a plan device only when named alone)";
  return d;
}

DeviceInfo openblasDeviceInfo() {
  DeviceInfo d;
  d.name = "openblas";
  d.kind = DeviceKind::OpenBlas;
  d.deviceName = "cblas_sgemm";
  d.vendor = "OpenBLAS";
  d.driver = openblasConfig();
  d.computeUnits = static_cast<int>(std::thread::hardware_concurrency());
  d.hostVisible = true;
  d.fingerprint = "openblas|" + d.driver;
  d.canRun = "f32 (batched, transposed) matmuls, AOT only: a helper to the compiling devices";
  return d;
}

std::vector<DeviceInfo> selectDevices(const std::string& spec, const std::vector<DeviceInfo>& found) {
  std::vector<DeviceInfo> out;
  auto add = [&](const DeviceInfo& d) {
    for (auto& o : out)
      if (o.name == d.name) return;
    out.push_back(d);
  };
  if (spec.empty() || spec == "all") {
    for (auto& d : found)
      if (d.compiles()) add(d);
    if (out.empty())
      throw Error(ErrorCode::Device, "no OpenCL device was found (is an ICD such as pocl-opencl-icd installed?); "
                                     "use --devices host to run the reference executor");
    for (auto& d : found)
      if (d.aotOnly()) add(d);
    return out;
  }
  std::stringstream ss(spec);
  std::string name;
  while (std::getline(ss, name, ',')) {
    if (name.empty()) continue;
    bool ok = false;
    for (auto& d : found)
      if (d.name == name) {
        add(d);
        ok = true;
      }
    if (!ok) {
      std::string known;
      for (auto& d : found) known += (known.empty() ? "" : ", ") + d.name;
      throw Error(ErrorCode::Usage, "unknown device '" + name + "' (found: " + known + ")");
    }
  }
  bool host = false, compiling = false;
  for (auto& d : out) {
    host = host || d.kind == DeviceKind::Host;
    compiling = compiling || d.compiles();
  }
  if (host && out.size() > 1)
    throw Error(ErrorCode::Usage, "host is the reference executor: name it alone (--devices host) or leave it out");
  if (!host && !compiling)
    throw Error(ErrorCode::Usage, "openblas only runs matmuls: add a device that compiles kernels (an opencl:P:D)");
  return out;
}

}  // namespace ks
