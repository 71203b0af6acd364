// DiffRequest: what File > Compare with… sets the shown session beside: a saved session, or
// the shown program compiled again with some options changed (tune level, devices, rewrites).
#pragma once
#include <QString>
#include <optional>
#include <string>

#include "engine/session/session.h"

namespace ks {

struct DiffRequest {
  QString file;  // a .kss.json; empty: compile the shown program with the options below
  std::optional<TuneLevel> tune;
  std::optional<std::string> devices;
  std::optional<RewriteMode> rewrite;

  // What B is, for titles: "other.kss.json", "tune quick, rewrite none".
  QString name() const;
  // The shown session's options with this request's changes.
  SessionOptions applyTo(SessionOptions base) const;
};

// A spec as the --compare-with flag takes it: a path ending in .json, or a comma list of
// tune=LEVEL, devices=LIST (';' between devices, as ',' separates the keys), rewrite=MODE.
// None with `error` set when the spec is not one of those.
std::optional<DiffRequest> parseDiffRequest(const QString& spec, QString* error);

}  // namespace ks
