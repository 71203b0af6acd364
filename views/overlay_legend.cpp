// OverlayLegend: a small translucent panel painted by hand, so it costs nothing to update.
#include "views/overlay_legend.h"

#include <QLinearGradient>
#include <QPainter>

namespace ks {

namespace {
constexpr int kWidth = 220, kHeight = 74, kBarH = 12, kPad = 8;
}

OverlayLegend::OverlayLegend(QWidget* parent) : QWidget(parent) {
  setFixedSize(kWidth, kHeight);
  setAttribute(Qt::WA_TransparentForMouseEvents);  // the graph under it stays clickable
  hide();
}

void OverlayLegend::setScale(viz::Metric metric, const HeatScale& scale, int measured, int unmeasured) {
  if (metric == viz::Metric::None) {
    hide();
    return;
  }
  title_ = metricName(metric) + (scale.isLog() ? tr(" (log scale)") : QString());
  min_ = scale.empty() ? QString() : formatMetric(metric, scale.lo());
  max_ = scale.empty() ? QString() : formatMetric(metric, scale.hi());
  none_ = scale.empty() ? tr("nothing measured yet (%1 nodes)").arg(unmeasured)
                        : tr("%1 measured; %2 not measured").arg(measured).arg(unmeasured);
  show();
  raise();
  update();
}

void OverlayLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QColor("#dee2e6"));
  p.setBrush(QColor(255, 255, 255, 230));
  p.drawRoundedRect(rect().adjusted(0, 0, -1, -1), 4, 4);
  QFont f = font();
  f.setPointSizeF(8.5);
  f.setBold(true);
  p.setFont(f);
  p.setPen(QColor("#343a40"));
  const int lineH = p.fontMetrics().height();
  p.drawText(QRect(kPad, 4, kWidth - 2 * kPad, lineH), Qt::AlignLeft | Qt::AlignVCenter, title_);
  f.setBold(false);
  p.setFont(f);
  const QRect bar(kPad, 6 + lineH, kWidth - 2 * kPad, kBarH);
  if (!min_.isEmpty()) {
    QLinearGradient g(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 8; ++i) g.setColorAt(i / 8.0, HeatScale::colorAt(i / 8.0));
    p.setPen(Qt::NoPen);
    p.setBrush(g);
    p.drawRect(bar);
    p.setPen(QColor("#343a40"));
    const QRect under(bar.left(), bar.bottom() + 2, bar.width(), lineH);
    p.drawText(under, Qt::AlignLeft | Qt::AlignVCenter, min_);
    p.drawText(under, Qt::AlignRight | Qt::AlignVCenter, max_);
  }
  // The swatch drawn exactly as unmeasured nodes are: grey with a hatch.
  const QRect swatch(kPad, kHeight - lineH - 4, 14, lineH - 2);
  p.setPen(QColor("#adb5bd"));
  p.setBrush(HeatScale::unmeasured());
  p.drawRect(swatch);
  p.setBrush(QBrush(QColor("#adb5bd"), Qt::BDiagPattern));
  p.drawRect(swatch);
  p.setPen(QColor("#495057"));
  p.drawText(QRect(swatch.right() + 6, swatch.top() - 1, kWidth - swatch.right() - 6 - kPad, lineH),
             Qt::AlignLeft | Qt::AlignVCenter, none_);
}

}  // namespace ks
