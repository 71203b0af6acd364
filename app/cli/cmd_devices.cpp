// `devices [--json]`: every device found, one per line or as a JSON array.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "engine/devices/device_info.h"
#include "engine/devices/opencl_platforms.h"

namespace ks::cli {

namespace {
void printDevice(const DeviceInfo& d) {
  std::printf("%-12s %-8s %s", d.name.c_str(), deviceKindName(d.kind), d.deviceName.c_str());
  if (d.kind == DeviceKind::OpenCL)
    std::printf(" | %s | %s | driver %s | %d CUs | %.1f GiB | wg %llu | local %llu KiB%s", d.platformName.c_str(),
                d.vendor.c_str(), d.driver.c_str(), d.computeUnits, static_cast<double>(d.memoryBytes) / (1 << 30),
                static_cast<unsigned long long>(d.maxWorkGroupSize),
                static_cast<unsigned long long>(d.localMemBytes / 1024), d.fp64 ? " | fp64" : "");
  if (d.kind == DeviceKind::OpenCL && d.hostVisible) std::printf(" | host memory (zero-copy)");
  std::printf("\n%-12s runs: %s\n", "", d.canRun.c_str());
}
}  // namespace

int cmdDevices(int argc, char** argv) {
  Args args("devices");
  bool json = false;
  args.app().add_flag("--json", json, "print a JSON array");
  if (!args.parse(argc, argv)) return 0;
  const std::vector<DeviceInfo> devices = discoverDevices();
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const DeviceInfo& d : devices) j.push_back(d);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    for (const DeviceInfo& d : devices) printDevice(d);
  }
  // Without an OpenCL device nothing compiles kernels: say why. On stderr with --json, so that
  // stdout stays one JSON array.
  if (const std::string note = openclAbsenceNote(); !note.empty()) std::fprintf(json ? stderr : stdout, "note: %s\n", note.c_str());
  return 0;
}

}  // namespace ks::cli
