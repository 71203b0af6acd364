// The Autotune view's chart of one kernel: its schedules sorted by time on a log axis (a default
// schedule at 50 ms must not squash a winner at 0.6 ms), one bar set per device, each device's
// winner marked, and the schedules that failed kept out of the bars and listed with their status.
#pragma once
#include <QColor>
#include <QString>
#include <vector>

#include "engine/tune/tune_search.h"

class QChart;

namespace ks {

struct ScheduleBar {
  QString schedule;
  std::vector<double> us;         // per entry of AutotuneChartData::devices; 0: no ok measurement there
  std::vector<bool> winnerOn;     // per device: this schedule won that device's search
  double bestUs = 0;              // the fastest ok time over the devices
};

struct FailedSchedule {
  QString schedule;
  uint32_t device = 0;
  TuneStatus status = TuneStatus::Ok;
  QString reason;
};

struct AutotuneChartData {
  std::vector<uint32_t> devices;  // devices with at least one ok measurement, ascending
  std::vector<ScheduleBar> bars;  // schedules with an ok time, fastest first
  std::vector<FailedSchedule> failed;  // in measured order
  double minUs = 0, maxUs = 0;
};

// The chart's data for `kernel` from the trace's measurements and searches.
AutotuneChartData autotuneChartData(const std::vector<TuneMeasurement>& measurements,
                                    const std::vector<TuneSearch>& searches, uint32_t kernel);

// One colour per status, used for the failed list (and the table's status column).
QColor statusColor(TuneStatus s);

// Fills an empty chart: bars per device (named by `deviceNames`, indexed like data.devices),
// categories fastest first with the overall winner starred, a log or linear time axis.
void drawAutotuneChart(QChart* chart, const AutotuneChartData& data, const std::vector<QString>& deviceNames,
                       bool logScale);

}  // namespace ks
