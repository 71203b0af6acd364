// A tensor too large for memory is an Error naming its dtype, shape, bytes and where it was to
// live (and which value or input it is), never a bare std::bad_alloc. The sizes are above the
// 128 TiB of a process's address space, so the allocation fails on every machine without touching
// memory.
#include <QtTest>

#include "engine/core/error.h"
#include "engine/core/host_tensor.h"
#include "engine/io/program_source.h"
#include "engine/session/session.h"

using namespace ks;

namespace {
template <class F> std::string allocationError(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code() == ErrorCode::Allocation ? e.what() : "not an allocation error: " + std::string(e.what());
  } catch (const std::exception& e) {
    return std::string("not a ks::Error: ") + e.what();
  }
  return "no error";
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
Session hostSession(const std::string& source) {
  SessionOptions o;
  o.devices = "host";
  o.cache = "none";
  return Session(parseKs(source, "big.ks"), o);
}
}  // namespace

class TestAllocationErrors : public QObject {
  Q_OBJECT
 private slots:
  void hostTensorNamesShapeAndBytes() {
    const std::string e = allocationError([] { HostTensor(DType::F32, {1 << 24, 1 << 24}); });
    QVERIFY2(has(e, "cannot allocate f32[16777216, 16777216] (1125899906842624 bytes (1.0 PiB)) in host memory"), e.c_str());
    // A shape whose element count overflows 64 bits is refused, not wrapped to a small size.
    const std::string over = allocationError([] { HostTensor(DType::F64, {int64_t(1) << 40, int64_t(1) << 40}); });
    QVERIFY2(has(over, "cannot allocate f64[1099511627776, 1099511627776]"), over.c_str());
  }

  // The host executor names the value (class and op) whose result does not fit.
  void hostExecutorNamesTheValue() {
    Session s = hostSession("input x: f32[16777216, 1]\ny = x + reshape(x, [1, 16777216])\noutput y\n");
    const std::string e = allocationError([&] { s.run({}, false); });
    QVERIFY2(has(e, "(add): cannot allocate f32[16777216, 16777216]") && has(e, "1.0 PiB") && has(e, "host memory"),
             e.c_str());
  }

  void inputsAreNamed() {
    Session s = hostSession("input big: f32[16777216, 16777216]\ny = big + big\noutput y\n");
    const std::string e = allocationError([&] { s.run({}, false); });
    QVERIFY2(has(e, "input 'big': cannot allocate f32[16777216, 16777216]"), e.c_str());
  }

  // one_hot's class table is built while the program is: the error names the op.
  void oneHotNamesTheTable() {
    const std::string e = allocationError([] { parseKs("input i: i64[4]\ny = one_hot(i, 140737488355328)\noutput y\n", "oh.ks"); });
    QVERIFY2(has(e, "cannot allocate i64[140737488355328]") && has(e, "host memory"), e.c_str());
  }
};

QTEST_APPLESS_MAIN(TestAllocationErrors)
#include "test_allocation_errors.moc"
