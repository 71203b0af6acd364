// The host reference executor: strided views for movement ops, typed loops for everything else.
#include "engine/eval/host_executor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <tuple>

#include "engine/core/alloc_error.h"
#include "engine/core/error.h"
#include "engine/core/half.h"
#include "engine/core/scalar.h"
#include "engine/eval/scalar_ops.h"

namespace ks {
namespace {

// Values live in one of three storage types: float (f16, f32), double (f64), int64 (ints, bool).
// Movement ops only change a view's shape/strides/offset, so a matmul's expanded operands are never
// copied; every computing op writes a fresh dense buffer.
enum class Store { F32, F64, I64 };
Store storeOf(DType t) {
  if (t == DType::F16 || t == DType::F32) return Store::F32;
  if (t == DType::F64) return Store::F64;
  return Store::I64;
}

struct Buffer {
  std::vector<float> f;
  std::vector<double> d;
  std::vector<int64_t> i;
};
template <class T> T* dataOf(Buffer& b);
template <> float* dataOf<float>(Buffer& b) { return b.f.data(); }
template <> double* dataOf<double>(Buffer& b) { return b.d.data(); }
template <> int64_t* dataOf<int64_t>(Buffer& b) { return b.i.data(); }
template <class T> std::vector<T>& vecOf(Buffer& b);
template <> std::vector<float>& vecOf<float>(Buffer& b) { return b.f; }
template <> std::vector<double>& vecOf<double>(Buffer& b) { return b.d; }
template <> std::vector<int64_t>& vecOf<int64_t>(Buffer& b) { return b.i; }

struct View {
  std::shared_ptr<Buffer> buf;
  DType dtype = DType::F32;
  Shape shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  template <class T> const T* data() const { return dataOf<T>(*buf); }
};

template <class T> View dense(DType t, const Shape& s) {
  View v;
  v.buf = std::make_shared<Buffer>();
  const long double bytes = tensorBytes(s, sizeof(T));  // f16 and the small ints compute as wider types
  if (bytes < 0 || bytes > static_cast<long double>(vecOf<T>(*v.buf).max_size()) * sizeof(T))
    throw allocationFailure(t, s, bytes, "host memory (host executor)");
  try {
    vecOf<T>(*v.buf).assign(static_cast<std::size_t>(numel(s)), T{});
  } catch (const std::bad_alloc&) {
    throw allocationFailure(t, s, bytes, "host memory (host executor)");
  }
  v.dtype = t;
  v.shape = s;
  v.strides = rowMajorStrides(s);
  return v;
}

bool isDense(const View& v) {
  const std::vector<int64_t> rm = rowMajorStrides(v.shape);
  for (std::size_t i = 0; i < v.shape.size(); ++i)
    if (v.shape[i] > 1 && v.strides[i] != rm[i]) return false;
  return true;
}

// A view of a rank-0 value (or of an equal shape) seen with the strides of `shape`.
View broadcastView(const View& v, const Shape& shape) {
  if (v.shape == shape) return v;
  View r = v;
  r.shape = shape;
  r.strides.assign(shape.size(), 0);
  return r;
}

// Visits every index of `shape` in row-major order, calling f(k, offsets) where k is the linear
// output index and offsets are the running element offsets of N strided operands.
template <std::size_t N, class F>
void walk(const Shape& shape, const std::array<const View*, N>& ops, F&& f) {
  const int r = static_cast<int>(shape.size());
  if (numel(shape) == 0) return;
  std::array<int64_t, N> off;
  for (std::size_t n = 0; n < N; ++n) off[n] = ops[n]->offset;
  if (r == 0) {
    f(int64_t{0}, off);
    return;
  }
  std::vector<int64_t> idx(r, 0);
  const int64_t inner = shape[r - 1];
  std::array<int64_t, N> step;
  for (std::size_t n = 0; n < N; ++n) step[n] = ops[n]->strides[r - 1];
  int64_t k = 0;
  while (true) {
    std::array<int64_t, N> o = off;
    for (int64_t j = 0; j < inner; ++j) {
      f(k++, o);
      for (std::size_t n = 0; n < N; ++n) o[n] += step[n];
    }
    int d = r - 2;
    for (; d >= 0; --d) {
      ++idx[d];
      for (std::size_t n = 0; n < N; ++n) off[n] += ops[n]->strides[d];
      if (idx[d] < shape[d]) break;
      for (std::size_t n = 0; n < N; ++n) off[n] -= ops[n]->strides[d] * shape[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// f16 values are rounded on every store.
void roundStored(View& v) {
  if (v.dtype != DType::F16) return;
  for (float& x : v.buf->f) x = roundToHalf(x);
}
void wrapStored(View& v) {
  if (storeOf(v.dtype) != Store::I64 || v.dtype == DType::I64) return;
  for (int64_t& x : v.buf->i) x = wrapInt(v.dtype, x);
}

template <class T> View materializeT(const View& v) {
  View r = dense<T>(v.dtype, v.shape);
  T* out = dataOf<T>(*r.buf);
  const T* in = v.data<T>();
  walk<1>(v.shape, {&v}, [&](int64_t k, const std::array<int64_t, 1>& o) { out[k] = in[o[0]]; });
  return r;
}
View materialize(const View& v) {
  switch (storeOf(v.dtype)) {
    case Store::F32: return materializeT<float>(v);
    case Store::F64: return materializeT<double>(v);
    case Store::I64: return materializeT<int64_t>(v);
  }
  return v;
}

// ---------------------------------------------------------------- conversions
View fromHost(const HostTensor& t) {
  View v;
  switch (storeOf(t.dtype())) {
    case Store::F32: {
      v = dense<float>(t.dtype(), t.shape());
      for (int64_t i = 0; i < t.numel(); ++i) v.buf->f[i] = static_cast<float>(t.getDouble(i));
      break;
    }
    case Store::F64: {
      v = dense<double>(t.dtype(), t.shape());
      for (int64_t i = 0; i < t.numel(); ++i) v.buf->d[i] = t.getDouble(i);
      break;
    }
    case Store::I64: {
      v = dense<int64_t>(t.dtype(), t.shape());
      for (int64_t i = 0; i < t.numel(); ++i) v.buf->i[i] = t.getInt(i);
      break;
    }
  }
  return v;
}

HostTensor toHost(const View& in) {
  const View v = isDense(in) ? in : materialize(in);
  HostTensor t(v.dtype, v.shape);
  const int64_t n = t.numel();
  if (n == 0) return t;  // (memcpy of nothing from an empty vector's null pointer is still UB)
  switch (v.dtype) {
    case DType::F16:
      for (int64_t i = 0; i < n; ++i) t.data<uint16_t>()[i] = floatToHalf(v.buf->f[v.offset + i]);
      break;
    case DType::F32: std::memcpy(t.bytes(), v.buf->f.data() + v.offset, n * sizeof(float)); break;
    case DType::F64: std::memcpy(t.bytes(), v.buf->d.data() + v.offset, n * sizeof(double)); break;
    default:
      for (int64_t i = 0; i < n; ++i) t.setInt(i, v.buf->i[v.offset + i]);
      break;
  }
  return t;
}

View constView(const Scalar& s) {
  View v;
  switch (storeOf(s.dtype())) {
    case Store::F32: v = dense<float>(s.dtype(), {}); v.buf->f[0] = static_cast<float>(s.toDouble()); break;
    case Store::F64: v = dense<double>(s.dtype(), {}); v.buf->d[0] = s.toDouble(); break;
    case Store::I64: v = dense<int64_t>(s.dtype(), {}); v.buf->i[0] = s.toInt(); break;
  }
  return v;
}

// ---------------------------------------------------------------- movement (views)
View expandView(const View& v, const Shape& shape) {
  View r = v;
  r.shape = shape;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (v.shape[i] != shape[i]) r.strides[i] = 0;
  return r;
}

View permuteView(const View& v, const std::vector<int64_t>& axes) {
  View r = v;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    r.shape[i] = v.shape[axes[i]];
    r.strides[i] = v.strides[axes[i]];
  }
  return r;
}

View reshapeView(const View& v, const Shape& shape) {
  View r = isDense(v) ? v : materialize(v);
  r.shape = shape;
  r.strides = rowMajorStrides(shape);
  return r;
}

View narrowView(const View& v, int axis, int64_t start, int64_t len) {
  View r = v;
  r.offset += start * v.strides[axis];
  r.shape[axis] = len;
  return r;
}

View flipView(const View& v, const std::vector<int64_t>& axes) {
  View r = v;
  for (int64_t a : axes) {
    if (r.shape[a] == 0) continue;
    r.offset += (r.shape[a] - 1) * r.strides[a];
    r.strides[a] = -r.strides[a];
  }
  return r;
}

template <class T> View padT(const View& in, int axis, int64_t lp, int64_t rp, T fill) {
  Shape s = in.shape;
  s[axis] += lp + rp;
  View out = dense<T>(in.dtype, s);
  std::fill(vecOf<T>(*out.buf).begin(), vecOf<T>(*out.buf).end(), fill);
  const int64_t d = in.shape[axis];
  const int64_t srcStart = lp < 0 ? -lp : 0, srcEnd = d - (rp < 0 ? -rp : 0);
  if (srcEnd <= srcStart) return out;
  const View src = narrowView(in, axis, srcStart, srcEnd - srcStart);
  const View dst = narrowView(out, axis, lp > 0 ? lp : 0, srcEnd - srcStart);
  T* o = dataOf<T>(*out.buf);
  const T* x = in.data<T>();
  walk<2>(src.shape, {&dst, &src}, [&](int64_t, const std::array<int64_t, 2>& off) { o[off[0]] = x[off[1]]; });
  return out;
}

View pad(const View& in, const Node& n) {
  const int axis = static_cast<int>(n.attr[0]);
  switch (storeOf(in.dtype)) {
    case Store::F32: return padT<float>(in, axis, n.attr[1], n.attr[2], static_cast<float>(n.value.toDouble()));
    case Store::F64: return padT<double>(in, axis, n.attr[1], n.attr[2], n.value.toDouble());
    case Store::I64: return padT<int64_t>(in, axis, n.attr[1], n.attr[2], n.value.toInt());
  }
  return in;
}

// ---------------------------------------------------------------- cast / bitcast
template <class S, class D> View castT(const View& in, DType to) {
  View out = dense<D>(to, in.shape);
  D* o = dataOf<D>(*out.buf);
  const S* x = in.data<S>();
  const DType from = in.dtype;
  walk<1>(in.shape, {&in}, [&](int64_t k, const std::array<int64_t, 1>& off) {
    const S v = x[off[0]];
    if constexpr (std::is_same_v<D, int64_t>) {
      if constexpr (std::is_same_v<S, int64_t>) {
        o[k] = to == DType::Bool ? (v != 0) : wrapInt(to, v);
      } else {
        o[k] = to == DType::Bool ? (v != 0) : floatToInt(to, static_cast<double>(v));
      }
    } else {
      (void)from;
      o[k] = static_cast<D>(v);
    }
  });
  roundStored(out);
  return out;
}

template <class S> View castFrom(const View& in, DType to) {
  switch (storeOf(to)) {
    case Store::F32: return castT<S, float>(in, to);
    case Store::F64: return castT<S, double>(in, to);
    case Store::I64: return castT<S, int64_t>(in, to);
  }
  return in;
}

View cast(const View& in, DType to) {
  switch (storeOf(in.dtype)) {
    case Store::F32: return castFrom<float>(in, to);
    case Store::F64: return castFrom<double>(in, to);
    case Store::I64: return castFrom<int64_t>(in, to);
  }
  return in;
}

View bitcast(const View& in, DType to) {
  const HostTensor src = toHost(in);
  HostTensor dst(to, src.shape());
  std::memcpy(dst.bytes(), src.bytes(), src.byteSize());
  return fromHost(dst);
}

// ---------------------------------------------------------------- unary
// An integer unary op the graph allows but that has no integer meaning is an error here.
int64_t intUnaryOrThrow(UnaryOp u, int64_t x, DType t) {
  if (const auto r = intUnary(u, x, t)) return *r;
  throw Error(ErrorCode::DType, std::string(unaryOpName(u)) + " of an integer tensor (" + std::string(dtypeName(t)) +
                                    ") is not defined", {}, "host");
}

template <class T> View unaryT(const View& in, UnaryOp u, DType outT) {
  if (u == UnaryOp::IsNan) {
    View out = dense<int64_t>(DType::Bool, in.shape);
    const T* x = in.data<T>();
    int64_t* o = out.buf->i.data();
    walk<1>(in.shape, {&in}, [&](int64_t k, const std::array<int64_t, 1>& off) {
      if constexpr (std::is_same_v<T, int64_t>) o[k] = 0;
      else o[k] = std::isnan(x[off[0]]);
    });
    return out;
  }
  View out = dense<T>(outT, in.shape);
  const T* x = in.data<T>();
  T* o = dataOf<T>(*out.buf);
  walk<1>(in.shape, {&in}, [&](int64_t k, const std::array<int64_t, 1>& off) {
    if constexpr (std::is_same_v<T, int64_t>) o[k] = intUnaryOrThrow(u, x[off[0]], outT);
    else o[k] = floatUnary<T>(u, x[off[0]]);
  });
  roundStored(out);
  return out;
}

View unary(const View& in, UnaryOp u, DType outT) {
  switch (storeOf(in.dtype)) {
    case Store::F32: return unaryT<float>(in, u, outT);
    case Store::F64: return unaryT<double>(in, u, outT);
    case Store::I64: return unaryT<int64_t>(in, u, outT);
  }
  return in;
}

// ---------------------------------------------------------------- binary
template <class T> View binaryT(BinaryOp b, const View& x0, const View& y0, const Shape& shape, DType outT) {
  const View x = broadcastView(x0, shape), y = broadcastView(y0, shape);
  const T* a = x.data<T>();
  const T* c = y.data<T>();
  const DType t = x.dtype;
  if (isComparison(b)) {
    View out = dense<int64_t>(DType::Bool, shape);
    int64_t* o = out.buf->i.data();
    walk<2>(shape, {&x, &y}, [&](int64_t k, const std::array<int64_t, 2>& off) {
      if constexpr (std::is_same_v<T, int64_t>) o[k] = intBinary(b, a[off[0]], c[off[1]], t);
      else o[k] = floatBinary<T>(b, a[off[0]], c[off[1]]) != T(0);
    });
    return out;
  }
  View out = dense<T>(outT, shape);
  T* o = dataOf<T>(*out.buf);
  walk<2>(shape, {&x, &y}, [&](int64_t k, const std::array<int64_t, 2>& off) {
    if constexpr (std::is_same_v<T, int64_t>) o[k] = intBinary(b, a[off[0]], c[off[1]], t);
    else o[k] = floatBinary<T>(b, a[off[0]], c[off[1]]);
  });
  roundStored(out);
  return out;
}

View binary(BinaryOp b, const View& x, const View& y, const Shape& shape, DType outT) {
  switch (storeOf(x.dtype)) {
    case Store::F32: return binaryT<float>(b, x, y, shape, outT);
    case Store::F64: return binaryT<double>(b, x, y, shape, outT);
    case Store::I64: return binaryT<int64_t>(b, x, y, shape, outT);
  }
  return x;
}

// ---------------------------------------------------------------- where
template <class T> View whereT(const View& c0, const View& a0, const View& b0, const Shape& shape, DType outT) {
  const View c = broadcastView(c0, shape), a = broadcastView(a0, shape), b = broadcastView(b0, shape);
  View out = dense<T>(outT, shape);
  T* o = dataOf<T>(*out.buf);
  const int64_t* cd = c.data<int64_t>();
  const T* ad = a.data<T>();
  const T* bd = b.data<T>();
  walk<3>(shape, {&c, &a, &b}, [&](int64_t k, const std::array<int64_t, 3>& off) {
    o[k] = cd[off[0]] != 0 ? ad[off[1]] : bd[off[2]];
  });
  return out;
}

View where(const View& c, const View& a, const View& b, const Shape& shape, DType outT) {
  switch (storeOf(outT)) {
    case Store::F32: return whereT<float>(c, a, b, shape, outT);
    case Store::F64: return whereT<double>(c, a, b, shape, outT);
    case Store::I64: return whereT<int64_t>(c, a, b, shape, outT);
  }
  return a;
}

// ---------------------------------------------------------------- reduce
template <class T> T identity(ReduceOp r, DType t) {
  switch (r) {
    case ReduceOp::Sum: return T(0);
    case ReduceOp::Prod: return T(1);
    case ReduceOp::Max:
      if constexpr (std::is_same_v<T, int64_t>) {
        switch (t) {
          case DType::I8: return -128;
          case DType::I16: return -32768;
          case DType::I32: return std::numeric_limits<int32_t>::min();
          case DType::I64: return std::numeric_limits<int64_t>::min();
          default: return 0;
        }
      } else {
        return -std::numeric_limits<T>::infinity();
      }
    case ReduceOp::Min:
      if constexpr (std::is_same_v<T, int64_t>) {
        switch (t) {
          case DType::Bool: return 1;
          case DType::U8: return 255;
          case DType::I8: return 127;
          case DType::I16: return 32767;
          case DType::I32: return std::numeric_limits<int32_t>::max();
          case DType::U32: return std::numeric_limits<uint32_t>::max();
          default: return std::numeric_limits<int64_t>::max();
        }
      } else {
        return std::numeric_limits<T>::infinity();
      }
  }
  return T(0);
}

template <class T> inline void accumulate(ReduceOp r, T& acc, T v) {
  switch (r) {
    case ReduceOp::Sum:
      if constexpr (std::is_same_v<T, int64_t>) acc = static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(v));
      else acc += v;
      return;
    case ReduceOp::Prod:
      if constexpr (std::is_same_v<T, int64_t>) acc = static_cast<int64_t>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(v));
      else acc *= v;
      return;
    case ReduceOp::Max:
      if constexpr (!std::is_same_v<T, int64_t>) {
        if (std::isnan(acc)) return;
        if (std::isnan(v)) { acc = v; return; }
      }
      if (v > acc) acc = v;
      return;
    case ReduceOp::Min:
      if constexpr (!std::is_same_v<T, int64_t>) {
        if (std::isnan(acc)) return;
        if (std::isnan(v)) { acc = v; return; }
      }
      if (v < acc) acc = v;
      return;
  }
}

// Kept axes first, reduced axes last (in their order), so each output element is one run.
struct ReduceLayout {
  std::vector<int64_t> perm;
  Shape outShape;
  int64_t runLength = 1;
};
ReduceLayout reduceLayout(const Shape& s, const std::vector<int64_t>& axes) {
  ReduceLayout l;
  std::vector<bool> red(s.size(), false);
  for (int64_t a : axes) red[a] = true;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!red[i]) {
      l.perm.push_back(static_cast<int64_t>(i));
      l.outShape.push_back(s[i]);
    }
  for (int64_t a : axes) {
    l.perm.push_back(a);
    l.runLength *= s[a];
  }
  return l;
}

// Splits a view of shape kept ++ reduced (see ReduceLayout) into the view over the kept axes
// and the view over the reduced axes (offset 0: it is added per output element).
std::pair<View, View> splitRuns(const View& p, std::size_t keptRank) {
  View kept = p, red = p;
  kept.shape.assign(p.shape.begin(), p.shape.begin() + keptRank);
  kept.strides.assign(p.strides.begin(), p.strides.begin() + keptRank);
  red.shape.assign(p.shape.begin() + keptRank, p.shape.end());
  red.strides.assign(p.strides.begin() + keptRank, p.strides.end());
  red.offset = 0;
  return {kept, red};
}

// Calls f(k, offsets) for every output element k and then g(k, offsets, j) ... : visits, for each
// output element k, the reduced elements in row-major order as element offsets of N operands.
template <std::size_t N, class Init, class Step, class Done>
void walkRuns(const std::array<const View*, N>& ops, std::size_t keptRank, Init&& init, Step&& step, Done&& done) {
  std::array<View, N> kept, red;
  for (std::size_t n = 0; n < N; ++n) std::tie(kept[n], red[n]) = splitRuns(*ops[n], keptRank);
  std::array<const View*, N> keptPtr;
  for (std::size_t n = 0; n < N; ++n) keptPtr[n] = &kept[n];
  const Shape& rs = red[0].shape;
  walk<N>(kept[0].shape, keptPtr, [&](int64_t k, const std::array<int64_t, N>& base) {
    init(k);
    if (rs.size() == 1) {  // the common case (matmul, softmax): one strided run
      const int64_t len = rs[0];
      std::array<int64_t, N> o = base, st;
      for (std::size_t n = 0; n < N; ++n) st[n] = red[n].strides[0];
      for (int64_t j = 0; j < len; ++j) {
        step(k, o);
        for (std::size_t n = 0; n < N; ++n) o[n] += st[n];
      }
    } else {
      std::array<View, N> sub = red;
      std::array<const View*, N> subPtr;
      for (std::size_t n = 0; n < N; ++n) {
        sub[n].offset = base[n];
        subPtr[n] = &sub[n];
      }
      walk<N>(rs, subPtr, [&](int64_t, const std::array<int64_t, N>& o) { step(k, o); });
    }
    done(k);
  });
}

template <class T> View reduceT(const View& in, ReduceOp r, const std::vector<int64_t>& axes, DType outT) {
  const ReduceLayout l = reduceLayout(in.shape, axes);
  View out = dense<T>(outT, l.outShape);
  T* o = dataOf<T>(*out.buf);
  const T init = identity<T>(r, outT);
  const T* x = in.data<T>();
  const View p = permuteView(in, l.perm);
  T acc = init;
  if (l.runLength == 0) {
    std::fill(vecOf<T>(*out.buf).begin(), vecOf<T>(*out.buf).end(), init);
  } else {
    walkRuns<1>({&p}, l.outShape.size(), [&](int64_t) { acc = init; },
                [&](int64_t, const std::array<int64_t, 1>& off) { accumulate<T>(r, acc, x[off[0]]); },
                [&](int64_t k) { o[k] = acc; });
  }
  wrapStored(out);
  roundStored(out);
  return out;
}

// Sum over the last axes of a float Mul whose product is used only here (a matmul): the same
// values and order as materializing the product first, without its memory.
template <class T> View sumOfProductT(const View& x0, const View& y0, const Shape& shape,
                                      const std::vector<int64_t>& axes, DType outT) {
  const View x = broadcastView(x0, shape), y = broadcastView(y0, shape);
  const ReduceLayout l = reduceLayout(shape, axes);
  View out = dense<T>(outT, l.outShape);
  T* o = dataOf<T>(*out.buf);
  if (l.runLength > 0) {
    const View px = permuteView(x, l.perm), py = permuteView(y, l.perm);
    const T* a = x.data<T>();
    const T* b = y.data<T>();
    T acc = 0;
    walkRuns<2>({&px, &py}, l.outShape.size(), [&](int64_t) { acc = T(0); },
                [&](int64_t, const std::array<int64_t, 2>& off) {
                  const T prod = a[off[0]] * b[off[1]];
                  acc += prod;
                },
                [&](int64_t k) { o[k] = acc; });
  }
  return out;
}

View reduce(const View& in, ReduceOp r, const std::vector<int64_t>& axes, DType outT) {
  switch (storeOf(in.dtype)) {
    case Store::F32: return reduceT<float>(in, r, axes, outT);
    case Store::F64: return reduceT<double>(in, r, axes, outT);
    case Store::I64: return reduceT<int64_t>(in, r, axes, outT);
  }
  return in;
}

// ---------------------------------------------------------------- driver
class Run {
 public:
  Run(const Graph& g, const std::vector<HostTensor>& leaves, std::vector<ClassId>* evaluated)
      : g_(g), leaves_(leaves), evaluated_(evaluated) {}

