// OpenCL devices through the C API and the ICD loader.
#include "engine/devices/opencl_device.h"

#include <CL/cl.h>

#include <algorithm>

#include "engine/codegen/opencl_emitter.h"
#include "engine/core/error.h"

namespace ks {

namespace {
std::string clErr(cl_int e) {
  switch (e) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform)";
    default: return "OpenCL error " + std::to_string(e);
  }
}

void check(cl_int e, ErrorCode code, const std::string& what) {
  if (e != CL_SUCCESS) throw Error(code, what + ": " + clErr(e));
}

std::string platformStr(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  clGetPlatformInfo(p, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
std::string deviceStr(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  clGetDeviceInfo(d, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
template <class T>
T deviceVal(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof v, &v, nullptr);
  return v;
}

std::vector<cl_platform_id> platforms() {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_platform_id> ps(n);
  clGetPlatformIDs(n, ps.data(), nullptr);
  return ps;
}
std::vector<cl_device_id> devices(cl_platform_id p) {
  cl_uint n = 0;
  if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_device_id> ds(n);
  clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ds.data(), nullptr);
  return ds;
}

OpenCLDeviceInfo describe(cl_platform_id p, cl_device_id d, int pi, int di) {
  OpenCLDeviceInfo i;
  i.id = "opencl:" + std::to_string(pi) + ":" + std::to_string(di);
  i.platformIndex = pi, i.deviceIndex = di;
  i.platform = platformStr(p, CL_PLATFORM_NAME);
  i.name = deviceStr(d, CL_DEVICE_NAME);
  i.vendor = deviceStr(d, CL_DEVICE_VENDOR);
  i.driverVersion = deviceStr(d, CL_DRIVER_VERSION);
  i.version = deviceStr(d, CL_DEVICE_VERSION);
  i.computeUnits = deviceVal<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
  i.globalMemBytes = static_cast<int64_t>(deviceVal<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE));
  i.maxAllocBytes = static_cast<int64_t>(deviceVal<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  i.maxWorkGroupSize = static_cast<int64_t>(deviceVal<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  i.localMemBytes = static_cast<int64_t>(deviceVal<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE));
  i.extensions = deviceStr(d, CL_DEVICE_EXTENSIONS);
  i.fp64 = i.extensions.find("cl_khr_fp64") != std::string::npos;
  i.gpu = (deviceVal<cl_device_type>(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
  i.cpu = (deviceVal<cl_device_type>(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) != 0;
  i.hostUnified = deviceVal<cl_bool>(d, CL_DEVICE_HOST_UNIFIED_MEMORY) == CL_TRUE;
  i.fingerprint = i.platform + " | " + i.name + " | " + i.driverVersion + " | " + std::to_string(i.computeUnits) + " CU";
  return i;
}

void releaseMem(void* m) {
  if (m) clReleaseMemObject(static_cast<cl_mem>(m));
}
void releaseKernel(void* k) {
  if (k) clReleaseKernel(static_cast<cl_kernel>(k));
}
void releaseProgram(void* p) {
  if (p) clReleaseProgram(static_cast<cl_program>(p));
}
void releaseEvent(void* e) {
  if (e) clReleaseEvent(static_cast<cl_event>(e));
}
}  // namespace

DeviceLimits OpenCLDeviceInfo::limits() const {
  DeviceLimits l;
  l.maxWorkGroupSize = maxWorkGroupSize;
  l.localMemBytes = localMemBytes;
  l.computeUnits = computeUnits;
  l.fp64 = fp64;
  l.gpu = gpu;
  return l;
}

void* OpenCLBuffer::handle() const { return mem_.get(); }

uint64_t OpenCLEvent::ns() const {
  if (!ev_) return 0;
  cl_event ev = static_cast<cl_event>(ev_.get());
  cl_ulong start = 0, end = 0;
  if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) != CL_SUCCESS) return 0;
  if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) != CL_SUCCESS) return 0;
  return end > start ? end - start : 0;
}

