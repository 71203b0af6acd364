// Outputs holding NaN: min and max skip NaN values (NaN when all are), the mean is NaN when any
// is, and a session with such outputs saves and loads with the values and statistics intact
// (JSON has no NaN: they are written as "nan").
#include <QtTest>

#include <cmath>

#include "engine/io/program_source.h"
#include "engine/session/session.h"

using namespace ks;

namespace {
HostTensor vec(const std::vector<double>& v) {
  HostTensor t(DType::F32, {static_cast<int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) t.setDouble(static_cast<int64_t>(i), v[i]);
  return t;
}
const OutputValue& runLog(Session& s, const std::vector<double>& x) { return s.run({{"x", vec(x)}}, false).outputs.at(0); }
Session logSession() {
  SessionOptions o;
  o.devices = "host";
  o.cache = "none";
  return Session(parseKs("input x: f32[4]\ny = log(x)\noutput y\n", "log.ks"), o);
}
}  // namespace

class TestNanOutputs : public QObject {
  Q_OBJECT
 private slots:
  void allNan() {
    Session s = logSession();
    const OutputValue& o = runLog(s, {-1, -2, -3, NAN});
    QVERIFY(std::isnan(o.min) && std::isnan(o.max) && std::isnan(o.mean));
  }

  void someNan() {
    Session s = logSession();
    const OutputValue& o = runLog(s, {-1, 1, std::exp(2.0), -4});  // log: nan, 0, 2, nan
    QCOMPARE(o.min, 0.0);
    QVERIFY(std::abs(o.max - 2.0) < 1e-6);
    QVERIFY(std::isnan(o.mean));
    const OutputValue& clean = runLog(s, {1, 1, std::exp(2.0), std::exp(1.0)});
    QVERIFY(std::abs(clean.mean - 0.75) < 1e-6);
  }

  void sessionRoundTripKeepsNanAndInfinity() {
    Session s = logSession();
    runLog(s, {-1, 0, 1, -2});  // nan, -inf, 0, nan
    const Session back = Session::fromJson(s.toJson(), "nan.kss.json");
    const OutputValue& o = back.runs().at(0).outputs.at(0);
    QVERIFY(std::isnan(o.value.getDouble(0)));
    QVERIFY(std::isinf(o.value.getDouble(1)) && o.value.getDouble(1) < 0);
    QCOMPARE(o.value.getDouble(2), 0.0);
    QVERIFY(std::isinf(o.min) && o.min < 0);
    QCOMPARE(o.max, 0.0);
    QVERIFY(std::isnan(o.mean));
  }
};

QTEST_APPLESS_MAIN(TestNanOutputs)
#include "test_nan_outputs.moc"
