// Shape arithmetic with errors that name the op and the shapes involved.
#include "engine/core/shape.h"

#include <algorithm>

#include "engine/core/error.h"

namespace ks {

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (Dim d : s) n *= d;
  return n;
}

std::string shapeStr(const Shape& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

Shape rowMajorStrides(const Shape& s) {
  Shape st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

std::vector<int64_t> unravelIndex(int64_t flat, const Shape& s) {
  std::vector<int64_t> c(s.size());
  for (int i = static_cast<int>(s.size()) - 1; i >= 0; --i) {
    c[i] = s[i] ? flat % s[i] : 0;
    flat = s[i] ? flat / s[i] : 0;
  }
  return c;
}

int64_t ravelIndex(const std::vector<int64_t>& coord, const Shape& s) {
  int64_t f = 0;
  for (std::size_t i = 0; i < s.size(); ++i) f = f * s[i] + coord[i];
  return f;
}

int normalizeAxis(int64_t axis, int rank, const char* op) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throw Error(ErrorCode::Axis,
                "axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
                    std::to_string(rank) + " (expected " + std::to_string(-rank) + ".." +
                    std::to_string(rank - 1) + ")",
                {}, op);
  return static_cast<int>(a);
}

std::vector<int> normalizeAxes(const std::vector<int64_t>& axes, int rank, const char* op,
                               bool allIfEmpty) {
  std::vector<int> r;
  if (axes.empty() && allIfEmpty) {
    for (int i = 0; i < rank; ++i) r.push_back(i);
    return r;
  }
  for (int64_t a : axes) r.push_back(normalizeAxis(a, rank, op));
  std::sort(r.begin(), r.end());
  if (std::adjacent_find(r.begin(), r.end()) != r.end())
    throw Error(ErrorCode::Axis, "repeated axis in axis list", {}, op);
  return r;
}

Shape broadcastShapes(const Shape& a, const Shape& b, const char* op) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape r(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Dim da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const Dim db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error(ErrorCode::Shape,
                  "cannot broadcast shapes " + shapeStr(a) + " and " + shapeStr(b) + " (dimension " +
                      std::to_string(i) + ": " + std::to_string(da) + " vs " + std::to_string(db) + ")",
                  {}, op);
    r[i] = da == 1 ? db : da;
  }
  return r;
}

Shape gridShape(const Shape& s) {
  Shape g;
  for (int64_t d : s)
    if (d != 1) g.push_back(d);
  return g;
}

}  // namespace ks
