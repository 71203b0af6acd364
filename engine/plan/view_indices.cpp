// Movement chains evaluated on element indices instead of values.
#include "engine/plan/view_indices.h"

#include <algorithm>
#include <bit>

namespace ks {

namespace {

bool isMovement(NodeKind k) {
  return k == NodeKind::Expand || k == NodeKind::Permute || k == NodeKind::Reshape || k == NodeKind::Pad ||
         k == NodeKind::Narrow || k == NodeKind::Flip;
}

// A movement node as a per-output-axis map: output axis j reads input axis `from[j]` at
// coordinate map[j][i] for output coordinate i (-1: the pad's fill). Reshape moves nothing.
struct AxisMaps {
  std::vector<int> from;
  std::vector<std::vector<int64_t>> map;
};

AxisMaps mapsOf(const Node& n, const Shape& in, const Shape& out) {
  AxisMaps m;
  for (std::size_t j = 0; j < out.size(); ++j) {
    m.from.push_back(static_cast<int>(j));
    std::vector<int64_t> v(static_cast<std::size_t>(out[j]));
    for (int64_t i = 0; i < out[j]; ++i) v[static_cast<std::size_t>(i)] = i;
    m.map.push_back(std::move(v));
  }
  if (n.kind == NodeKind::Expand) {
    for (std::size_t j = 0; j < out.size(); ++j)
      if (in[j] == 1) std::fill(m.map[j].begin(), m.map[j].end(), 0);
  } else if (n.kind == NodeKind::Permute) {
    for (std::size_t j = 0; j < out.size(); ++j) m.from[j] = static_cast<int>(n.attr[j]);
  } else if (n.kind == NodeKind::Pad || n.kind == NodeKind::Narrow) {
    const auto a = static_cast<std::size_t>(n.attr[0]);
    const int64_t shift = n.kind == NodeKind::Pad ? -n.attr[1] : n.attr[1];  // a negative pad crops
    for (int64_t i = 0; i < out[a]; ++i) {
      const int64_t s = i + shift;
      m.map[a][static_cast<std::size_t>(i)] = s >= 0 && s < in[a] ? s : -1;
    }
  } else if (n.kind == NodeKind::Flip) {
    for (int64_t a : n.attr)
      for (int64_t i = 0; i < out[a]; ++i) m.map[a][static_cast<std::size_t>(i)] = out[a] - 1 - i;
  }
  return m;
}

// out[i] = in[maps(i)] over every element of `out`, row-major; `fill` where a map gives -1.
std::vector<int64_t> remap(const std::vector<int64_t>& in, const Shape& inShape, const Shape& out, const AxisMaps& m,
                           int64_t fillCode) {
  std::vector<int64_t> inStride(inShape.size(), 1);
  for (std::size_t a = inShape.size(); a-- > 1;) inStride[a - 1] = inStride[a] * inShape[a];
  const std::size_t r = out.size();
  std::vector<int64_t> res(static_cast<std::size_t>(numel(out)));
  std::vector<int64_t> idx(r, 0);
  for (std::size_t e = 0; e < res.size(); ++e) {
    int64_t flat = 0;
    bool fill = false;
    for (std::size_t j = 0; j < r; ++j) {
      const int64_t c = m.map[j][static_cast<std::size_t>(idx[j])];
      fill = fill || c < 0;
      flat += c * inStride[static_cast<std::size_t>(m.from[j])];
    }
    res[e] = fill ? fillCode : in[static_cast<std::size_t>(flat)];
    for (std::size_t j = r; j-- > 0;) {
      if (++idx[j] < out[j]) break;
      idx[j] = 0;
    }
  }
  return res;
}

}  // namespace

ClassId movementRoot(const Graph& g, ClassId c) {
  while (isMovement(g.structural(c).kind)) c = g.structural(c).in[0];
  return c;
}

std::optional<ViewIndices> viewIndices(const Graph& g, ClassId c, int64_t maxElements) {
  std::vector<ClassId> chain;  // c first, down to (not including) the root
  for (ClassId x = c; isMovement(g.structural(x).kind); x = g.structural(x).in[0]) {
    if (numel(g.shape(x)) > maxElements) return std::nullopt;
    chain.push_back(x);
  }
  const ClassId root = movementRoot(g, c);
  if (numel(g.shape(root)) > maxElements) return std::nullopt;
  ViewIndices v;
  v.src.resize(static_cast<std::size_t>(numel(g.shape(root))));
  for (std::size_t i = 0; i < v.src.size(); ++i) v.src[i] = static_cast<int64_t>(i);
  // Each pad's fill is coded -(1 + pad's place in `fills`) until the end: a window's inner pad
  // (whose elements no window reads) may fill another value than the padding the windows see.
  std::vector<double> fills;
  for (std::size_t i = chain.size(); i-- > 0;) {
    const Node& n = g.structural(chain[i]);
    const Shape& in = g.shape(n.in[0]);
    const Shape& out = g.shape(chain[i]);
    if (n.kind == NodeKind::Reshape) continue;
    v.src = remap(v.src, in, out, mapsOf(n, in, out), -1 - static_cast<int64_t>(fills.size()));
    if (n.kind == NodeKind::Pad) fills.push_back(n.value.toDouble());
  }
  std::optional<uint64_t> used;
  for (int64_t& s : v.src) {
    if (s >= 0) continue;
    const double f = fills[static_cast<std::size_t>(-1 - s)];
    // One fill value, bit for bit (-0 is not 0).
    if (used && *used != std::bit_cast<uint64_t>(f)) return std::nullopt;
    used = std::bit_cast<uint64_t>(f);
    v.fill = f;
    s = -1;
  }
  return v;
}

}  // namespace ks
