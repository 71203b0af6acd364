// The Autotune chart's data and drawing on hand-made measurements: schedules fastest first, failed
// ones listed and not drawn, each device's winner marked (the selected bar), a log axis whose floor
// sits under the fastest bar so a 0.5 us winner is visible beside a 53 ms default.
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLogValueAxis>
#include <QTest>

#include "views/autotune_chart.h"

using namespace ks;

namespace {
TuneMeasurement meas(uint32_t kernel, uint32_t device, const char* schedule, double us, TuneStatus st = TuneStatus::Ok,
                     const char* reason = "") {
  TuneMeasurement m;
  m.kernel = kernel;
  m.device = device;
  m.schedule = schedule;
  m.ns = us * 1e3;
  m.status = st;
  m.reason = reason;
  return m;
}
}  // namespace

class TestAutotuneChart : public QObject {
  Q_OBJECT
  std::vector<TuneMeasurement> ms_;
  std::vector<TuneSearch> searches_;

 private slots:
  void init() {
    ms_ = {meas(3, 0, "default", 53000), meas(3, 0, "tile16", 0.5), meas(3, 0, "tile32", 2.5),
           meas(3, 0, "vec8", 0, TuneStatus::BuildError, "error: vload8 on a float3"),
           meas(3, 1, "default", 900), meas(3, 1, "tile16", 40),
           meas(4, 0, "default", 7)};  // another kernel: ignored
    TuneSearch a;
    a.kernel = 3;
    a.device = 0;
    a.winner = "tile16";
    TuneSearch b = a;
    b.device = 1;
    b.winner = "tile16";
    searches_ = {a, b};
  }

  void dataSortedWithFailuresApart() {
    const AutotuneChartData d = autotuneChartData(ms_, searches_, 3);
    QCOMPARE(d.devices, (std::vector<uint32_t>{0, 1}));
    QCOMPARE(int(d.bars.size()), 3);
    QCOMPARE(d.bars[0].schedule, QString("tile16"));
    QCOMPARE(d.bars[1].schedule, QString("tile32"));
    QCOMPARE(d.bars[2].schedule, QString("default"));
    QCOMPARE(d.bars[0].us, (std::vector<double>{0.5, 40}));
    QCOMPARE(d.bars[1].us, (std::vector<double>{2.5, 0}));  // not measured on device 1
    QCOMPARE(d.bars[0].winnerOn, (std::vector<bool>{true, true}));
    QCOMPARE(d.bars[2].winnerOn, (std::vector<bool>{false, false}));
    QCOMPARE(int(d.failed.size()), 1);
    QCOMPARE(d.failed[0].schedule, QString("vec8"));
    QCOMPARE(d.failed[0].status, TuneStatus::BuildError);
    QCOMPARE(d.failed[0].reason, QString("error: vload8 on a float3"));
    QCOMPARE(d.minUs, 0.5);
    QCOMPARE(d.maxUs, 53000.0);
  }

  void drawnOnALogAxis() {
    const AutotuneChartData d = autotuneChartData(ms_, searches_, 3);
    QChart chart;
    drawAutotuneChart(&chart, d, {"host", "opencl:0:0"}, true);
    QCOMPARE(chart.series().size(), 1);
    auto* series = qobject_cast<QBarSeries*>(chart.series().front());
    QVERIFY(series);
    QCOMPARE(series->count(), 2);
    QBarSet* host = series->barSets()[0];
    QCOMPARE(host->label(), QString("host"));
    QCOMPARE(host->count(), 3);
    QCOMPARE(host->selectedBars(), QList<int>{0});  // the winner
    auto* y = qobject_cast<QLogValueAxis*>(chart.axes(Qt::Vertical).front());
    QVERIFY(y);
    // The floor is under the fastest bar, the top over the slowest.
    QVERIFY(y->min() < 0.5 && y->min() > 0.05);
    QVERIFY(y->max() >= 53000);
    QCOMPARE(host->at(0), 0.5);
    // An absent bar sits at the floor, so it draws as nothing.
    QCOMPARE(series->barSets()[1]->at(1), y->min());
    auto* x = qobject_cast<QBarCategoryAxis*>(chart.axes(Qt::Horizontal).front());
    QVERIFY(x);
    QVERIFY(x->categories().front().startsWith(QString::fromUtf8("★ 1. tile16")));
    QVERIFY(x->categories().back().endsWith("default"));
  }

  void statusColoursDiffer() {
    QVERIFY(statusColor(TuneStatus::BuildError) != statusColor(TuneStatus::Ok));
    QVERIFY(statusColor(TuneStatus::TooSlow) != statusColor(TuneStatus::BuildError));
  }
};

QTEST_MAIN(TestAutotuneChart)
#include "test_autotune_chart.moc"