int OpenCLEvent::status() const {
  if (!ev_) return 0;
  cl_int st = CL_COMPLETE;
  clGetEventInfo(static_cast<cl_event>(ev_.get()), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
  return st < 0 ? st : 0;
}

std::vector<OpenCLDeviceInfo> OpenCLDevice::enumerate() {
  std::vector<OpenCLDeviceInfo> out;
  const auto ps = platforms();
  for (std::size_t pi = 0; pi < ps.size(); ++pi) {
    const auto ds = devices(ps[pi]);
    for (std::size_t di = 0; di < ds.size(); ++di)
      out.push_back(describe(ps[pi], ds[di], static_cast<int>(pi), static_cast<int>(di)));
  }
  return out;
}

std::unique_ptr<OpenCLDevice> OpenCLDevice::open(const std::string& id) {
  int p = -1, d = -1;
  if (std::sscanf(id.c_str(), "opencl:%d:%d", &p, &d) != 2)
    throw Error(ErrorCode::Device, "'" + id + "' is not an OpenCL device name (opencl:P:D)");
  return open(p, d);
}

std::unique_ptr<OpenCLDevice> OpenCLDevice::open(int platform, int device) {
  const std::string id = "opencl:" + std::to_string(platform) + ":" + std::to_string(device);
  const auto ps = platforms();
  if (platform < 0 || platform >= static_cast<int>(ps.size()))
    throw Error(ErrorCode::Device, "no OpenCL device " + id + " (" + std::to_string(ps.size()) + " platforms found)");
  const auto ds = devices(ps[platform]);
  if (device < 0 || device >= static_cast<int>(ds.size()))
    throw Error(ErrorCode::Device, "no OpenCL device " + id + " (platform has " + std::to_string(ds.size()) + " devices)");
  std::unique_ptr<OpenCLDevice> dev(new OpenCLDevice());
  dev->info_ = describe(ps[platform], ds[device], platform, device);
  cl_device_id did = ds[device];
  dev->device_ = did;
  cl_int e = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &did, nullptr, nullptr, &e);
  check(e, ErrorCode::Device, id + ": clCreateContext");
  dev->context_ = ctx;
  cl_command_queue q = clCreateCommandQueue(ctx, did, CL_QUEUE_PROFILING_ENABLE, &e);
  check(e, ErrorCode::Device, id + ": clCreateCommandQueue");
  dev->queue_ = q;
  return dev;
}

OpenCLDevice::~OpenCLDevice() {
  if (queue_) {
    clFinish(static_cast<cl_command_queue>(queue_));
    clReleaseCommandQueue(static_cast<cl_command_queue>(queue_));
  }
  if (context_) clReleaseContext(static_cast<cl_context>(context_));
}

OpenCLBuffer OpenCLDevice::alloc(std::size_t bytes) {
  cl_int e = CL_SUCCESS;
  const std::size_t n = std::max<std::size_t>(bytes, 4);  // zero-size buffers are invalid in OpenCL
  if (static_cast<int64_t>(n) > info_.maxAllocBytes && info_.maxAllocBytes > 0)
    throw Error(ErrorCode::Allocation, info_.id + ": cannot allocate " + std::to_string(bytes) +
                                           " bytes (the device allows at most " + std::to_string(info_.maxAllocBytes) +
                                           " per buffer)");
  cl_mem m = clCreateBuffer(static_cast<cl_context>(context_), CL_MEM_READ_WRITE, n, nullptr, &e);
  check(e, ErrorCode::Allocation, info_.id + ": allocating " + std::to_string(bytes) + " bytes");
  OpenCLBuffer b;
  b.mem_ = std::shared_ptr<void>(m, releaseMem);
  b.bytes_ = bytes;
  return b;
}

