// PoCL's (any OpenCL device's) launch floor, not a pass/fail test: an empty kernel over one
// work-item, timed as the executor sees it (enqueue to finish, host wall), as a queue of many
// launches waited for once (wall per launch), and by the device's profiling events.
// Usage: bench_launch_floor [platform=0] [device=0] [repeat=2000]
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
using Clock = std::chrono::steady_clock;
double us(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
void check(cl_int e, const char* what) {
  if (e == CL_SUCCESS) return;
  std::fprintf(stderr, "%s failed: OpenCL error %d\n", what, e);
  std::exit(1);
}
}  // namespace

int main(int argc, char** argv) {
  const cl_uint pi = argc > 1 ? static_cast<cl_uint>(std::atoi(argv[1])) : 0;
  const cl_uint di = argc > 2 ? static_cast<cl_uint>(std::atoi(argv[2])) : 0;
  const int repeat = argc > 3 ? std::atoi(argv[3]) : 2000;
  cl_uint n = 0;
  check(clGetPlatformIDs(0, nullptr, &n), "clGetPlatformIDs");
  std::vector<cl_platform_id> ps(n);
  check(clGetPlatformIDs(n, ps.data(), nullptr), "clGetPlatformIDs");
  if (pi >= n) return std::fprintf(stderr, "no platform %u\n", pi), 1;
  check(clGetDeviceIDs(ps[pi], CL_DEVICE_TYPE_ALL, 0, nullptr, &n), "clGetDeviceIDs");
  std::vector<cl_device_id> ds(n);
  check(clGetDeviceIDs(ps[pi], CL_DEVICE_TYPE_ALL, n, ds.data(), nullptr), "clGetDeviceIDs");
  if (di >= n) return std::fprintf(stderr, "no device %u\n", di), 1;
  cl_device_id dev = ds[di];
  char name[256] = {};
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
  cl_int err = 0;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);  // OpenCL 1.2, as the engine
  check(err, "clCreateCommandQueue");
  const char* src = "__kernel void empty(__global float* p) {}";
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  check(clBuildProgram(prog, 1, &dev, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel k = clCreateKernel(prog, "empty", &err);
  check(err, "clCreateKernel");
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, nullptr, &err);
  check(err, "clCreateBuffer");
  check(clSetKernelArg(k, 0, sizeof buf, &buf), "clSetKernelArg");
  const size_t global = 1;
  std::vector<double> wall, device, queued;
  for (int r = 0; r < repeat + 20; ++r) {
    cl_event ev;
    const auto t0 = Clock::now();
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, nullptr, 0, nullptr, &ev), "clEnqueueNDRangeKernel");
    check(clFinish(q), "clFinish");
    const auto t1 = Clock::now();
    cl_ulong s = 0, e = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, nullptr);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, nullptr);
    clReleaseEvent(ev);
    if (r < 20) continue;  // warm-up
    wall.push_back(us(t0, t1));
    device.push_back(static_cast<double>(e - s) * 1e-3);
  }
  const int batch = 10;
  for (int r = 0; r < repeat / batch; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i)
      check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
    check(clFinish(q), "clFinish");
    queued.push_back(us(t0, Clock::now()) / batch);
  }
  std::printf("{\"device\": \"%s\", \"enqueue_to_finish_us\": %.2f, \"queued_per_launch_us\": %.2f, \"device_us\": %.2f, "
              "\"repeat\": %d}\n",
              name, median(wall), median(queued), median(device), repeat);
  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
