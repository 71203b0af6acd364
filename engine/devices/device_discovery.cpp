// discoverDevices: host, every OpenCL device, openblas.
#include "engine/devices/device_info.h"
#include "engine/devices/opencl_device.h"

namespace ks {

std::vector<DeviceInfo> discoverDevices() {
  std::vector<DeviceInfo> r{hostDeviceInfo()};
  for (const OpenCLDeviceInfo& o : OpenCLDevice::enumerate()) {
    DeviceInfo d;
    d.name = o.id;
    d.kind = DeviceKind::OpenCL;
    d.platform = o.platformIndex;
    d.index = o.deviceIndex;
    d.platformName = o.platform;
    d.deviceName = o.name;
    d.vendor = o.vendor;
    d.driver = o.driverVersion;
    d.computeUnits = static_cast<int>(o.computeUnits);
    d.memoryBytes = static_cast<uint64_t>(o.globalMemBytes);
    d.maxWorkGroupSize = static_cast<uint64_t>(o.maxWorkGroupSize);
    d.localMemBytes = static_cast<uint64_t>(o.localMemBytes);
    d.fp64 = o.fp64;
    d.hostVisible = o.hostVisible();
    d.fingerprint = o.fingerprint;
    d.canRun = std::string("fused kernels (OpenCL C") + (o.fp64 ? ", f64" : ", no f64") + ")";
    r.push_back(std::move(d));
  }
  r.push_back(openblasDeviceInfo());
  return r;
}

}  // namespace ks