OpenCLBuffer OpenCLDevice::wrap(void* host, std::size_t bytes) {
  cl_int e = CL_SUCCESS;
  const std::size_t n = std::max<std::size_t>(bytes, 4);
  cl_mem m = clCreateBuffer(static_cast<cl_context>(context_), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n, host, &e);
  check(e, ErrorCode::Allocation, info_.id + ": a buffer over " + std::to_string(bytes) + " bytes of host memory");
  OpenCLBuffer b;
  b.mem_ = std::shared_ptr<void>(m, releaseMem);
  b.bytes_ = bytes;
  return b;
}

bool OpenCLDevice::mapsInPlace(const OpenCLBuffer& b, void* host) {
  std::lock_guard<std::mutex> lock(mutex_);
  cl_int e = CL_SUCCESS;
  cl_command_queue q = static_cast<cl_command_queue>(queue_);
  void* p = clEnqueueMapBuffer(q, static_cast<cl_mem>(b.handle()), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                               std::max<std::size_t>(b.bytes(), 4), 0, nullptr, nullptr, &e);
  if (e != CL_SUCCESS) return false;
  clEnqueueUnmapMemObject(q, static_cast<cl_mem>(b.handle()), p, 0, nullptr, nullptr);
  clFinish(q);
  return p == host;
}

void OpenCLDevice::write(const OpenCLBuffer& b, const void* data, std::size_t bytes) {
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  check(clEnqueueWriteBuffer(static_cast<cl_command_queue>(queue_), static_cast<cl_mem>(b.handle()), CL_TRUE, 0,
                             bytes, data, 0, nullptr, nullptr),
        ErrorCode::Device, info_.id + ": writing a buffer");
}

void OpenCLDevice::read(const OpenCLBuffer& b, void* data, std::size_t bytes) {
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  check(clEnqueueReadBuffer(static_cast<cl_command_queue>(queue_), static_cast<cl_mem>(b.handle()), CL_TRUE, 0, bytes,
                            data, 0, nullptr, nullptr),
        ErrorCode::Device, info_.id + ": reading a buffer");
}

std::shared_ptr<void> OpenCLDevice::buildProgram(const std::string& source, const std::string& options) {
  std::lock_guard<std::mutex> lock(mutex_);
  cl_int e = CL_SUCCESS;
  const char* src = source.c_str();
  const std::size_t len = source.size();
  cl_program p = clCreateProgramWithSource(static_cast<cl_context>(context_), 1, &src, &len, &e);
  check(e, ErrorCode::Build, info_.id + ": clCreateProgramWithSource");
  std::shared_ptr<void> prog(p, releaseProgram);
  cl_device_id d = static_cast<cl_device_id>(device_);
  e = clBuildProgram(p, 1, &d, options.c_str(), nullptr, nullptr);
  if (e != CL_SUCCESS) {
    std::size_t n = 0;
    clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    while (!log.empty() && log.back() == '\0') log.pop_back();
    throw Error(ErrorCode::Build, info_.id + ": kernel build failed (" + clErr(e) + "). Build log:\n" + log);
  }
  return prog;
}

std::vector<OpenCLKernel> OpenCLDevice::build(const std::vector<LoweredKernel>& kernels) {
  bool fp64 = false;
  for (const LoweredKernel& k : kernels) fp64 = fp64 || k.needsFp64;
  if (fp64 && !info_.fp64) throw Error(ErrorCode::Unsupported, info_.id + " has no cl_khr_fp64 for an f64 kernel");
  std::string src = openclPrelude(fp64);
  std::vector<OpenCLKernel> out(kernels.size());
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    out[i].lowered = kernels[i];
    out[i].prefix = "ks" + std::to_string(i);
    src += emitOpenCLKernels(kernels[i], out[i].prefix);
  }
  std::shared_ptr<void> prog = buildProgram(src, openclBuildOptions());
  std::lock_guard<std::mutex> lock(mutex_);
  for (OpenCLKernel& k : out) {
    k.program = prog;
    for (std::size_t l = 0; l < k.lowered.launches.size(); ++l) {
      cl_int e = CL_SUCCESS;
      const std::string name = openclKernelName(k.prefix, l);
      cl_kernel ck = clCreateKernel(static_cast<cl_program>(prog.get()), name.c_str(), &e);
      check(e, ErrorCode::Build, info_.id + ": clCreateKernel " + name);
      k.launches.push_back(std::shared_ptr<void>(ck, releaseKernel));
    }
  }
  return out;
}

