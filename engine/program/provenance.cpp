// Provenance of e-classes (see provenance.h).
#include "engine/program/provenance.h"

#include <algorithm>
#include <set>

namespace ks {

std::string SourcePlace::str() const {
  if (!node.empty()) return "node " + node;
  std::string s = "line " + std::to_string(line);
  if (column > 0) s += ":" + std::to_string(column);
  return s;
}

void Provenance::note(ClassId c, const SourceLoc& where) {
  if (where.line <= 0 && where.node.empty()) return;
  add(c, SourcePlace{where.line, where.column, where.node});
}

void Provenance::add(ClassId c, SourcePlace place) {
  if (!c.valid()) return;
  if (places_.size() <= c.v) places_.resize(c.v + 1);
  std::vector<SourcePlace>& mine = places_[c.v];
  if (mine.size() >= kMaxPlacesPerClass || std::find(mine.begin(), mine.end(), place) != mine.end()) return;
  mine.push_back(std::move(place));
  ++count_;
}

std::vector<SourcePlace> Provenance::of(const Graph& g, ClassId c) const {
  std::vector<SourcePlace> r;
  if (!c.valid() || c.v >= g.classCount()) return r;
  const ClassId want = g.find(c);
  for (std::size_t id = 0; id < places_.size() && id < g.classCount(); ++id) {
    if (places_[id].empty() || g.find(ClassId(static_cast<uint32_t>(id))) != want) continue;
    for (const SourcePlace& p : places_[id])
      if (std::find(r.begin(), r.end(), p) == r.end()) r.push_back(p);
  }
  return r;
}

std::vector<std::vector<SourcePlace>> Provenance::byCanonicalClass(const Graph& g) const {
  std::vector<std::vector<SourcePlace>> r(g.classCount());
  for (std::size_t id = 0; id < places_.size() && id < g.classCount(); ++id) {
    std::vector<SourcePlace>& into = r[g.find(ClassId(static_cast<uint32_t>(id))).v];
    for (const SourcePlace& p : places_[id])
      if (std::find(into.begin(), into.end(), p) == into.end()) into.push_back(p);
  }
  return r;
}

std::vector<ClassId> Provenance::classesAtLine(const Graph& g, int line) const {
  std::set<uint32_t> found;
  for (std::size_t id = 0; id < places_.size() && id < g.classCount(); ++id)
    for (const SourcePlace& p : places_[id])
      if (p.line == line) {
        found.insert(g.find(ClassId(static_cast<uint32_t>(id))).v);
        break;
      }
  std::vector<ClassId> r;
  for (uint32_t c : found) r.push_back(ClassId(c));
  return r;
}

std::vector<int> Provenance::linesOf(const Graph& g, const std::vector<ClassId>& classes) const {
  std::set<uint32_t> want;
  for (ClassId c : classes)
    if (c.valid() && c.v < g.classCount()) want.insert(g.find(c).v);
  std::set<int> lines;
  for (std::size_t id = 0; id < places_.size() && id < g.classCount(); ++id) {
    if (places_[id].empty() || !want.count(g.find(ClassId(static_cast<uint32_t>(id))).v)) continue;
    for (const SourcePlace& p : places_[id])
      if (p.line > 0) lines.insert(p.line);
  }
  return {lines.begin(), lines.end()};
}

std::string placesText(const std::vector<SourcePlace>& places) {
  std::string s;
  for (const SourcePlace& p : places) s += (s.empty() ? "" : ", ") + p.str();
  return s;
}

}  // namespace ks
