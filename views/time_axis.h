// The time axis both chart views draw (Autotune's schedules, Devices' comparison): microseconds,
// linear or log, with bars on a log axis starting at its floor.
#pragma once

class QChart;
class QAbstractSeries;

namespace ks {

struct TimeAxis {
  bool log = false;
  double floorUs = 0;  // log: the power of ten strictly under the fastest time; linear: 0
  double maxUs = 0;    // the slowest time
};

// The axis for times from minUs to maxUs (minUs > 0 where log is asked for).
TimeAxis timeAxisFor(double minUs, double maxUs, bool log);
// The height a bar of `us` is drawn at: at least the floor (0, nothing measured, is the floor).
double barHeight(const TimeAxis& axis, double us);
// Adds the axis on the chart's left and attaches `series` to it.
void attachTimeAxis(QChart* chart, QAbstractSeries* series, const TimeAxis& axis);

}  // namespace ks