uint64_t OpenCLDevice::launch(void* clKernel, const std::vector<const OpenCLBuffer*>& args, const int64_t global[3],
                              const int64_t local[3]) {
  std::lock_guard<std::mutex> lock(mutex_);
  cl_kernel k = static_cast<cl_kernel>(clKernel);
  for (std::size_t i = 0; i < args.size(); ++i) {
    cl_mem m = static_cast<cl_mem>(args[i]->handle());
    check(clSetKernelArg(k, static_cast<cl_uint>(i), sizeof(cl_mem), &m), ErrorCode::Launch,
          info_.id + ": setting argument " + std::to_string(i));
  }
  std::size_t g[3], lsz[3];
  bool hasLocal = local && local[0] > 0;
  for (int a = 0; a < 3; ++a) {
    g[a] = static_cast<std::size_t>(global[a]);
    lsz[a] = hasLocal ? static_cast<std::size_t>(local[a]) : 1;
    if (g[a] == 0) return 0;  // empty grid: nothing to do
  }
  cl_event ev = nullptr;
  check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue_), k, 3, nullptr, g, hasLocal ? lsz : nullptr, 0,
                               nullptr, &ev),
        ErrorCode::Launch, info_.id + ": clEnqueueNDRangeKernel");
  const cl_int w = clWaitForEvents(1, &ev);
  cl_ulong start = 0, end = 0;
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
  clReleaseEvent(ev);
  check(w, ErrorCode::Launch, info_.id + ": kernel execution");
  return end > start ? end - start : 0;
}

uint64_t OpenCLDevice::run(const OpenCLKernel& k, const std::vector<OpenCLBuffer>& params) {
  if (params.size() != k.lowered.params.size())
    throw Error(ErrorCode::Usage, "kernel " + k.lowered.name + " takes " + std::to_string(k.lowered.params.size()) +
                                      " buffers, got " + std::to_string(params.size()));
  std::vector<OpenCLBuffer> temps;
  for (const LTemp& t : k.lowered.temps) temps.push_back(alloc(static_cast<std::size_t>(t.numel) * dtypeSize(t.dtype)));
  std::vector<const OpenCLBuffer*> args;
  for (const OpenCLBuffer& b : params) args.push_back(&b);
  for (const OpenCLBuffer& b : temps) args.push_back(&b);
  uint64_t ns = 0;
  for (std::size_t l = 0; l < k.launches.size(); ++l)
    ns += launch(k.launches[l].get(), args, k.lowered.launches[l].global, k.lowered.launches[l].local);
  return ns;
}

OpenCLEvent OpenCLDevice::enqueueWrite(const OpenCLBuffer& b, const void* data, std::size_t bytes) {
  OpenCLEvent out;
  if (bytes == 0) return out;
  std::lock_guard<std::mutex> lock(mutex_);
  cl_event ev = nullptr;
  check(clEnqueueWriteBuffer(static_cast<cl_command_queue>(queue_), static_cast<cl_mem>(b.handle()), CL_FALSE, 0,
                             bytes, data, 0, nullptr, &ev),
        ErrorCode::Device, info_.id + ": writing a buffer");
  out.ev_ = std::shared_ptr<void>(ev, releaseEvent);
  return out;
}

OpenCLEvent OpenCLDevice::enqueueRead(const OpenCLBuffer& b, void* data, std::size_t bytes, bool blocking) {
  OpenCLEvent out;
  if (bytes == 0) return out;
  std::lock_guard<std::mutex> lock(mutex_);
  cl_event ev = nullptr;
  check(clEnqueueReadBuffer(static_cast<cl_command_queue>(queue_), static_cast<cl_mem>(b.handle()),
                            blocking ? CL_TRUE : CL_FALSE, 0, bytes, data, 0, nullptr, &ev),
        ErrorCode::Device, info_.id + ": reading a buffer");
  out.ev_ = std::shared_ptr<void>(ev, releaseEvent);
  return out;
}