  std::vector<HostTensor> operator()(const std::vector<ClassId>& requested) {
    std::vector<ClassId> outputs;  // canonical: a requested class may have been merged
    for (ClassId o : requested) {
      if (!o.valid() || o.v >= g_.classCount())
        throw Error(ErrorCode::Usage, "output class %" + std::to_string(o.v) + " is not in the graph", {}, "host");
      outputs.push_back(g_.find(o));
    }
    const std::vector<ClassId> order = g_.topoOrder(outputs);
    // Remaining uses per class, so buffers are released when their last consumer ran.
    for (ClassId c : order)
      for (ClassId d : g_.structural(c).in) ++uses_[d.v];
    for (ClassId o : outputs) ++uses_[o.v];
    findFusedProducts(order);
    for (ClassId c : order) {
      if (fused_.count(c.v)) continue;
      View v = evalNamed(c);
      if (evaluated_) evaluated_->push_back(c);
      values_.emplace(c.v, std::move(v));
      for (ClassId d : operandsOf(c)) release(d);
    }
    std::vector<HostTensor> result;
    for (ClassId o : outputs) result.push_back(toHost(values_.at(o.v)));
    return result;
  }

 private:
  // The operands eval(c) actually read (a fused product's operands instead of the product).
  std::vector<ClassId> operandsOf(ClassId c) const {
    const Node& n = g_.structural(c);
    if (n.kind == NodeKind::Reduce && fused_.count(n.in[0].v)) return g_.structural(n.in[0]).in;
    return n.in;
  }

