// Index arithmetic through shapes and movement ops.
#include "engine/kernel/index_map.h"

#include "engine/core/error.h"

namespace ks {

namespace {
// verifyKernel keeps every operand's rank equal to its consumer's index; a kernel that reached
// lowering without it (built by hand, or read from an edited file) must fail here, not read past
// the index.
void sameRank(const std::vector<Idx>& idx, const Shape& shape, const char* what) {
  if (idx.size() != shape.size())
    throw Error(ErrorCode::Invariant, std::string("lowering: an index of rank ") + std::to_string(idx.size()) + " for " + what +
                                          " of shape " + shapeStr(shape) + " (the kernel's shapes do not agree)");
}
}  // namespace

Idx flatIndex(const std::vector<Idx>& idx, const Shape& shape) {
  sameRank(idx, shape, "a value");
  Idx f = idx::cst(0);
  int64_t stride = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    f = idx::add(f, idx::mul(idx[i], stride));
    stride *= shape[i];
  }
  return f;
}

std::vector<Idx> unflatten(const Idx& flat, const Shape& shape) {
  std::vector<Idx> out(shape.size());
  int64_t stride = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    Idx q = idx::div(flat, stride);
    out[i] = i == 0 ? q : idx::mod(q, shape[i]);
    if (i == 0 && q->hi >= shape[0]) out[i] = idx::mod(q, shape[0]);
    stride *= shape[i];
  }
  return out;
}

std::vector<Idx> outputIndex(const Shape& S, const Idx& b, const Idx& m, const Idx& n) {
  const Shape G = gridShape(S);
  const std::size_t r = G.size();
  std::vector<Idx> grid;
  if (r >= 3) grid = unflatten(b, Shape(G.begin(), G.end() - 2));
  if (r >= 2) grid.push_back(m);
  if (r >= 1) grid.push_back(n);
  std::vector<Idx> out;
  std::size_t next = 0;
  for (int64_t d : S) out.push_back(d == 1 ? idx::cst(0) : grid[next++]);
  return out;
}

std::vector<Idx> moveSourceIndex(const KOp& o, const Shape& in, const std::vector<Idx>& idx, Mask& padMask) {
  sameRank(idx, o.shape, "a movement op");
  if (o.moveKind() != MoveKind::Reshape && in.size() != o.shape.size())
    throw Error(ErrorCode::Invariant, "lowering: a " + std::string(moveKindName(o.moveKind())) + " from " + shapeStr(in) + " to " +
                                          shapeStr(o.shape) + " changes the rank");
  std::vector<Idx> n;
  switch (o.moveKind()) {
    case MoveKind::Reshape: n = unflatten(flatIndex(idx, o.shape), in); break;
    case MoveKind::Expand:
      n = idx;
      for (std::size_t a = 0; a < in.size(); ++a)
        if (in[a] == 1) n[a] = idx::cst(0);
      break;
    case MoveKind::Permute:
      n.resize(in.size());
      for (std::size_t a = 0; a < o.attr.size(); ++a) n[o.attr[a]] = idx[a];
      break;
    case MoveKind::Flip:
      n = idx;
      for (int64_t a : o.attr) n[a] = idx::addc(idx::mul(idx[a], -1), in[a] - 1);
      break;
    case MoveKind::Narrow:
      n = idx;
      n[o.attr[0]] = idx::addc(idx[o.attr[0]], o.attr[1]);
      break;
    case MoveKind::Pad: {
      n = idx;
      const int64_t a = o.attr[0];
      n[a] = idx::addc(idx[a], -o.attr[1]);
      padMask.require(n[a], 0, in[a]);
      // Every use of the source index is guarded by the mask: past it the index is in range,
      // which lets the reshapes above it simplify (a padded conv input's windows would otherwise
      // nest a div/mod pair per movement op, growing the index text exponentially).
      n[a] = idx::within(n[a], 0, in[a] - 1);
      break;
    }
  }
  return n;
}

}  // namespace ks
