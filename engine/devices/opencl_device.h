// OpenCL devices through the ICD loader (C API, target 1.2): discovery of every device of every
// platform as `opencl:P:D`, one context + one in-order profiling queue per device, buffers,
// many kernels built as one program, launches timed with profiling events.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/core/host_tensor.h"
#include "engine/kernel/lowered_kernel.h"
#include "engine/kernel/schedule.h"

namespace ks {

struct OpenCLDeviceInfo {
  std::string id;  // "opencl:P:D", 0-based in loader order
  int platformIndex = 0, deviceIndex = 0;
  std::string platform, name, vendor, driverVersion, version;
  int64_t computeUnits = 0, globalMemBytes = 0, maxAllocBytes = 0, maxWorkGroupSize = 0, localMemBytes = 0;
  bool fp64 = false;
  bool gpu = false;  // CL_DEVICE_TYPE_GPU
  bool cpu = false;  // CL_DEVICE_TYPE_CPU
  bool hostUnified = false;  // CL_DEVICE_HOST_UNIFIED_MEMORY
  // Its buffers can live in host memory (a CPU device, or one that says it shares host memory):
  // the runtime probes that a buffer over host memory maps to the same bytes before relying on it.
  bool hostVisible() const { return cpu || hostUnified; }
  std::string extensions;   // CL_DEVICE_EXTENSIONS
  std::string fingerprint;  // platform | name | driver | compute units
  DeviceLimits limits() const;
};

// A device buffer; released when the last handle goes.
class OpenCLBuffer {
 public:
  OpenCLBuffer() = default;
  std::size_t bytes() const { return bytes_; }
  void* handle() const;  // the cl_mem
  explicit operator bool() const { return static_cast<bool>(mem_); }

 private:
  friend class OpenCLDevice;
  std::shared_ptr<void> mem_;
  std::size_t bytes_ = 0;
};

// A queued command's profiling event; released when the last handle goes.
class OpenCLEvent {
 public:
  OpenCLEvent() = default;
  explicit operator bool() const { return static_cast<bool>(ev_); }
  // Device time from start to end in ns; call after the command finished (0 if it never ran).
  uint64_t ns() const;
  // Negative when the command failed (an OpenCL error code), 0 when it completed.
  int status() const;

 private:
  friend class OpenCLDevice;
  std::shared_ptr<void> ev_;
};

// A LoweredKernel built for a device: one cl_kernel per launch.
struct OpenCLKernel {
  LoweredKernel lowered;
  std::string prefix;
  std::vector<std::shared_ptr<void>> launches;  // cl_kernel
  std::shared_ptr<void> program;                // keeps the cl_program alive
};

class OpenCLDevice {
 public:
  // Every device of every platform the ICD loader finds (empty when none; never throws).
  static std::vector<OpenCLDeviceInfo> enumerate();
  // Opens `opencl:P:D`; throws ks::Error (Device) when it does not exist or cannot be set up.
  static std::unique_ptr<OpenCLDevice> open(int platform, int device);
  static std::unique_ptr<OpenCLDevice> open(const std::string& id);
  ~OpenCLDevice();
  OpenCLDevice(const OpenCLDevice&) = delete;
  OpenCLDevice& operator=(const OpenCLDevice&) = delete;

  const OpenCLDeviceInfo& info() const { return info_; }

  // Throws ks::Error (Allocation) naming the size and the driver's error.
  OpenCLBuffer alloc(std::size_t bytes);
  // A buffer over `bytes` of host memory at `host` (CL_MEM_USE_HOST_PTR; aligned to
  // kHostAlignment): on a host-visible device kernels read and write those bytes in place. The
  // memory must outlive the buffer.
  OpenCLBuffer wrap(void* host, std::size_t bytes);
  // Whether mapping a wrapped buffer gives back its own host memory (no copy behind the map).
  bool mapsInPlace(const OpenCLBuffer& b, void* host);
  void write(const OpenCLBuffer& b, const void* data, std::size_t bytes);
  void read(const OpenCLBuffer& b, void* data, std::size_t bytes);

  // Builds one program from `source`; throws ks::Error (Build) whose message holds the build log
  // verbatim. Returns the cl_program.
  std::shared_ptr<void> buildProgram(const std::string& source, const std::string& options);
  // Builds many lowered kernels as ONE program (one compiler run) and returns them in order.
  std::vector<OpenCLKernel> build(const std::vector<LoweredKernel>& kernels);

  // Runs every launch of `k` with `params` (one buffer per param, in order); allocates the
  // temporaries it needs. Returns the summed device time in ns (profiling events).
  uint64_t run(const OpenCLKernel& k, const std::vector<OpenCLBuffer>& params);
  // One raw launch; returns its device time in ns. local may be null (driver chooses).
  uint64_t launch(void* clKernel, const std::vector<const OpenCLBuffer*>& args, const int64_t global[3],
                  const int64_t local[3]);

  // Queued, non-blocking versions for an executor that waits once at the end (the in-order queue
  // keeps their order). The host memory of a write must stay untouched until it completes.
  OpenCLEvent enqueueWrite(const OpenCLBuffer& b, const void* data, std::size_t bytes);
  // A blocking read returns with `data` filled (and waits for everything queued before it).
  OpenCLEvent enqueueRead(const OpenCLBuffer& b, void* data, std::size_t bytes, bool blocking);
  // The temporaries `k` needs, allocated once by a caller that launches it many times.
  std::vector<OpenCLBuffer> allocTemps(const OpenCLKernel& k);
  // Queues every launch of `k`; one event per launch that has work.
  std::vector<OpenCLEvent> enqueue(const OpenCLKernel& k, const std::vector<OpenCLBuffer>& params,
                                   const std::vector<OpenCLBuffer>& temps);
  // Waits for everything queued; throws ks::Error (Launch) when the queue reports a failure.
  void finish();

  // Convenience for tests and the CLI: copies host tensors in, runs, copies ReadWrite params back.
  uint64_t runOnHost(const OpenCLKernel& k, std::vector<HostTensor>& buffers);

 private:
  OpenCLDevice() = default;
  OpenCLDeviceInfo info_;
  void* context_ = nullptr;
  void* queue_ = nullptr;
  void* device_ = nullptr;
  std::mutex mutex_;  // one queue, one set of kernel arguments at a time
};

}  // namespace ks