  void release(ClassId d) {
    if (--uses_[d.v] == 0) values_.erase(d.v);
  }

  void findFusedProducts(const std::vector<ClassId>& order) {
    for (ClassId c : order) {
      const Node& n = g_.structural(c);
      if (n.kind != NodeKind::Reduce || n.reduceOp() != ReduceOp::Sum) continue;
      const ClassId p = n.in[0];
      const Node& pn = g_.structural(p);
      const DType t = g_.dtype(p);
      if (pn.kind == NodeKind::Binary && pn.binaryOp() == BinaryOp::Mul && uses_[p.v] == 1 &&
          (t == DType::F32 || t == DType::F64)) {
        // The reduce reads the product's operands directly; the product's own operand uses
        // stand for those reads (operandsOf releases them after the reduce).
        fused_.insert(p.v);
      }
    }
  }

  const View& value(ClassId c) const { return values_.at(c.v); }

  // eval, with the value that could not be allocated named by its class and op.
  View evalNamed(ClassId c) {
    try {
      return eval(c);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Allocation) throw;
      throw Error(ErrorCode::Allocation, "class %" + std::to_string(c.v) + " (" + g_.structural(c).label() + "): " + e.message(),
                  e.where(), "host");
    }
  }

  View leaf(const Node& n) {
    const LeafInfo& info = g_.leaf(n.ref);
    const bool have = n.ref < leaves_.size() && leaves_[n.ref].dtype() == info.dtype && leaves_[n.ref].shape() == info.shape;
    if (info.kind == LeafKind::Constant && info.data && !have) return fromHost(*info.data);
    if (!have) {
      std::string got = n.ref < leaves_.size() ? std::string(dtypeName(leaves_[n.ref].dtype())) + shapeStr(leaves_[n.ref].shape())
                                               : std::string("nothing");
      throw Error(ErrorCode::Usage, "leaf '" + info.name + "' needs " + std::string(dtypeName(info.dtype)) +
                                        shapeStr(info.shape) + ", got " + got, {}, "host");
    }
    return fromHost(leaves_[n.ref]);
  }

