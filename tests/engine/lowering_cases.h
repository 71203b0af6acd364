// Hand-built kernels shared by the lowering and OpenCL tests: movement chains, reductions after
// movement, several stores, matmul form and every dtype class, with random inputs and the
// DESIGN.md §2.1 comparison.
#pragma once
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/core/host_tensor.h"
#include "engine/kernel/kernel.h"
#include "engine/kernel/schedule.h"

namespace ks::testing {

struct KernelCase {
  std::string name;
  Kernel kernel;
  int64_t reduceLen = 1;  // longest reduction, for the tolerance
};

inline int32_t rd(Kernel& k, DType t, Shape s) { return k.param(ParamKind::Read, t, s); }
inline int32_t rw(Kernel& k, DType t, Shape s) { return k.param(ParamKind::ReadWrite, t, s); }

inline KernelCase matmulCase(const std::string& name, int64_t M, int64_t N, int64_t K, bool bias) {
  Kernel k;
  const int32_t a = rd(k, DType::F32, {M, K}), b = rd(k, DType::F32, {K, N});
  int32_t c = bias ? rd(k, DType::F32, {N}) : -1;
  const int32_t out = rw(k, DType::F32, {M, N});
  const int32_t ae = k.move(k.move(a, MoveKind::Reshape, {M, 1, K}), MoveKind::Expand, {M, N, K});
  const int32_t bt = k.move(b, MoveKind::Permute, {1, 0});
  const int32_t be = k.move(k.move(bt, MoveKind::Reshape, {1, N, K}), MoveKind::Expand, {M, N, K});
  int32_t v = k.reduce(k.binary(ae, be, BinaryOp::Mul), ReduceOp::Sum);
  if (bias) {
    const int32_t ce = k.move(k.move(c, MoveKind::Reshape, {1, N}), MoveKind::Expand, {M, N});
    v = k.binary(k.binary(v, ce, BinaryOp::Add), k.constant(Scalar::of(DType::F32, 0)), BinaryOp::Max);
  }
  k.store(out, v);
  return {name, k, K};
}

inline std::vector<KernelCase> loweringCases() {
  std::vector<KernelCase> cs;
  {  // broadcast + elementwise
    Kernel k;
    const int32_t a = rd(k, DType::F32, {4, 5}), b = rd(k, DType::F32, {1, 5}), o = rw(k, DType::F32, {4, 5});
    const int32_t be = k.move(b, MoveKind::Expand, {4, 5});
    k.store(o, k.unary(k.binary(k.binary(a, be, BinaryOp::Add), k.constant(Scalar::of(DType::F32, 0.5)), BinaryOp::Mul),
                       UnaryOp::Exp));
    cs.push_back({"broadcast_exp", k});
  }
  {  // permute, pad (-inf), flip, narrow, reshape chain
    Kernel k;
    const int32_t x = rd(k, DType::F32, {3, 4, 5}), o = rw(k, DType::F32, {30, 3});
    int32_t v = k.move(x, MoveKind::Permute, {2, 0, 1});                                 // [5,3,4]
    v = k.move(v, MoveKind::Pad, {1, 1, 2}, Scalar::of(DType::F32, -INFINITY));         // [5,6,4]
    v = k.move(v, MoveKind::Flip, {0, 2});
    v = k.move(v, MoveKind::Narrow, {2, 1, 3});                                         // [5,6,3]
    v = k.move(v, MoveKind::Reshape, {30, 3});
    k.store(o, k.binary(v, k.constant(Scalar::of(DType::F32, 2)), BinaryOp::Mul));
    cs.push_back({"movement_chain", k});
  }
  {  // crop (negative pad) then pad on another axis, reshape splitting an axis
    Kernel k;
    const int32_t x = rd(k, DType::F32, {6, 10}), o = rw(k, DType::F32, {2, 4, 9});
    int32_t v = k.move(x, MoveKind::Pad, {0, -1, -1});                                   // [4,10]
    v = k.move(v, MoveKind::Pad, {1, 0, -1});                                           // [4,9]
    v = k.move(v, MoveKind::Reshape, {2, 2, 9});
    v = k.move(v, MoveKind::Pad, {1, 1, 1}, Scalar::of(DType::F32, 3));                 // [2,4,9]
    k.store(o, k.unary(v, UnaryOp::Neg));
    cs.push_back({"crop_pad_reshape", k});
  }
  {  // reduce after permute, max with NaN-propagation path, pad inside a reduce (max-pool like)
    Kernel k;
    const int32_t x = rd(k, DType::F32, {6, 7}), o = rw(k, DType::F32, {7}), o2 = rw(k, DType::F32, {6});
    k.store(o, k.reduce(k.move(x, MoveKind::Permute, {1, 0}), ReduceOp::Sum));
    const int32_t p = k.move(x, MoveKind::Pad, {1, 2, 1}, Scalar::of(DType::F32, -INFINITY));
    k.store(o2, k.reduce(p, ReduceOp::Max));
    cs.push_back({"reduce_after_movement", k, 10});
  }
  {  // several stores of different shapes: exp(x) and its row sums
    Kernel k;
    const int32_t x = rd(k, DType::F32, {8, 9}), o = rw(k, DType::F32, {8, 9}), s = rw(k, DType::F32, {8});
    const int32_t e = k.unary(x, UnaryOp::Exp);
    k.store(o, e);
    k.store(s, k.reduce(e, ReduceOp::Sum));
    cs.push_back({"multi_store", k, 9});
  }
  {  // softmax-like second kernel: x - max + log(sum exp)
    Kernel k;
    const int32_t x = rd(k, DType::F32, {4, 300}), o = rw(k, DType::F32, {4});
    const int32_t m = k.reduce(x, ReduceOp::Max);
    const int32_t s = k.reduce(k.unary(x, UnaryOp::Exp), ReduceOp::Sum);
    k.store(o, k.binary(m, k.unary(s, UnaryOp::Log), BinaryOp::Add));
    cs.push_back({"two_reduces", k, 300});
  }
  {  // a long reduction with few outputs (rank-0 output)
    Kernel k;
    const int32_t x = rd(k, DType::F32, {5003}), o = rw(k, DType::F32, {});
    k.store(o, k.reduce(x, ReduceOp::Sum));
    cs.push_back({"long_sum", k, 5003});
  }
  {  // reduce followed by elementwise with another input at output index
    Kernel k;
    const int32_t x = rd(k, DType::F32, {3, 777}), b = rd(k, DType::F32, {3}), o = rw(k, DType::F32, {3});
    k.store(o, k.binary(k.reduce(k.unary(x, UnaryOp::Abs), ReduceOp::Max), b, BinaryOp::Sub));
    cs.push_back({"reduce_then_add", k, 777});
  }
  {  // nested reduce: sum over the last two axes
    Kernel k;
    const int32_t x = rd(k, DType::F32, {3, 4, 5}), o = rw(k, DType::F32, {3});
    k.store(o, k.reduce(k.reduce(x, ReduceOp::Sum), ReduceOp::Sum));
    cs.push_back({"nested_reduce", k, 20});
  }
  {  // a convolution's two forms: nested reduces over a window, the result reshaped to the output's
     // axes keeping the grid; one reduce over an im2col row, its [c, h * w] result read as [c, h, w];
     // then bias and ReLU. Few outputs, so cooperative schedules apply.
    Kernel k;
    const int32_t x = rd(k, DType::F32, {1, 6, 5, 72, 3}), b = rd(k, DType::F32, {6, 1, 1}), o = rw(k, DType::F32, {6, 5, 1});
    const int32_t r = k.move(k.reduce(k.reduce(x, ReduceOp::Sum), ReduceOp::Sum), MoveKind::Reshape, {6, 5, 1});
    const int32_t be = k.move(b, MoveKind::Expand, {6, 5, 1});
    k.store(o, k.binary(k.binary(r, be, BinaryOp::Add), k.constant(Scalar::of(DType::F32, 0)), BinaryOp::Max));
    cs.push_back({"conv_reduce_reshape", k, 216});
  }
  {
    Kernel k;
    const int32_t x = rd(k, DType::F32, {1, 4, 6, 80}), b = rd(k, DType::F32, {1, 4, 1, 1}), o = rw(k, DType::F32, {1, 4, 2, 3});
    const int32_t r = k.move(k.reduce(x, ReduceOp::Sum), MoveKind::Reshape, {1, 4, 2, 3});
    const int32_t be = k.move(b, MoveKind::Expand, {1, 4, 2, 3});
    k.store(o, k.binary(k.binary(r, be, BinaryOp::Add), k.constant(Scalar::of(DType::F32, 0)), BinaryOp::Max));
    cs.push_back({"im2col_reduce_reshape", k, 80});
  }
  {  // softmax as the row-normalization rule fuses it: max and sum broadcast back over the row
    Kernel k;
    const int64_t R = 6, N = 64;
    const int32_t x = rd(k, DType::F32, {R, N}), o = rw(k, DType::F32, {R, N});
    auto back = [&](int32_t v) { return k.move(k.move(v, MoveKind::Reshape, {R, 1}), MoveKind::Expand, {R, N}); };
    const int32_t e = k.unary(k.binary(x, back(k.reduce(x, ReduceOp::Max)), BinaryOp::Sub), UnaryOp::Exp);
    k.store(o, k.binary(e, back(k.reduce(e, ReduceOp::Sum)), BinaryOp::Div));
    cs.push_back({"softmax_row", k, N});
  }
  {  // a row's max and min broadcast back: a NaN in the row must reach every output of the row
    Kernel k;
    const int64_t R = 4, N = 48;
    const int32_t x = rd(k, DType::F32, {R, N}), o = rw(k, DType::F32, {R, N});
    auto back = [&](int32_t v) { return k.move(k.move(v, MoveKind::Reshape, {R, 1}), MoveKind::Expand, {R, N}); };
    const int32_t d = k.binary(x, back(k.reduce(x, ReduceOp::Max)), BinaryOp::Sub);
    k.store(o, k.binary(d, back(k.reduce(k.unary(x, UnaryOp::Neg), ReduceOp::Min)), BinaryOp::Add));
    cs.push_back({"max_min_row", k, N});
  }
  {  // layer norm over [2, 3, 32] rows with a scale: the variance reduce reads the mean reduce
    Kernel k;
    const int64_t N = 32;
    const Shape S{2, 3, N};
    const int32_t x = rd(k, DType::F32, S), gm = rd(k, DType::F32, {N}), o = rw(k, DType::F32, S);
    auto back = [&](int32_t v) { return k.move(k.move(v, MoveKind::Reshape, {2, 3, 1}), MoveKind::Expand, S); };
    const int32_t inv = k.constant(Scalar::of(DType::F32, 1.0 / N));
    const int32_t d = k.binary(x, back(k.binary(k.reduce(x, ReduceOp::Sum), inv, BinaryOp::Mul)), BinaryOp::Sub);
    const int32_t var = k.binary(k.reduce(k.binary(d, d, BinaryOp::Mul), ReduceOp::Sum), inv, BinaryOp::Mul);
    const int32_t rs = k.unary(k.binary(var, k.constant(Scalar::of(DType::F32, 1e-5)), BinaryOp::Add), UnaryOp::Rsqrt);
    const int32_t g = k.move(k.move(gm, MoveKind::Reshape, {1, 1, N}), MoveKind::Expand, S);
    k.store(o, k.binary(k.binary(d, back(rs), BinaryOp::Mul), g, BinaryOp::Mul));
    cs.push_back({"layer_norm_row", k, N});
  }
  cs.push_back(matmulCase("matmul_odd", 13, 17, 19, true));
  cs.push_back(matmulCase("matmul_even", 16, 32, 24, false));
  {  // batched matmul form over [B, M, N, K]
    Kernel k;
    const int64_t B = 2, M = 5, N = 8, K = 6;
    const int32_t a = rd(k, DType::F32, {B, M, K}), b = rd(k, DType::F32, {B, K, N}), o = rw(k, DType::F32, {B, M, N});
    const int32_t ae = k.move(k.move(a, MoveKind::Reshape, {B, M, 1, K}), MoveKind::Expand, {B, M, N, K});
    const int32_t be = k.move(k.move(k.move(b, MoveKind::Permute, {0, 2, 1}), MoveKind::Reshape, {B, 1, N, K}),
                              MoveKind::Expand, {B, M, N, K});
    k.store(o, k.reduce(k.binary(ae, be, BinaryOp::Mul), ReduceOp::Sum));
    cs.push_back({"batched_matmul", k, K});
  }
  {  // batched matmul form with sizes the local tiles divide, over a 4-d output
    Kernel k;
    const int64_t B0 = 2, B1 = 2, M = 8, N = 16, K = 16;
    const int32_t a = rd(k, DType::F32, {B0, B1, M, K}), b = rd(k, DType::F32, {B0, B1, K, N});
    const int32_t o = rw(k, DType::F32, {B0, B1, M, N});
    const int32_t ae = k.move(k.move(a, MoveKind::Reshape, {B0, B1, M, 1, K}), MoveKind::Expand, {B0, B1, M, N, K});
    const int32_t be = k.move(k.move(k.move(b, MoveKind::Permute, {0, 1, 3, 2}), MoveKind::Reshape, {B0, B1, 1, N, K}),
                              MoveKind::Expand, {B0, B1, M, N, K});
    k.store(o, k.unary(k.reduce(k.binary(ae, be, BinaryOp::Mul), ReduceOp::Sum), UnaryOp::Tanh));
    cs.push_back({"batched_matmul_even", k, K});
  }
  {  // the transformer's up-projection form: unit axes around the grid, a reshape after the reduce
    Kernel k;
    const int64_t M = 8, N = 16, K = 16;
    const int32_t a = rd(k, DType::F32, {1, M, 1, K}), b = rd(k, DType::F32, {K, N}), o = rw(k, DType::F32, {1, M, 1, N});
    const int32_t ae = k.move(a, MoveKind::Expand, {1, M, N, K});
    const int32_t be = k.move(k.move(k.move(b, MoveKind::Permute, {1, 0}), MoveKind::Reshape, {1, 1, N, K}),
                              MoveKind::Expand, {1, M, N, K});
    const int32_t v = k.unary(k.reduce(k.binary(ae, be, BinaryOp::Mul), ReduceOp::Sum), UnaryOp::Erf);
    k.store(o, k.move(v, MoveKind::Reshape, {1, M, 1, N}));
    cs.push_back({"matmul_unit_axes", k, K});
  }
  {  // ints: div/mod with negative values and zero divisors, max, sum in i64
    Kernel k;
    const int32_t a = rd(k, DType::I32, {6, 7}), b = rd(k, DType::I32, {6, 7});
    const int32_t o1 = rw(k, DType::I32, {6, 7}), o2 = rw(k, DType::I64, {6});
    const int32_t q = k.binary(a, b, BinaryOp::Div), r = k.binary(a, b, BinaryOp::Mod);
    k.store(o1, k.binary(k.binary(q, r, BinaryOp::Max), k.unary(a, UnaryOp::Neg), BinaryOp::Xor));
    k.store(o2, k.reduce(k.cast(k.binary(a, b, BinaryOp::Mul), DType::I64), ReduceOp::Sum));
    cs.push_back({"int_ops", k});
  }
  {  // bool: comparisons, where, logical ops, cast to u8 and to f32
    Kernel k;
    const int32_t a = rd(k, DType::F32, {5, 6}), b = rd(k, DType::F32, {5, 6});
    const int32_t ob = rw(k, DType::Bool, {5, 6}), ou = rw(k, DType::U8, {5, 6}), of = rw(k, DType::F32, {5, 6});
    const int32_t lt = k.binary(a, b, BinaryOp::CmpLt), ge = k.binary(a, k.constant(Scalar::of(DType::F32, 0)), BinaryOp::CmpGe);
    const int32_t c = k.binary(lt, ge, BinaryOp::Or);
    k.store(ob, k.unary(c, UnaryOp::Not));
    k.store(ou, k.cast(k.binary(a, k.constant(Scalar::of(DType::F32, 40)), BinaryOp::Mul), DType::U8));
    k.store(of, k.where(ge, k.unary(a, UnaryOp::Log), k.constant(Scalar::of(DType::F32, 0))));
    cs.push_back({"bool_where", k});
  }
  {  // f16 storage: computed in f32, rounded at every value; a sum accumulating in f32
    Kernel k;
    const int32_t a = rd(k, DType::F16, {4, 33}), o = rw(k, DType::F16, {4, 33}), s = rw(k, DType::F16, {4});
    const int32_t e = k.unary(k.binary(a, a, BinaryOp::Mul), UnaryOp::Exp);
    k.store(o, e);
    k.store(s, k.reduce(e, ReduceOp::Sum));
    cs.push_back({"f16", k, 33});
  }
  {  // f64 and a scalar param
    Kernel k;
    const int32_t a = rd(k, DType::F64, {7, 3}), sc = k.param(ParamKind::Scalar, DType::F64, {}),
                  o = rw(k, DType::F64, {7, 3});
    k.store(o, k.binary(k.unary(a, UnaryOp::Sin), sc, BinaryOp::Pow));
    cs.push_back({"f64_scalar", k});
  }
  {  // casts float -> int (saturating, NaN -> 0), i8 wrap
    Kernel k;
    const int32_t a = rd(k, DType::F32, {4, 8}), o = rw(k, DType::I8, {4, 8}), o2 = rw(k, DType::I32, {4, 8});
    const int32_t big = k.binary(a, k.constant(Scalar::of(DType::F32, 1e9)), BinaryOp::Mul);
    k.store(o2, k.cast(big, DType::I32));
    k.store(o, k.cast(k.cast(k.binary(a, k.constant(Scalar::of(DType::F32, 100)), BinaryOp::Mul), DType::I32), DType::I8));
    cs.push_back({"casts", k});
  }
  {  // bitcasts of every byte width the devices have without fp64: sign bits flipped through i32,
     // f16 bits masked to finite values and reinterpreted back, bytes read as i8 and as bool
    Kernel k;
    const int32_t a = rd(k, DType::F32, {6, 5}), h = rd(k, DType::F16, {6, 5}), u = rd(k, DType::U8, {6, 5});
    const int32_t of = rw(k, DType::F32, {6, 5}), oh = rw(k, DType::F16, {6, 5}), oi = rw(k, DType::I16, {6, 5});
    const int32_t oc = rw(k, DType::I8, {6, 5}), ob = rw(k, DType::Bool, {6, 5}), ou = rw(k, DType::U32, {6, 5});
    const int32_t flipped = k.binary(k.bitcast(a, DType::I32), k.constant(Scalar::ofInt(DType::I32, INT64_C(-2147483648))), BinaryOp::Xor);
    k.store(of, k.bitcast(flipped, DType::F32));
    const int32_t bits = k.bitcast(h, DType::I16);
    k.store(oi, bits);
    k.store(oh, k.bitcast(k.binary(bits, k.constant(Scalar::ofInt(DType::I16, 0x3bff)), BinaryOp::And), DType::F16));
    k.store(oc, k.bitcast(k.binary(u, k.constant(Scalar::ofInt(DType::U8, 200)), BinaryOp::Add), DType::I8));
    k.store(ob, k.bitcast(k.binary(u, k.constant(Scalar::ofInt(DType::U8, 3)), BinaryOp::And), DType::Bool));
    k.store(ou, k.bitcast(k.binary(a, k.constant(Scalar::of(DType::F32, -1.5)), BinaryOp::Mul), DType::U32));
    cs.push_back({"bitcasts", k});
  }
  {  // an elementwise kernel big enough for tiles and vectors
    Kernel k;
    const int32_t a = rd(k, DType::F32, {33, 64}), b = rd(k, DType::F32, {33, 64}), o = rw(k, DType::F32, {33, 64});
    int32_t v = k.binary(a, b, BinaryOp::Mul);
    v = k.binary(k.unary(v, UnaryOp::Tanh), k.move(b, MoveKind::Flip, {1}), BinaryOp::Add);
    k.store(o, k.binary(v, k.constant(Scalar::of(DType::F32, 1.5)), BinaryOp::Min));
    cs.push_back({"elementwise_2d", k});
  }
  return cs;
}

// One schedule per option (and a few combinations); some do not apply to every kernel.
inline std::vector<Schedule> optionSchedules() {
  std::vector<Schedule> v;
  auto add = [&v](auto f) {
    Schedule s;
    f(s);
    v.push_back(s);
  };
  add([](Schedule&) {});
  add([](Schedule& s) { s.wgN = 16; });
  add([](Schedule& s) { s.wgN = 4, s.wgM = 4; });
  add([](Schedule& s) { s.wgN = 3, s.wgM = 2; });
  add([](Schedule& s) { s.tileN = 4; });
  add([](Schedule& s) { s.tileM = 2, s.tileN = 3; });
  add([](Schedule& s) { s.tileM = 4, s.tileN = 4, s.vec = 4; });
  add([](Schedule& s) { s.tileM = 2, s.tileN = 8, s.vec = 8, s.wgN = 2, s.wgM = 2; });
  add([](Schedule& s) { s.vec = 4, s.tileN = 4; });
  add([](Schedule& s) { s.unroll = 4; });
  add([](Schedule& s) { s.unroll = 3, s.splitAcc = true; });
  add([](Schedule& s) { s.unroll = 8, s.vec = 8, s.splitAcc = true; });
  add([](Schedule& s) { s.tileM = 2, s.tileN = 4, s.unroll = 4, s.vec = 4; });
  add([](Schedule& s) { s.localReduce = 8; });
  add([](Schedule& s) { s.localReduce = 4, s.unroll = 4, s.vec = 4; });
  add([](Schedule& s) { s.groupSplit = 3; });
  add([](Schedule& s) { s.groupSplit = 4, s.localReduce = 2, s.unroll = 2, s.splitAcc = true; });
  add([](Schedule& s) { s.groupSplit = 16, s.unroll = 8, s.vec = 8, s.splitAcc = true; });
  add([](Schedule& s) { s.wgN = 4, s.wgM = 2, s.tileM = 2, s.tileN = 4, s.vec = 4, s.localTileK = 8; });
  add([](Schedule& s) { s.wgN = 4, s.wgM = 4, s.tileN = 2, s.unroll = 4, s.localTileK = 8; });
  add([](Schedule& s) { s.rowItems = 4, s.vec = 2; });
  add([](Schedule& s) { s.rowItems = 1; });
  add([](Schedule& s) { s.rowItems = 8, s.wgN = 8; });  // refused: a row schedule sets its own grid
  add([](Schedule& s) { s.rowItems = 1, s.rowLoop = true; });
  add([](Schedule& s) { s.rowItems = 2, s.vec = 2, s.unroll = 2, s.rowLoop = true; });
  add([](Schedule& s) { s.rowItems = 1, s.vec = 4, s.unroll = 3, s.rowLoop = true; });
  add([](Schedule& s) { s.rowItems = 1, s.unroll = 2, s.splitAcc = true, s.rowLoop = true; });  // refused: one accumulator per lane
  add([](Schedule& s) { s.rowLoop = true, s.vec = 4; });  // refused: no row items
  add([](Schedule& s) { s.vec = 3; });
  return v;
}

inline std::vector<HostTensor> randomBuffers(const Kernel& k, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<HostTensor> bufs;
  for (int32_t p : k.params()) {
    const KOp& o = k.at(p);
    HostTensor t(o.dtype, o.paramKind() == ParamKind::Scalar ? Shape{} : o.shape);
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (isFloat(o.dtype)) t.setDouble(i, std::uniform_real_distribution<double>(-2, 2)(rng));
      else if (o.dtype == DType::Bool) t.setInt(i, rng() & 1);
      else t.setInt(i, static_cast<int64_t>(rng() % 41) - 20);
    }
    if (o.paramKind() == ParamKind::ReadWrite)
      for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, 0);
    bufs.push_back(std::move(t));
  }
  return bufs;
}

