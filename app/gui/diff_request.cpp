// DiffRequest: naming, applying and parsing (see diff_request.h).
#include "app/gui/diff_request.h"

#include <QFileInfo>
#include <QStringList>

#include "engine/tune/autotuner.h"

namespace ks {

QString DiffRequest::name() const {
  if (!file.isEmpty()) return QFileInfo(file).fileName();
  QStringList parts;
  if (tune) parts << QString("tune %1").arg(tuneLevelName(*tune));
  if (devices) parts << QString("devices %1").arg(QString::fromStdString(*devices));
  if (rewrite) parts << QString("rewrite %1").arg(rewriteModeName(*rewrite));
  return parts.isEmpty() ? QStringLiteral("the same options") : parts.join(", ");
}

SessionOptions DiffRequest::applyTo(SessionOptions base) const {
  if (tune) base.tune = *tune;
  if (devices) base.devices = *devices;
  if (rewrite) base.rewrite.mode = *rewrite;
  return base;
}

namespace {
std::optional<TuneLevel> tuneOf(const QString& s) {
  if (s == "none") return TuneLevel::None;
  if (s == "quick") return TuneLevel::Quick;
  if (s == "full") return TuneLevel::Full;
  return std::nullopt;
}
}  // namespace

std::optional<DiffRequest> parseDiffRequest(const QString& spec, QString* error) {
  DiffRequest r;
  if (spec.endsWith(".json", Qt::CaseInsensitive)) {
    r.file = spec;
    return r;
  }
  for (const QString& part : spec.split(',', Qt::SkipEmptyParts)) {
    const QString key = part.section('=', 0, 0).trimmed(), value = part.section('=', 1).trimmed();
    if (key == "tune" && tuneOf(value)) r.tune = tuneOf(value);
    else if (key == "devices" && !value.isEmpty()) r.devices = QString(value).replace(';', ',').toStdString();
    else if (key == "rewrite" && parseRewriteMode(value.toStdString())) r.rewrite = parseRewriteMode(value.toStdString());
    else {
      if (error) *error = QString("cannot compare with \"%1\": expected a .kss.json or tune=, devices=, rewrite=").arg(part);
      return std::nullopt;
    }
  }
  if (!r.tune && !r.devices && !r.rewrite) {
    if (error) *error = QString("nothing to compare with in \"%1\"").arg(spec);
    return std::nullopt;
  }
  return r;
}

}  // namespace ks
