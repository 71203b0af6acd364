// Movement ops built from the primitive ones: slice, concat, stack, split, chunk, repeat.
#include <algorithm>

#include "engine/program/prim_ops.h"

namespace ks::op {

namespace {
// Every `step`-th element of the first count*step elements along `axis`, starting at 0:
// pad (or crop) the axis to count*step, split it into [count, step], keep index 0 of step.
Value strided(Value x, int a, int64_t count, int64_t step) {
  const int64_t d = x.shape()[a];
  if (step == 1) return narrow(x, a, 0, count);
  const int64_t need = count * step;
  std::vector<std::pair<int64_t, int64_t>> pads(static_cast<std::size_t>(a + 1), {0, 0});
  pads[a] = {0, need - d};  // negative when the axis is longer: crops
  Value p = pad(x, pads);
  std::vector<int64_t> split = prim::toVec(p.shape());
  split[a] = count;
  split.insert(split.begin() + a + 1, step);
  Value r = narrow(reshape(p, split), a + 1, 0, 1);
  std::vector<int64_t> out = prim::toVec(x.shape());
  out[a] = count;
  return reshape(r, out);
}
}  // namespace

// Python slicing along one axis: negative start/stop count from the end, out-of-range bounds clamp,
// a negative step walks backwards (start defaults to the last element, stop to before the first).
Value slice(Value x, int64_t axis, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  const int a = normalizeAxis(axis, x.rank(), "slice");
  if (step == 0) prim::fail(x, ErrorCode::Usage, "slice", "slice step cannot be zero");
  const int64_t d = x.shape()[a];
  auto clampIndex = [d](int64_t i, int64_t lo, int64_t hi) {
    if (i < 0) i += d;
    return std::clamp(i, lo, hi);
  };
  if (step > 0) {
    const int64_t b = start ? clampIndex(*start, 0, d) : 0;
    const int64_t e = stop ? clampIndex(*stop, 0, d) : d;
    const int64_t count = e > b ? (e - b + step - 1) / step : 0;
    Value n = narrow(x, a, b, d - b);
    return strided(n, a, count, step);
  }
  // step < 0: indices start, start+step, ... > stop; on the flipped axis that is d-1-start onwards.
  const int64_t b = start ? clampIndex(*start, -1, d - 1) : d - 1;
  const int64_t e = stop ? clampIndex(*stop, -1, d - 1) : -1;
  const int64_t s = -step;
  const int64_t count = b > e ? (b - e + s - 1) / s : 0;
  if (count == 0) return narrow(x, a, 0, 0);
  const int64_t fb = d - 1 - b;
  Value f = narrow(flip(x, {a}), a, fb, d - fb);
  return strided(f, a, count, s);
}

// concat is exact: each input is padded to the full length and picked with Where by a
// constant position mask, so -0.0, NaN and inf come through unchanged (an add of pads would not).
Value concat(const std::vector<Value>& xs, int64_t axis) {
  if (xs.empty()) throw Error(ErrorCode::Usage, "concat of no tensors", {}, "concat");
  const Value& first = xs.front();
  if (first.rank() == 0) prim::fail(first, ErrorCode::Shape, "concat", "cannot concatenate rank-0 tensors");
  const int a = normalizeAxis(axis, first.rank(), "concat");
  std::vector<PromotionOperand> ps;
  int64_t total = 0;
  for (const Value& x : xs) {
    bool ok = x.rank() == first.rank();
    for (int i = 0; ok && i < x.rank(); ++i) ok = i == a || x.shape()[i] == first.shape()[i];
    if (!ok)
      prim::fail(x, ErrorCode::Shape, "concat",
                 "shapes " + shapeStr(first.shape()) + " and " + shapeStr(x.shape()) + " differ outside axis " + std::to_string(a));
    ps.push_back({x.dtype(), PromotionOperand::Priority::Tensor});
    total += x.shape()[a];
  }
  const DType t = resultType(ps.data(), ps.size());
  if (xs.size() == 1) return cast(first, t);
  Shape full = first.shape();
  full[a] = total;
  std::vector<int64_t> maskShape(static_cast<std::size_t>(first.rank()), 1);
  maskShape[a] = total;
  Value result;
  int64_t offset = total;
  for (std::size_t i = xs.size(); i-- > 0;) {
    const int64_t len = xs[i].shape()[a];
    offset -= len;
    if (len == 0) continue;
    std::vector<std::pair<int64_t, int64_t>> pads(static_cast<std::size_t>(a + 1), {0, 0});
    pads[a] = {offset, total - offset - len};
    Value padded = pad(cast(xs[i], t), pads);
    if (!result.valid()) {
      result = padded;
      continue;
    }
    HostTensor m(DType::Bool, {total});
    for (int64_t j = offset; j < offset + len; ++j) m.setInt(j, 1);
    Value mask = broadcastTo(reshape(first.builder()->constant(m), maskShape), full);
    result = where(mask, padded, result);
  }
  if (!result.valid()) return pad(cast(first, t), {});  // every input empty along the axis
  return result;
}

Value stack(const std::vector<Value>& xs, int64_t axis) {
  if (xs.empty()) throw Error(ErrorCode::Usage, "stack of no tensors", {}, "stack");
  const int a = normalizeAxis(axis, xs.front().rank() + 1, "stack");
  std::vector<Value> us;
  for (const Value& x : xs) {
    if (x.shape() != xs.front().shape())
      prim::fail(x, ErrorCode::Shape, "stack",
                 "shapes " + shapeStr(xs.front().shape()) + " and " + shapeStr(x.shape()) + " differ");
    us.push_back(unsqueeze(x, a));
  }
  return concat(us, a);
}

// sizes: the piece lengths, which must add up to the dimension; a single size that does not is a
// chunk length (PyTorch's split(x, int)): pieces of that length, the last one shorter.
std::vector<Value> split(Value x, std::vector<int64_t> sizes, int64_t axis) {
  const int a = normalizeAxis(axis, x.rank(), "split");
  const int64_t d = x.shape()[a];
  if (sizes.size() == 1 && sizes[0] != d) {
    const int64_t len = sizes[0];
    if (len <= 0) prim::fail(x, ErrorCode::Usage, "split", "split size must be positive, got " + std::to_string(len));
    sizes.clear();
    for (int64_t s = 0; s < d; s += len) sizes.push_back(std::min(len, d - s));
  }
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) prim::fail(x, ErrorCode::Usage, "split", "negative split size " + std::to_string(s));
    sum += s;
  }
  if (sum != d)
    prim::fail(x, ErrorCode::Shape, "split",
               "split sizes add up to " + std::to_string(sum) + ", but axis " + std::to_string(a) + " of " +
                   shapeStr(x.shape()) + " has " + std::to_string(d));
  std::vector<Value> r;
  int64_t off = 0;
  for (int64_t s : sizes) {
    r.push_back(narrow(x, a, off, s));
    off += s;
  }
  return r;
}

