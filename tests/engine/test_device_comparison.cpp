// DeviceComparison on hand-built entries (every expected figure worked out by hand below), the
// per-step medians of a real host session run three times, and measured host peaks.
#include <QTest>
#include <sstream>

#include "engine/devices/device_peaks.h"
#include "engine/io/program_source.h"
#include "engine/session/device_comparison.h"

using namespace ks;

namespace {
StepTiming step(const std::string& label, const std::string& device, const std::string& kind, double ns,
                double gflops = 0, double gbps = 0) {
  return StepTiming{label, device, kind, ns, gflops, gbps};
}
DeviceInfo dev(const std::string& name, DeviceKind k, double gbs, double gflops) {
  DeviceInfo d;
  d.name = name;
  d.kind = k;
  d.peakGBs = gbs;
  d.peakGflops = gflops;
  return d;
}

// host: 1000 ns in one reference step. opencl: copy 100 ns at 1 GB/s, k0 200 ns (2 GFLOP/s,
// 4 GB/s), k1 100 ns (1 GFLOP/s, 10 GB/s), copy 50 ns at 2 GB/s; total 450. opencl+openblas:
// a gemm 50 ns, k1 80 ns (1.25 GFLOP/s, 12.5 GB/s); total 130.
DeviceComparison handBuilt() {
  DeviceComparison c;
  ComparisonEntry host{"host", {dev("host", DeviceKind::Host, 10, 4)}, {}, 1, 0, "", {}};
  host.run.steps = {step("reference executor (node by node)", "host", "host", 1000)};
  host.run.totalNs = 1000;
  ComparisonEntry ocl{"opencl:0:0", {dev("opencl:0:0", DeviceKind::OpenCL, 20, 100)}, {}, 1, 0, "", {}};
  ocl.run.steps = {step("copy %1 -> opencl:0:0", "opencl:0:0", "copy", 100, 0, 1),
                   step("kernel k0 on opencl:0:0", "opencl:0:0", "launch", 200, 2, 4),
                   step("kernel k1 on opencl:0:0", "opencl:0:0", "launch", 100, 1, 10),
                   step("copy %9 -> host", "host", "copy", 50, 0, 2)};
  ocl.run.totalNs = 450;
  ComparisonEntry blas{"opencl:0:0,openblas",
                       {dev("opencl:0:0", DeviceKind::OpenCL, 20, 100), dev("openblas", DeviceKind::OpenBlas, 10, 50)}, {}, 1, 0, "", {}};
  blas.run.steps = {step("sgemm 4x4x4 batch 1 on openblas", "openblas", "gemm", 50),
                    step("kernel k1 on opencl:0:0", "opencl:0:0", "launch", 80, 1.25, 12.5)};
  blas.run.totalNs = 130;
  c.add(host);
  c.add(ocl);
  c.add(blas);
  return c;
}

const ComparisonRow& rowNamed(const std::vector<ComparisonRow>& rows, const std::string& label) {
  for (const ComparisonRow& r : rows)
    if (r.label == label) return r;
  throw std::runtime_error("no row " + label);
}
}  // namespace

class TestDeviceComparison : public QObject {
  Q_OBJECT
 private slots:
  void labels() {
    QCOMPARE(comparisonLabel(step("kernel k3 on opencl:0:0", "opencl:0:0", "launch", 1)), std::string("kernel k3"));
    QCOMPARE(comparisonLabel(step("reference executor (node by node)", "host", "host", 1)),
             std::string("reference executor (node by node)"));
    const std::vector<DeviceInfo> found{dev("host", DeviceKind::Host, 0, 0), dev("opencl:0:0", DeviceKind::OpenCL, 0, 0),
                                        dev("opencl:1:0", DeviceKind::OpenCL, 0, 0), dev("openblas", DeviceKind::OpenBlas, 0, 0)};
    QCOMPARE(comparisonSelections(found), (std::vector<std::string>{"host", "opencl:0:0", "opencl:0:0,openblas", "opencl:1:0",
                                                                    "opencl:1:0,openblas"}));
  }

