// HeatScale: linear or log placement on a viridis ramp; value formatting per metric.
#include "views/heat_scale.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ks {

HeatScale::HeatScale(double lo, double hi, double positiveMin)
    : lo_(std::min(lo, hi)), hi_(std::max(lo, hi)), floor_(lo_ > 0 ? lo_ : positiveMin), empty_(false) {
  log_ = floor_ > 0 && hi_ / floor_ >= kLogRatio;
}

HeatScale HeatScale::over(const std::vector<double>& values) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  double positiveMin = 0;
  for (double v : values)
    if (v > 0 && (positiveMin == 0 || v < positiveMin)) positiveMin = v;
  return HeatScale(*lo, *hi, positiveMin);
}

double HeatScale::position(double v) const {
  if (empty_ || hi_ <= lo_) return empty_ ? 0.0 : 1.0;  // one value: it is the most there is
  const double t = log_ ? (std::log(std::max(v, floor_)) - std::log(floor_)) / (std::log(hi_) - std::log(floor_))
                        : (v - lo_) / (hi_ - lo_);
  return std::clamp(t, 0.0, 1.0);
}

QColor HeatScale::colorAt(double t) {
  // Viridis, sampled at nine points, light end first; linear interpolation between them keeps
  // the lightness monotonic.
  static constexpr std::array<QRgb, 9> kStops = {0xfde725, 0xaadc32, 0x5ec962, 0x27ad81, 0x21918c,
                                                 0x2c728e, 0x3b528b, 0x472d7b, 0x440154};
  t = std::clamp(t, 0.0, 1.0) * (kStops.size() - 1);
  const std::size_t i = std::min<std::size_t>(std::size_t(t), kStops.size() - 2);
  const double f = t - double(i);
  const QColor a(kStops[i]), b(kStops[i + 1]);
  auto mix = [f](int x, int y) { return int(std::lround(x + (y - x) * f)); };
  return QColor(mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue()));
}

QColor HeatScale::textOn(const QColor& fill) {
  const double luma = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
  return luma < 0.45 ? QColor(Qt::white) : QColor("#212529");
}

namespace {
// Three significant digits: enough to tell nodes apart, short enough for a badge.
QString sig3(double v) {
  const double a = std::fabs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return QString::number(v, 'f', decimals);
}
QString timeText(double ns) {
  if (ns >= 1e9) return sig3(ns / 1e9) + " s";
  if (ns >= 1e6) return sig3(ns / 1e6) + " ms";
  if (ns >= 1e3) return sig3(ns / 1e3) + " us";
  return sig3(ns) + " ns";
}
}  // namespace

QString formatMetric(viz::Metric m, double value) {
  switch (m) {
    case viz::Metric::Time: return timeText(value);
    case viz::Metric::GBs: return sig3(value) + " GB/s";
    case viz::Metric::GFlops: return sig3(value) + " GFLOP/s";
    case viz::Metric::PeakPct: return sig3(value) + " %";
    case viz::Metric::None: break;
  }
  return {};
}

QString metricName(viz::Metric m) {
  switch (m) {
    case viz::Metric::Time: return QObject::tr("time");
    case viz::Metric::GBs: return QObject::tr("GB/s");
    case viz::Metric::GFlops: return QObject::tr("GFLOP/s");
    case viz::Metric::PeakPct: return QObject::tr("% of peak");
    case viz::Metric::None: break;
  }
  return QObject::tr("none");
}

}  // namespace ks
