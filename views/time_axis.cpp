// The time axis of the chart views.
#include "views/time_axis.h"

#include <QAbstractSeries>
#include <QChart>
#include <QLogValueAxis>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace ks {

TimeAxis timeAxisFor(double minUs, double maxUs, bool log) {
  TimeAxis a;
  a.log = log && minUs > 0;
  // Strictly under the fastest time, so a bar exactly at a power of ten still shows.
  a.floorUs = a.log ? std::pow(10.0, std::floor(std::log10(minUs * 0.999))) : 0.0;
  a.maxUs = maxUs;
  return a;
}

double barHeight(const TimeAxis& axis, double us) { return us > 0 ? std::max(us, axis.floorUs) : axis.floorUs; }

void attachTimeAxis(QChart* chart, QAbstractSeries* series, const TimeAxis& axis) {
  if (axis.log) {
    auto* y = new QLogValueAxis;
    y->setBase(10);
    y->setLabelFormat("%g");
    y->setTitleText(QObject::tr("us (log)"));
    y->setRange(axis.floorUs, std::pow(10.0, std::ceil(std::log10(std::max(axis.maxUs, axis.floorUs) * 1.2))));
    y->setMinorTickCount(-1);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
  } else {
    auto* y = new QValueAxis;
    y->setTitleText(QObject::tr("us"));
    y->setRange(0, axis.maxUs > 0 ? axis.maxUs * 1.1 : 1.0);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);
  }
}

}  // namespace ks
