// Provenance: where in the user's source each e-class came from -- the `.ks` line and column of
// the op call that created it, or the ONNX node -- so that a source line can select the classes,
// kernels and plan steps it became, and any of those can point back at the line. A hashconsed
// class reached from several statements has several places.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/graph/graph.h"

namespace ks {

struct SourcePlace {
  int line = 0;      // 1-based; 0 for an ONNX node
  int column = 0;    // 1-based; 0 = unknown
  std::string node;  // ONNX node name; empty for .ks
  bool operator==(const SourcePlace&) const = default;
  std::string str() const;  // "line 5:9" or "node /layer1/conv"
};

class Provenance {
 public:
  // A class keeps its first few places: a constant such as 1.0 is shared by every statement
  // that writes it, and those places say little beyond the first ones.
  static constexpr std::size_t kMaxPlacesPerClass = 8;

  // Records that class `c` (a builder id) was made or reached at `where`; unknown places and
  // repeats are ignored.
  void note(ClassId c, const SourceLoc& where);
  void add(ClassId c, SourcePlace place);

  // The places of every builder id in c's e-class (after merges), in note order, without repeats.
  std::vector<SourcePlace> of(const Graph& g, ClassId c) const;
  // of() for every class at once, indexed by canonical class id (empty for merged-away ids).
  std::vector<std::vector<SourcePlace>> byCanonicalClass(const Graph& g) const;
  // The e-classes (canonical ids, ascending) with a place on `line`.
  std::vector<ClassId> classesAtLine(const Graph& g, int line) const;
  // The lines of every class in `classes`, ascending, without repeats.
  std::vector<int> linesOf(const Graph& g, const std::vector<ClassId>& classes) const;

  bool empty() const { return count_ == 0; }
  // The places of each builder id (empty where none), for serialisation.
  const std::vector<std::vector<SourcePlace>>& byClass() const { return places_; }

 private:
  std::vector<std::vector<SourcePlace>> places_;  // by builder class id
  std::size_t count_ = 0;
};

// "line 5:9, line 7:3": what a tooltip or table says of a class's places ("" when none).
std::string placesText(const std::vector<SourcePlace>& places);

}  // namespace ks