// "" when equal within DESIGN.md §2.1, otherwise where and how they differ.
inline std::string compareBuffers(const std::vector<HostTensor>& got, const std::vector<HostTensor>& want, int64_t K) {
  for (std::size_t b = 0; b < want.size(); ++b) {
    const HostTensor &g = got[b], &w = want[b];
    for (int64_t i = 0; i < w.numel(); ++i) {
      bool ok;
      if (isFloat(w.dtype())) {
        const double x = g.getDouble(i), y = w.getDouble(i);
        const double rel = (w.dtype() == DType::F16 ? 1e-3 : 1e-4) * std::max(1.0, std::sqrt(double(K)) / 4);
        const double abs = w.dtype() == DType::F16 ? 1e-3 : 1e-5;
        ok = (std::isnan(x) && std::isnan(y)) || x == y || std::fabs(x - y) <= abs + rel * std::fabs(y);
      } else {
        ok = g.getInt(i) == w.getInt(i);
      }
      if (!ok)
        return "buffer " + std::to_string(b) + " element " + std::to_string(i) + ": got " +
               (isFloat(w.dtype()) ? std::to_string(g.getDouble(i)) : std::to_string(g.getInt(i))) + ", want " +
               (isFloat(w.dtype()) ? std::to_string(w.getDouble(i)) : std::to_string(w.getInt(i)));
    }
  }
  return {};
}

}  // namespace ks::testing
