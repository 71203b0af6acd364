// Device tests need an OpenCL platform. Where none is present they skip, except under ctest, which
// sets KS_REQUIRE_OPENCL=1: CI always has PoCL, so there a missing platform fails the suite instead
// of turning every device test into a silent skip.
#pragma once
#include <QtTest>

#include <cstdlib>
#include <cstring>

inline bool openclRequired() {
  const char* v = std::getenv("KS_REQUIRE_OPENCL");
  return v && std::strcmp(v, "1") == 0;
}

// In a test function (or initTestCase) that found no OpenCL device.
#define KS_SKIP_WITHOUT_OPENCL()                                                                    \
  do {                                                                                              \
    if (openclRequired()) QFAIL("no OpenCL device, and KS_REQUIRE_OPENCL=1 says there must be one"); \
    QSKIP("no OpenCL device");                                                                    \
  } while (0)