  View eval(ClassId c) {
    const Node& n = g_.structural(c);
    const Shape& shape = g_.shape(c);
    const DType t = g_.dtype(c);
    auto in = [&](std::size_t i) -> const View& { return value(n.in[i]); };
    switch (n.kind) {
      case NodeKind::Const: return constView(n.value);
      case NodeKind::Leaf: return leaf(n);
      case NodeKind::Expand: return expandView(in(0), shape);
      case NodeKind::Permute: return permuteView(in(0), n.attr);
      case NodeKind::Reshape: return reshapeView(in(0), shape);
      case NodeKind::Pad: return pad(in(0), n);
      case NodeKind::Narrow: return narrowView(in(0), static_cast<int>(n.attr[0]), n.attr[1], n.attr[2]);
      case NodeKind::Flip: return flipView(in(0), n.attr);
      case NodeKind::Reduce: {
        if (fused_.count(n.in[0].v)) {
          const Node& pn = g_.structural(n.in[0]);
          const Shape& ps = g_.shape(n.in[0]);
          if (t == DType::F32) return sumOfProductT<float>(value(pn.in[0]), value(pn.in[1]), ps, n.attr, t);
          return sumOfProductT<double>(value(pn.in[0]), value(pn.in[1]), ps, n.attr, t);
        }
        return reduce(in(0), n.reduceOp(), n.attr, t);
      }
      case NodeKind::Cast: return cast(in(0), t);
      case NodeKind::Bitcast: return bitcast(in(0), t);
      case NodeKind::Unary: return unary(in(0), n.unaryOp(), t);
      case NodeKind::Binary: return binary(n.binaryOp(), in(0), in(1), shape, t);
      case NodeKind::Where: return where(in(0), in(1), in(2), shape, t);
      case NodeKind::Contiguous:
      case NodeKind::ToDevice: return in(0);
      case NodeKind::Kernel: break;
    }
    throw Error(ErrorCode::Unsupported, "class %" + std::to_string(c.v) + " has no structural node the host can run (" +
                                            n.label() + ")", {}, "host");
  }

  const Graph& g_;
  const std::vector<HostTensor>& leaves_;
  std::vector<ClassId>* evaluated_;
  std::unordered_map<uint32_t, View> values_;
  std::unordered_map<uint32_t, int64_t> uses_;
  std::unordered_set<uint32_t> fused_;
};

}  // namespace

std::vector<HostTensor> HostExecutor::run(const Graph& graph, const std::vector<ClassId>& outputs,
                                          const std::vector<HostTensor>& leaves, std::vector<ClassId>* evaluated) {
  return Run(graph, leaves, evaluated)(outputs);
}

}  // namespace ks