// PyTorch's chunk: pieces of ceil(d / chunks), the last shorter; may give fewer than `chunks`.
std::vector<Value> chunk(Value x, int64_t chunks, int64_t axis) {
  if (chunks <= 0) prim::fail(x, ErrorCode::Usage, "chunk", "chunk count must be positive, got " + std::to_string(chunks));
  const int a = normalizeAxis(axis, x.rank(), "chunk");
  const int64_t d = x.shape()[a];
  if (d == 0) return {x};
  const int64_t len = (d + chunks - 1) / chunks;
  return split(x, {len == d ? d : len}, a);
}

// PyTorch's repeat (tile): x viewed as [1.., s0, s1, ...] -> reshape [1, s0, 1, s1, ...]
// -> expand [r0, s0, r1, s1, ...] -> reshape [r0*s0, r1*s1, ...].
Value repeat(Value x, std::vector<int64_t> repeats) {
  if (static_cast<int>(repeats.size()) < x.rank())
    prim::fail(x, ErrorCode::Shape, "repeat",
               std::to_string(repeats.size()) + " repeat counts for a tensor of rank " + std::to_string(x.rank()));
  for (int64_t r : repeats)
    if (r < 0) prim::fail(x, ErrorCode::Usage, "repeat", "negative repeat count " + std::to_string(r));
  std::vector<int64_t> s(repeats.size() - x.rank(), 1);
  s.insert(s.end(), x.shape().begin(), x.shape().end());
  std::vector<int64_t> inter, full, out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    inter.insert(inter.end(), {1, s[i]});
    full.insert(full.end(), {repeats[i], s[i]});
    out.push_back(repeats[i] * s[i]);
  }
  return reshape(broadcastTo(reshape(x, inter), Shape(full.begin(), full.end())), out);
}

}  // namespace ks::op
