// The long OpenCL sweep: every lowering case under every enumerated (Full) and option schedule on
// every OpenCL device (PoCL compiles each kernel's work-group function at first launch: minutes).
#define KS_OPENCL_TEST_NO_MAIN
#include "test_opencl.cpp"
#include "tests/require_opencl.h"

class TestLongOpenCL : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (OpenCLDevice::enumerate().empty()) KS_SKIP_WITHOUT_OPENCL();
  }
  void everyCaseEverySchedule() { TestOpenCL::sweep(true); }
};

QTEST_GUILESS_MAIN(TestLongOpenCL)
#include "test_long_opencl.moc"
