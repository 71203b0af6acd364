// Builds and draws the per-kernel schedule chart of the Autotune view.
#include "views/autotune_chart.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <algorithm>
#include <map>

#include "views/time_axis.h"

namespace ks {

AutotuneChartData autotuneChartData(const std::vector<TuneMeasurement>& measurements,
                                    const std::vector<TuneSearch>& searches, uint32_t kernel) {
  AutotuneChartData d;
  std::map<uint32_t, std::string> winnerOf;
  for (const TuneSearch& s : searches)
    if (s.kernel == kernel) winnerOf[s.device] = s.winner;
  std::map<std::string, std::map<uint32_t, double>> okUs;  // schedule -> device -> us
  for (const TuneMeasurement& m : measurements) {
    if (m.kernel != kernel) continue;
    if (m.status != TuneStatus::Ok || m.ns <= 0) {
      if (m.status != TuneStatus::Ok)
        d.failed.push_back({QString::fromStdString(m.schedule), m.device, m.status, QString::fromStdString(m.reason)});
      continue;
    }
    okUs[m.schedule][m.device] = m.ns / 1e3;
    if (std::find(d.devices.begin(), d.devices.end(), m.device) == d.devices.end()) d.devices.push_back(m.device);
  }
  std::sort(d.devices.begin(), d.devices.end());
  for (const auto& [schedule, byDevice] : okUs) {
    ScheduleBar b;
    b.schedule = QString::fromStdString(schedule);
    for (uint32_t dev : d.devices) {
      const auto it = byDevice.find(dev);
      b.us.push_back(it == byDevice.end() ? 0.0 : it->second);
      const auto w = winnerOf.find(dev);
      b.winnerOn.push_back(w != winnerOf.end() && w->second == schedule && it != byDevice.end());
      if (it != byDevice.end()) {
        b.bestUs = b.bestUs > 0 ? std::min(b.bestUs, it->second) : it->second;
        d.minUs = d.minUs > 0 ? std::min(d.minUs, it->second) : it->second;
        d.maxUs = std::max(d.maxUs, it->second);
      }
    }
    d.bars.push_back(std::move(b));
  }
  std::stable_sort(d.bars.begin(), d.bars.end(), [](const ScheduleBar& a, const ScheduleBar& b) { return a.bestUs < b.bestUs; });
  return d;
}

QColor statusColor(TuneStatus s) {
  switch (s) {
    case TuneStatus::Ok: return QColor("#2f9e44");
    case TuneStatus::BuildError: return QColor("#e03131");
    case TuneStatus::LaunchError: return QColor("#a61e4d");
    case TuneStatus::TooSlow: return QColor("#f08c00");
    case TuneStatus::Skipped: return QColor("#868e96");
    case TuneStatus::WrongResult: return QColor("#7048e8");
  }
  return QColor("#868e96");
}

void drawAutotuneChart(QChart* chart, const AutotuneChartData& data, const std::vector<QString>& deviceNames,
                       bool logScale) {
  if (data.bars.empty()) return;
  const TimeAxis axis = timeAxisFor(data.minUs, data.maxUs, logScale);
  auto* series = new QBarSeries;
  for (std::size_t di = 0; di < data.devices.size(); ++di) {
    auto* set = new QBarSet(di < deviceNames.size() ? deviceNames[di] : QString::number(data.devices[di]));
    // The winner of this device's search stands out in gold, whatever the set's colour.
    set->setSelectedColor(QColor("#fab005"));
    for (std::size_t b = 0; b < data.bars.size(); ++b) {
      const double v = data.bars[b].us[di];
      *set << barHeight(axis, v);
      if (data.bars[b].winnerOn[di]) set->selectBar(int(b));
    }
    series->append(set);
  }
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  QStringList names;
  for (std::size_t b = 0; b < data.bars.size(); ++b) {
    QString s = data.bars[b].schedule;
    if (s.size() > 28) s = s.left(13) + QString::fromUtf8("…") + s.right(13);
    const bool winsSomewhere = std::find(data.bars[b].winnerOn.begin(), data.bars[b].winnerOn.end(), true) != data.bars[b].winnerOn.end();
    // Category names must be unique: a shortened name gets its rank.
    names << QString("%1%2. %3").arg(winsSomewhere ? QString::fromUtf8("★ ") : QString()).arg(b + 1).arg(s);
  }
  x->append(names);
  x->setLabelsAngle(names.size() > 5 ? -40 : 0);
  chart->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  attachTimeAxis(chart, series, axis);
}

}  // namespace ks
