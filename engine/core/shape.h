// Shapes, axes and broadcasting.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ks {

// A dimension. A plain constant today; kept as its own name so symbolic dims can come later.
using Dim = int64_t;
using Shape = std::vector<Dim>;

int64_t numel(const Shape& s);
std::string shapeStr(const Shape& s);  // "[2, 3]"
Shape rowMajorStrides(const Shape& s);
// Row-major index <-> coordinates of a shape (a zero-sized axis gives coordinate 0).
std::vector<int64_t> unravelIndex(int64_t flat, const Shape& s);
int64_t ravelIndex(const std::vector<int64_t>& coord, const Shape& s);
// The axes of size other than 1, in order: a [1, 128, 1, 1024] value as a 128 x 1024 grid.
Shape gridShape(const Shape& s);

// Normalizes a possibly negative axis against a rank; throws ks::Error (Axis) naming op.
int normalizeAxis(int64_t axis, int rank, const char* op);
// Normalizes and sorts a list of axes; rejects duplicates. An empty list means "all axes" only
// when allIfEmpty is set.
std::vector<int> normalizeAxes(const std::vector<int64_t>& axes, int rank, const char* op,
                               bool allIfEmpty = true);

// NumPy broadcasting of two shapes; throws ks::Error (Shape) naming op and both shapes.
Shape broadcastShapes(const Shape& a, const Shape& b, const char* op);

}  // namespace ks