std::vector<OpenCLBuffer> OpenCLDevice::allocTemps(const OpenCLKernel& k) {
  std::vector<OpenCLBuffer> temps;
  for (const LTemp& t : k.lowered.temps) temps.push_back(alloc(static_cast<std::size_t>(t.numel) * dtypeSize(t.dtype)));
  return temps;
}

std::vector<OpenCLEvent> OpenCLDevice::enqueue(const OpenCLKernel& k, const std::vector<OpenCLBuffer>& params,
                                               const std::vector<OpenCLBuffer>& temps) {
  if (params.size() != k.lowered.params.size() || temps.size() != k.lowered.temps.size())
    throw Error(ErrorCode::Usage, "kernel " + k.lowered.name + " takes " + std::to_string(k.lowered.params.size()) +
                                      " buffers and " + std::to_string(k.lowered.temps.size()) + " temporaries, got " +
                                      std::to_string(params.size()) + " and " + std::to_string(temps.size()));
  std::vector<OpenCLEvent> events;
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t l = 0; l < k.launches.size(); ++l) {
    const LoweredLaunch& spec = k.lowered.launches[l];
    std::size_t g[3], lsz[3];
    const bool hasLocal = spec.local[0] > 0;
    bool empty = false;
    for (int a = 0; a < 3; ++a) {
      g[a] = static_cast<std::size_t>(spec.global[a]);
      lsz[a] = hasLocal ? static_cast<std::size_t>(spec.local[a]) : 1;
      empty = empty || g[a] == 0;
    }
    if (empty) continue;
    cl_kernel ck = static_cast<cl_kernel>(k.launches[l].get());
    cl_uint arg = 0;
    for (const auto* list : {&params, &temps})
      for (const OpenCLBuffer& b : *list) {
        cl_mem m = static_cast<cl_mem>(b.handle());
        check(clSetKernelArg(ck, arg, sizeof(cl_mem), &m), ErrorCode::Launch, info_.id + ": setting argument " + std::to_string(arg));
        ++arg;
      }
    cl_event ev = nullptr;
    check(clEnqueueNDRangeKernel(static_cast<cl_command_queue>(queue_), ck, 3, nullptr, g, hasLocal ? lsz : nullptr, 0,
                                 nullptr, &ev),
          ErrorCode::Launch, info_.id + ": clEnqueueNDRangeKernel");
    OpenCLEvent e;
    e.ev_ = std::shared_ptr<void>(ev, releaseEvent);
    events.push_back(std::move(e));
  }
  return events;
}

void OpenCLDevice::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  check(clFinish(static_cast<cl_command_queue>(queue_)), ErrorCode::Launch, info_.id + ": waiting for the queue");
}

uint64_t OpenCLDevice::runOnHost(const OpenCLKernel& k, std::vector<HostTensor>& buffers) {
  if (buffers.size() != k.lowered.params.size())
    throw Error(ErrorCode::Usage, "kernel " + k.lowered.name + " takes " + std::to_string(k.lowered.params.size()) +
                                      " buffers, got " + std::to_string(buffers.size()));
  std::vector<OpenCLBuffer> bufs;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const LParam& p = k.lowered.params[i];
    if (buffers[i].dtype() != p.dtype || buffers[i].numel() != p.numel)
      throw Error(ErrorCode::Usage, "buffer " + std::to_string(i) + " does not match kernel param " + std::to_string(i));
    bufs.push_back(alloc(buffers[i].byteSize()));
    write(bufs.back(), buffers[i].bytes(), buffers[i].byteSize());
  }
  const uint64_t ns = run(k, bufs);
  for (std::size_t i = 0; i < buffers.size(); ++i)
    if (k.lowered.params[i].kind == ParamKind::ReadWrite) read(bufs[i], buffers[i].bytes(), buffers[i].byteSize());
  return ns;
}

}  // namespace ks