  void rowsAgainstSlowest() {
    const DeviceComparison c = handBuilt();
    QCOMPARE(c.baseline(), 0);  // host, 1000 ns
    QCOMPARE(c.baseline("opencl:0:0"), 1);
    QCOMPARE(c.baseline("nonexistent"), 0);
    const auto rows = c.rows();
    QCOMPARE(rows.size(), std::size_t(6));  // reference, k0, k1, sgemm, copies, total
    QCOMPARE(rows[0].label, std::string("reference executor (node by node)"));
    QCOMPARE(rows[1].label, std::string("kernel k0"));
    QCOMPARE(rows[2].label, std::string("kernel k1"));
    QCOMPARE(rows[3].label, std::string("sgemm 4x4x4 batch 1"));
    QCOMPARE(rows[4].label, std::string("copies"));
    QCOMPARE(rows[5].label, std::string("total"));
    const ComparisonRow& total = rows[5];
    QCOMPARE(total.cells[0].speedup, 1.0);
    QCOMPARE(total.cells[1].speedup, 1000.0 / 450);
    QCOMPARE(total.cells[2].speedup, 1000.0 / 130);
    QCOMPARE(total.cells[2].device, std::string("opencl:0:0+openblas"));
    // k0 exists only on opencl: it is its own slowest (1.0); 400 FLOP in 200 ns = 2 GFLOP/s,
    // 2% of 100; 800 bytes in 200 ns = 4 GB/s, 20% of 20.
    const ComparisonCell& k0 = rowNamed(rows, "kernel k0").cells[1];
    QVERIFY(k0.present);
    QCOMPARE(k0.speedup, 1.0);
    // k1: 100 ns on opencl (the slowest of the row), 80 with openblas beside it.
    QCOMPARE(rowNamed(rows, "kernel k1").cells[1].speedup, 1.0);
    QCOMPARE(rowNamed(rows, "kernel k1").cells[2].speedup, 100.0 / 80);
    QCOMPARE(rowNamed(rows, "copies").cells[1].speedup, 1.0);
    QCOMPARE(k0.gflops, 2.0);
    QCOMPARE(k0.peakGflopsPct, 2.0);
    QCOMPARE(k0.gbps, 4.0);
    QCOMPARE(k0.peakGBsPct, 20.0);
    QVERIFY(!rowNamed(rows, "kernel k0").cells[0].present);
    QVERIFY(!rowNamed(rows, "kernel k0").cells[2].present);
    // copies: 150 ns, 100 + 100 bytes; no % of peak for copies.
    const ComparisonCell& cp = rowNamed(rows, "copies").cells[1];
    QCOMPARE(cp.ns, 150.0);
    QVERIFY(qAbs(cp.gbps - 200.0 / 150) < 1e-12);
    QCOMPARE(cp.peakGBsPct, 0.0);
    QVERIFY(!rowNamed(rows, "copies").cells[2].present);
    // total of opencl: launches' 400 + 100 FLOP and 800 + 1000 bytes (copies not counted) in 450 ns.
    QVERIFY(qAbs(total.cells[1].gflops - 500.0 / 450) < 1e-12);
    QVERIFY(qAbs(total.cells[1].gbps - 1800.0 / 450) < 1e-12);
  }

  void rowsAgainstChosenBaseline() {
    const auto rows = handBuilt().rows("opencl:0:0,openblas");
    const ComparisonRow& k1 = rowNamed(rows, "kernel k1");
    QCOMPARE(k1.cells[1].speedup, 80.0 / 100);
    QCOMPARE(k1.cells[2].speedup, 1.0);
    QCOMPARE(rowNamed(rows, "total").cells[0].speedup, 130.0 / 1000);
    // k0 never ran with openblas: no speed-ups on its row against that selection.
    QCOMPARE(rowNamed(rows, "kernel k0").cells[1].speedup, 0.0);
    // Against host: only the reference row and the total have a host cell.
    const auto vsHost = handBuilt().rows("host");
    QCOMPARE(rowNamed(vsHost, "kernel k1").cells[1].speedup, 0.0);
    QCOMPARE(rowNamed(vsHost, "total").cells[1].speedup, 1000.0 / 450);
  }

