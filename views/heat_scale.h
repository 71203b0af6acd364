// HeatScale: maps a measured value (time, GB/s, ...) to a light-to-dark sequential colour, and
// formats the value with its unit, for the "colour by" overlay of the graph views.
#pragma once
#include <QColor>
#include <QObject>
#include <QString>
#include <vector>

#include "engine/viz/node_measures.h"

namespace ks {

class HeatScale {
 public:
  HeatScale() = default;
  // Spans [lo, hi]. Times on one graph differ by orders of magnitude (a 53 ms default schedule
  // beside a 0.7 ms one), so a range wider than kLogRatio is spread on a log axis. A log axis
  // starts at `positiveMin`, the smallest positive value (a zero-copy step takes 0 ns): values at or
  // under it are the lightest.
  HeatScale(double lo, double hi, double positiveMin = 0);
  static HeatScale over(const std::vector<double>& values);  // empty scale for no values

  bool empty() const { return empty_; }
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  bool isLog() const { return log_; }
  // Where `v` sits on the scale, 0 (lo, lightest) to 1 (hi, darkest), clamped.
  double position(double v) const;
  QColor colorOf(double v) const { return colorAt(position(v)); }

  // The ramp itself: viridis reversed, whose lightness falls monotonically, so "darker" reads as
  // "more" even in greyscale and for colour-blind users.
  static QColor colorAt(double t);
  // Nodes nothing measured: a neutral grey outside the ramp (it never reaches grey).
  static QColor unmeasured() { return QColor("#dee2e6"); }
  // Text drawn on a fill of this colour: white on dark fills, near-black on light ones.
  static QColor textOn(const QColor& fill);

  static constexpr double kLogRatio = 20;

 private:
  double lo_ = 0, hi_ = 0, floor_ = 0;
  bool log_ = false;
  bool empty_ = true;
};

// "12.3 us", "4.56 GB/s", "310 GFLOP/s", "41.2 %"; time values are in ns.
QString formatMetric(viz::Metric m, double value);
// The combo's and the legend's name of a metric ("none", "time", ...).
QString metricName(viz::Metric m);

}  // namespace ks