  void addReplacesSameSelection() {
    DeviceComparison c = handBuilt();
    ComparisonEntry slower = c.entries[0];
    slower.run.totalNs = 2000;
    c.add(slower);
    QCOMPARE(c.entries.size(), std::size_t(3));
    QCOMPARE(c.find("host")->run.totalNs, 2000.0);
    QCOMPARE(rowNamed(c.rows(), "total").cells[1].speedup, 2000.0 / 450);
    // A failed entry takes no part: not a baseline, no cells.
    ComparisonEntry failed;
    failed.selection = "opencl:9:9";
    failed.error = "no such device";
    c.add(failed);
    QCOMPARE(c.baseline(), 0);
    QVERIFY(!rowNamed(c.rows(), "total").cells[3].present);
  }

  void csvRows() {
    const DeviceComparison c = handBuilt();
    std::istringstream is(c.csv());
    std::vector<std::string> lines;
    for (std::string l; std::getline(is, l);) lines.push_back(l);
    QCOMPARE(lines.size(), std::size_t(7));  // header + 6 rows
    QVERIFY(lines[0].rfind("kernel,kind,host time_us,host speedup,", 0) == 0);
    QCOMPARE(lines[6].substr(0, 17), std::string("total,total,1.000"));
    // 2 + 3 entries x 7 fields on every line; "opencl:0:0,openblas ..." headers are quoted.
    QVERIFY(lines[0].find("\"opencl:0:0,openblas time_us\"") != std::string::npos);
    for (const std::string& l : lines) {
      int fields = 1;
      bool quoted = false;
      for (char ch : l) {
        if (ch == '"') quoted = !quoted;
        if (ch == ',' && !quoted) ++fields;
      }
      QCOMPARE(fields, 2 + 3 * 7);
    }
  }

  void entryOfSessionIsStepMedian() {
    SessionOptions o;
    o.cache = "none";
    o.devices = "host";
    Session s(loadProgramFile(std::string(KS_SOURCE_DIR) + "/samples/softmax.ks"), o);
    for (int i = 0; i < 3; ++i) s.run({}, i == 0);
    std::vector<double> totals;
    for (const RunRecord& r : s.runs()) totals.push_back(r.totalNs);
    std::sort(totals.begin(), totals.end());
    const ComparisonEntry e = comparisonEntryOf(s, "host");
    QCOMPARE(e.repeats, 3);
    QCOMPARE(e.run.totalNs, totals[1]);
    QCOMPARE(e.run.steps.size(), std::size_t(1));
    QCOMPARE(e.run.steps[0].ns, totals[1]);  // the host run is one step as long as the run
    QVERIFY(e.run.verified && e.run.verifyPassed);
    QCOMPARE(e.devices.size(), std::size_t(1));
    // Measured host peaks: a memcpy is neither free nor faster than ~1 TB/s on one core.
    QVERIFY2(e.devices[0].peakGBs > 0.1 && e.devices[0].peakGBs < 1000, std::to_string(e.devices[0].peakGBs).c_str());
    QVERIFY(e.devices[0].peakGflops > 0.1 && e.devices[0].peakGflops < 1000);
    // Remembered: the same figures the second time.
    const DevicePeaks again = measurePeaks(e.devices[0]);
    QCOMPARE(again.gbs, e.devices[0].peakGBs);
  }
};

QTEST_MAIN(TestDeviceComparison)
#include "test_device_comparison.moc"
