#!/usr/bin/python3
"""Generates tests/data/op_cases.json: numeric cases for the program builder's ops.

Expected values come from PyTorch (Debian's python3-torch, 1.13) and NumPy, never from Kernelscope.
Run once with /usr/bin/python3 (OPENBLAS_NUM_THREADS=1 is set below) and commit the JSON with it:

    /usr/bin/python3 tests/data/gen_op_cases.py

Conventions of the file (read by tests/engine/test_ops.cpp):
- a case is {name, op, cls, args, inputs: [T], expected: [T], k?}; T = {dtype, shape, data}, data
  row-major with floats as numbers or "nan" / "inf" / "-inf"; cls is the dtype class the case covers
  (float, signed, unsigned, bool); k is the length of the longest reduction behind the result (it
  widens the f32 tolerance as DESIGN.md section 2.1 says).
- f16 cases: PyTorch's CPU kernels lack most f16 ops, so f16 inputs are widened to f32, the op runs
  in f32 and float results are rounded to f16 (the engine's f16 semantics: computed in f32, rounded
  on store).
- Where Kernelscope defines a result PyTorch does not (int division truncates; int x / 0 = 0), the
  expectation is computed with the rule spelled out next to the case.
"""
import json
import math
import os
import sys

os.environ["OPENBLAS_NUM_THREADS"] = "1"
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(1)
rng = np.random.default_rng(20261129)

TORCH = {"f16": torch.float16, "f32": torch.float32, "f64": torch.float64, "i8": torch.int8, "i16": torch.int16,
         "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8, "bool": torch.bool}
NAME = {v: k for k, v in TORCH.items()}
CLS = {"f16": "float", "f32": "float", "f64": "float", "i8": "signed", "i16": "signed", "i32": "signed",
       "i64": "signed", "u8": "unsigned", "bool": "bool"}
SPECIAL = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0]

cases = []
names = set()


def rand(dt, shape, lo=-3.0, hi=3.0, special=False, positive=False):
    shape = tuple(shape)
    n = int(np.prod(shape)) if shape else 1
    if CLS[dt] == "float":
        v = np.round(rng.uniform(0.1 if positive else lo, hi, n), 3)
        if special:
            for i, s in enumerate(SPECIAL[: min(n, len(SPECIAL))]):
                v[i] = s
        t = torch.tensor(v.reshape(shape), dtype=torch.float64).to(TORCH[dt])
    elif dt == "bool":
        t = torch.tensor((rng.random(n) < 0.5).reshape(shape))
    else:
        lo_i, hi_i = (0, 9) if dt == "u8" or positive else (int(lo) * 3, int(hi) * 3)
        if positive:
            lo_i = 1
        t = torch.tensor(rng.integers(lo_i, hi_i + 1, n).reshape(shape), dtype=TORCH[dt])
    return t


def enc(t):
    t = t.detach()
    dt = NAME[t.dtype]
    flat = t.reshape(-1).tolist()
    if CLS[dt] == "float":
        out = []
        for x in flat:
            if math.isnan(x):
                out.append("nan")
            elif math.isinf(x):
                out.append("inf" if x > 0 else "-inf")
            else:
                out.append(x)
        flat = out
    elif dt == "bool":
        flat = [1 if x else 0 for x in flat]
    return {"dtype": dt, "shape": list(t.shape), "data": flat}


def case(op, inputs, fn, args=None, name=None, cls=None, k=1):
    """Runs fn on the inputs (f16 inputs widened to f32, float results rounded back to f16)."""
    args = args or {}
    has16 = any(t.dtype == torch.float16 for t in inputs)
    run_in = [t.float() if t.dtype == torch.float16 else t for t in inputs]
    try:
        out = fn(*run_in)
    except Exception as e:  # an op PyTorch does not define for these dtypes: no case
        print(f"skip {op} {[NAME[t.dtype] for t in inputs]}: {e}", file=sys.stderr)
        return
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if has16 and op != "cast":
        outs = [o.half() if o.dtype == torch.float32 else o for o in outs]
    if cls is None:
        cls = CLS[NAME[inputs[0].dtype]]
    base = name or f"{op}_{'_'.join(NAME[t.dtype] for t in inputs)}"
    n, i = base, 2
    while n in names:
        n = f"{base}_{i}"
        i += 1
    names.add(n)
    c = {"name": n, "op": op, "cls": cls, "args": args, "inputs": [enc(t) for t in inputs],
         "expected": [enc(o) for o in outs]}
    if k > 1:
        c["k"] = k
    cases.append(c)


# ---------------------------------------------------------------- unary
float_unary = {
    "neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "exp2": torch.exp2, "log": torch.log, "log2": torch.log2,
    "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "reciprocal": torch.reciprocal, "sin": torch.sin, "cos": torch.cos,
    "tan": torch.tan, "tanh": torch.tanh, "erf": torch.erf, "floor": torch.floor, "ceil": torch.ceil,
    "round": torch.round, "sign": torch.sign, "square": torch.square, "sigmoid": torch.sigmoid,
    "relu": torch.relu, "silu": F.silu, "isnan": torch.isnan, "logical_not": torch.logical_not,
}
for op, fn in float_unary.items():
    case(op, [rand("f32", [2, 4], special=True)], fn)
    case(op, [rand("f32", [3, 1])], fn, name=f"{op}_f32_plain")
    case(op, [rand("f16", [5])], fn)
    if op in ("exp", "log", "sqrt", "tanh", "sin", "neg", "abs", "round", "sign", "sigmoid"):
        case(op, [rand("f64", [4], special=op != "round")], fn)
    if op in ("log", "sqrt", "rsqrt", "log2", "reciprocal"):
        case(op, [rand("f32", [6], positive=True)], fn, name=f"{op}_f32_positive")
# rounding ties: half to even
case("round", [torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, -3.51], dtype=torch.float32)], torch.round,
     name="round_ties_even")
case("sign", [torch.tensor([float("nan"), -0.0, 0.0, -2.0, 3.0, float("-inf")])], torch.sign, name="sign_nan_zero")
# ints and bool: ops that keep ints, and float functions that promote them to f32
for dt in ("i32", "i8", "u8", "i64"):
    for op in ("neg", "abs", "sign", "square", "relu", "floor", "ceil", "round", "logical_not", "isnan"):
        if dt == "u8" and op in ("neg", "relu"):
            continue
        case(op, [rand(dt, [2, 3])], float_unary[op])
    for op in ("exp", "sqrt", "sigmoid", "sin", "tanh", "log2", "erf"):
        case(op, [rand(dt, [4], positive=True)], float_unary[op])
case("neg", [torch.tensor([-128, 127, 0, 5], dtype=torch.int8)], torch.neg, name="neg_i8_wrap")
case("abs", [torch.tensor([-128, -127, 0, 5], dtype=torch.int8)], torch.abs, name="abs_i8_wrap")
case("neg", [torch.tensor([0, 1, 200, 255], dtype=torch.uint8)], torch.neg, name="neg_u8_wrap")
for op in ("logical_not", "isnan", "abs", "sign", "exp", "sqrt"):
    case(op, [rand("bool", [5])], float_unary[op])
# activations with parameters
for alpha in (0.01, 0.2):
    case("leaky_relu", [rand("f32", [2, 4], special=True)], lambda x, a=alpha: F.leaky_relu(x, a), {"alpha": alpha})
for alpha in (1.0, 0.5):
    case("elu", [rand("f32", [2, 4], special=True)], lambda x, a=alpha: F.elu(x, a), {"alpha": alpha})
for approx in ("none", "tanh"):
    case("gelu", [rand("f32", [2, 5], special=True)], lambda x, a=approx: F.gelu(x, approximate=a),
         {"tanh": approx == "tanh"})
    case("gelu", [rand("f16", [6])], lambda x, a=approx: F.gelu(x, approximate=a), {"tanh": approx == "tanh"})
for beta, thr in ((1.0, 20.0), (2.0, 3.0)):
    x = torch.tensor([-30.0, -2.0, -0.5, 0.0, 0.5, 1.4, 1.6, 10.0, 25.0, float("nan")])
    case("softplus", [x], lambda x, b=beta, t=thr: F.softplus(x, b, t), {"beta": beta, "threshold": thr})
case("leaky_relu", [rand("f16", [5])], lambda x: F.leaky_relu(x, 0.1), {"alpha": 0.1})
case("elu", [rand("i32", [5])], lambda x: F.elu(x.float()), {"alpha": 1.0}, name="elu_i32_promotes")
case("silu", [rand("i32", [5])], lambda x: F.silu(x.float()), name="silu_i32_promotes")
for dt in ("i32", "f32", "bool", "u8", "f16"):
    for to in ("f32", "i32", "u8", "bool", "f16", "i64"):
        if dt == to:
            continue
        # float -> int casts outside the target's range are not defined alike (C: undefined,
        # PyTorch: wraps, Kernelscope: saturates), so the floats stay inside it
        lo, hi = (0.0, 255.0) if to in ("u8", "bool") else (-120.0, 120.0)
        x = rand(dt, [6], lo=lo, hi=hi) if CLS[dt] == "float" else rand(dt, [6])
        case("cast", [x], lambda x, to=to: x.to(TORCH[to]), {"dtype": to})
# float -> int casts truncate toward zero
case("cast", [torch.tensor([2.7, -2.7, 0.5, -0.5, 100.9, -100.9])], lambda x: x.to(torch.int32), {"dtype": "i32"},
     name="cast_f32_i32_trunc")

# ---------------------------------------------------------------- binary
binary = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "pow": torch.pow, "mod": torch.remainder,
    "fmod": torch.fmod, "maximum": torch.maximum, "minimum": torch.minimum, "lt": torch.lt, "le": torch.le,
    "gt": torch.gt, "ge": torch.ge, "eq": torch.eq, "ne": torch.ne, "logical_and": torch.logical_and,
    "logical_or": torch.logical_or, "logical_xor": torch.logical_xor,
}


def int_div(a, b):
    """Kernelscope's int division: truncation toward zero (C / OpenCL)."""
    if a.dtype.is_floating_point or b.dtype.is_floating_point:
        return torch.div(a, b)
    return torch.div(a, b, rounding_mode="trunc")


binary["div"] = int_div
for op, fn in binary.items():
    # same shape, with NaN/inf/zeros in the first operand
    a = rand("f32", [2, 3], special=True)
    b = rand("f32", [2, 3], positive=op in ("pow",))
    case(op, [a, b], fn)
    # broadcasting of size-1 dims: [2,1,3] with [4,1]
    case(op, [rand("f32", [2, 1, 3]), rand("f32", [4, 1], positive=op in ("pow",))], fn, name=f"{op}_f32_broadcast")
    # signed ints (nonzero divisors for div/mod/fmod; small non-negative exponents for pow)
    ai = rand("i32", [2, 3])
    if op == "pow":
        bi = torch.tensor(rng.integers(0, 4, 6).reshape(2, 3), dtype=torch.int32)
    elif op in ("div", "mod", "fmod"):
        bi = torch.tensor([[3, -3, 2], [-2, 5, -7]], dtype=torch.int32)
        ai = torch.tensor([[7, 7, -7], [-7, 0, 6]], dtype=torch.int32)
    else:
        bi = rand("i32", [2, 3])
    case(op, [ai, bi], fn)
    # unsigned
    au = rand("u8", [4])
    bu = torch.tensor([1, 2, 3, 4], dtype=torch.uint8) if op in ("div", "mod", "fmod", "pow") else rand("u8", [4])
    case(op, [au, bu], fn)
    # bool
    if op in ("add", "mul", "maximum", "minimum", "lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or",
              "logical_xor"):
        case(op, [rand("bool", [6]), rand("bool", [6])], fn)
    # f16 and mixed-dtype promotion
    if op not in ("logical_and", "logical_or", "logical_xor"):
        case(op, [rand("f16", [4]), rand("f16", [4], positive=op == "pow")], fn)
        case(op, [rand("i32", [3], positive=True), rand("f32", [3], positive=True)], fn, cls="signed",
             name=f"{op}_i32_f32_promote")
        case(op, [rand("i8", [2, 2], positive=True), rand("i64", [2], positive=True)], fn, name=f"{op}_i8_i64_promote")
    # tensor op Python scalar (an int scalar keeps the tensor's dtype; a float scalar makes it float)
    # (a Python scalar is passed to PyTorch as a 0-dim tensor, which promotes the same way)
    for sv in ((2, False), (1.5, True)):
        s, isf = sv
        for dt in ("i8", "f32"):
            x = rand(dt, [5], positive=op in ("pow", "div", "mod", "fmod"))
            case(op, [x], lambda x, s=s: fn(x, torch.tensor(s)), {"scalar": s, "scalar_float": isf, "scalar_first": False},
                 name=f"{op}_{dt}_scalar_{'float' if isf else 'int'}")
        if op != "pow":
            x = rand("i32", [5], positive=True)
            case(op, [x], lambda x, s=s: fn(torch.tensor(s), x), {"scalar": s, "scalar_float": isf, "scalar_first": True},
                 name=f"{op}_scalar_first_{'float' if isf else 'int'}")
# int division and remainder signs, spelled out (truncation toward zero; Python remainder)
case("div", [torch.tensor([7, -7, 7, -7, 0, 1], dtype=torch.int64), torch.tensor([2, 2, -2, -2, 3, 3], dtype=torch.int64)],
     int_div, name="div_i64_trunc_signs")
case("mod", [torch.tensor([7, -7, 7, -7, 0, 6], dtype=torch.int64), torch.tensor([3, 3, -3, -3, 5, 3], dtype=torch.int64)],
     torch.remainder, name="mod_i64_divisor_sign")
case("mod", [torch.tensor([5.5, -5.5, 5.5, -5.5, 1.0]), torch.tensor([2.0, 2.0, -2.0, -2.0, 0.0])], torch.remainder,
     name="mod_f32_divisor_sign")
case("div", [torch.tensor([1.0, -1.0, 0.0, float("inf")]), torch.tensor([0.0, 0.0, 0.0, 2.0])], torch.div,
     name="div_f32_by_zero")
# Kernelscope's documented int x / 0 = 0 and x mod 0 = 0 (PyTorch raises): hand-worked
cases.append({"name": "div_i32_by_zero_hand", "op": "div", "cls": "signed", "args": {},
              "inputs": [enc(torch.tensor([5, -5, 0], dtype=torch.int32)), enc(torch.tensor([0, 0, 0], dtype=torch.int32))],
              "expected": [enc(torch.tensor([0, 0, 0], dtype=torch.int32))]})
case("pow", [torch.tensor([2, -3, 5, 0, 1, 7], dtype=torch.int32), torch.tensor([10, 3, 0, 0, 9, 2], dtype=torch.int32)],
     torch.pow, name="pow_i32_exact")
case("maximum", [torch.tensor([float("nan"), 1.0, -0.5, float("-inf")]), torch.tensor([1.0, float("nan"), 2.0, 3.0])],
     torch.maximum, name="maximum_nan_propagates")
case("minimum", [torch.tensor([float("nan"), 1.0, -0.5, float("inf")]), torch.tensor([1.0, float("nan"), 2.0, 3.0])],
     torch.minimum, name="minimum_nan_propagates")
for op in ("lt", "le", "gt", "ge", "eq", "ne"):
    case(op, [torch.tensor([float("nan"), 1.0, float("nan"), float("inf")]),
              torch.tensor([1.0, float("nan"), float("nan"), float("inf")])], binary[op], name=f"{op}_nan")

# where and clamp
for dt in ("f32", "i32", "u8", "bool", "f16"):
    case("where", [rand("bool", [2, 3]), rand(dt, [2, 3]), rand(dt, [2, 3])], torch.where, cls=CLS[dt],
         name=f"where_{dt}")
case("where", [rand("bool", [2, 1]), rand("f32", [1, 3], special=True), rand("f32", [3])], torch.where,
     name="where_broadcast")
case("where", [rand("bool", [4]), rand("i32", [4]), rand("f32", [4])], torch.where, cls="signed", name="where_promote")
x = torch.tensor([1.0, -1.0, 4.0, 0.0])
case("where", [x], lambda x: torch.where(x > 0, torch.log(x), torch.zeros(())), {"pattern": "log_or_zero"},
     name="where_log_or_zero")
case("where", [rand("f32", [5], special=True)], lambda x: torch.where(x > 0.5, x, torch.tensor(-1.0)),
     {"pattern": "gt_scalar"}, name="where_scalar_branch")
for lo, hi in ((-1.0, 1.0), (None, 0.5), (0.0, None)):
    case("clamp", [rand("f32", [2, 4], special=True)], lambda x, lo=lo, hi=hi: torch.clamp(x, lo, hi),
         {"lo": lo, "hi": hi})
case("clamp", [rand("i32", [6])], lambda x: torch.clamp(x, -2, 3), {"lo": -2, "hi": 3})
case("clamp", [rand("f16", [6])], lambda x: torch.clamp(x, -1.0, 1.0), {"lo": -1.0, "hi": 1.0})

# ---------------------------------------------------------------- reductions


def red(op, x, fn, axes, keepdim, **kw):
    k = int(np.prod([x.shape[a] for a in axes])) if axes else x.numel()
    tag = "all" if not axes else "_".join(str(a).replace("-", "m") for a in axes)
    case(op, [x], fn, {"axes": list(axes), "keepdim": keepdim, **kw}, name=f"{op}_{NAME[x.dtype]}_{tag}_{int(keepdim)}",
         k=k)


def tref(op, x, axes, keepdim):
    """The reference reduction: PyTorch, over all axes when `axes` is empty."""
    dims = tuple(a % x.dim() for a in axes) if axes else tuple(range(x.dim()))
    if op == "sum":
        return torch.sum(x, dim=dims, keepdim=keepdim)
    if op == "mean":
        return torch.mean(x if x.dtype.is_floating_point else x.float(), dim=dims, keepdim=keepdim)
    if op in ("max", "min"):
        f = torch.amax if op == "max" else torch.amin
        if x.dtype == torch.bool:
            return f(x.to(torch.uint8), dim=dims, keepdim=keepdim).bool()
        return f(x, dim=dims, keepdim=keepdim)
    r = x
    for d in sorted(dims, reverse=True):  # torch.prod takes one dim at a time
        r = torch.prod(r, dim=d, keepdim=True)
    if not keepdim:
        r = r.reshape([n for i, n in enumerate(x.shape) if i not in dims])
    return r


for op in ("sum", "mean", "max", "min", "prod"):
    for dt in ("f32", "i32", "u8", "bool", "f16"):
        for axes, keepdim in (((1,), False), ((-1, 0), True), ((), False)):
            x = rand(dt, [2, 3, 4], lo=-1.0, hi=1.0)
            if op == "prod" and CLS[dt] == "float":
                x = torch.tensor(np.round(rng.uniform(0.5, 1.5, 24), 2).reshape(2, 3, 4)).to(TORCH[dt])
            red(op, x, lambda x, o=op, a=axes, kd=keepdim: tref(o, x, a, kd), axes, keepdim)
# NaN propagation and -inf in reductions
for op, fn in (("sum", lambda x: torch.sum(x, dim=1)), ("max", lambda x: torch.amax(x, dim=1)),
               ("min", lambda x: torch.amin(x, dim=1)), ("prod", lambda x: torch.prod(x, dim=1))):
    x = torch.tensor([[1.0, float("nan"), 2.0], [float("-inf"), 1.0, 2.0], [float("inf"), float("-inf"), 0.0]])
    case(op, [x], fn, {"axes": [1], "keepdim": False}, name=f"{op}_f32_nan_inf")
# size-1 and f64
red("sum", rand("f64", [3, 1, 2]), lambda x: torch.sum(x, dim=1), (1,), False)
red("max", rand("f64", [1, 5]), lambda x: torch.amax(x, dim=0, keepdim=True), (0,), True)
red("sum", rand("f32", [4, 64]), lambda x: torch.sum(x, dim=-1), (-1,), False)
for corr in (0.0, 1.0, 2.0):
    for axes, keepdim in (((1,), False), ((0, 2), True), ((), False)):
        x = rand("f32", [3, 4, 2])
        ax = axes if axes else (0, 1, 2)
        case("var", [x], lambda x, ax=ax, kd=keepdim, c=corr: torch.var(x, dim=ax, correction=int(c), keepdim=kd),
             {"axes": list(axes), "correction": corr, "keepdim": keepdim}, k=int(np.prod([x.shape[a] for a in ax])))
        case("std", [x], lambda x, ax=ax, kd=keepdim, c=corr: torch.std(x, dim=ax, correction=int(c), keepdim=kd),
             {"axes": list(axes), "correction": corr, "keepdim": keepdim}, k=int(np.prod([x.shape[a] for a in ax])))
case("var", [rand("i32", [2, 5])], lambda x: torch.var(x.float(), dim=1), {"axes": [1], "correction": 1.0, "keepdim": False},
     name="var_i32_promotes")
case("std", [rand("f16", [2, 5])], lambda x: torch.std(x, dim=1), {"axes": [1], "correction": 1.0, "keepdim": False})
for op in ("argmax", "argmin"):
    tf = torch.argmax if op == "argmax" else torch.argmin
    for dt in ("f32", "i32", "u8", "bool", "f16"):
        for axis, keepdim in ((1, False), (-1, True), (0, False)):
            x = rand(dt, [3, 4], lo=-2.0, hi=2.0)
            if CLS[dt] == "float":
                x = torch.round(x.float()).to(x.dtype)  # ties: the first index must win
            case(op, [x], lambda x, a=axis, kd=keepdim: tf(x.to(torch.uint8) if x.dtype == torch.bool else x, dim=a, keepdim=kd),
                 {"axis": axis, "keepdim": keepdim}, name=f"{op}_{dt}_{axis}_{int(keepdim)}")
    x = torch.tensor([[1.0, float("nan"), 5.0, float("nan")], [2.0, 2.0, -1.0, -1.0]])
    case(op, [x], lambda x: tf(x, dim=1), {"axis": 1, "keepdim": False}, name=f"{op}_nan_first")
for dt in ("f32", "i32", "u8", "bool", "f16"):
    for axis in (0, -1):
        x = rand(dt, [3, 4])
        case("cumsum", [x], lambda x, a=axis: torch.cumsum(x, dim=a), {"axis": axis}, name=f"cumsum_{dt}_{axis}")
case("cumsum", [torch.tensor([1.0, float("nan"), 2.0, float("inf"), -1.0])], lambda x: torch.cumsum(x, 0), {"axis": 0},
     name="cumsum_nan_inf")
case("cumsum", [rand("f32", [2, 3, 2])], lambda x: torch.cumsum(x, 1), {"axis": 1}, name="cumsum_middle_axis")

# ---------------------------------------------------------------- movement
for dt in ("f32", "i32", "u8", "bool"):
    x = rand(dt, [2, 3, 4])
    case("reshape", [x], lambda x: x.reshape(4, -1), {"shape": [4, -1]}, name=f"reshape_{dt}")
    case("permute", [x], lambda x: x.permute(2, 0, 1), {"axes": [2, 0, 1]}, name=f"permute_{dt}")
    case("transpose", [x], lambda x: x.transpose(-1, 0), {"a": -1, "b": 0}, name=f"transpose_{dt}")
    case("flip", [x], lambda x: torch.flip(x, (0, -1)), {"axes": [0, -1]}, name=f"flip_{dt}")
    case("expand", [rand(dt, [3, 1])], lambda x: x.expand(2, 3, 4), {"shape": [2, 3, 4]}, name=f"expand_{dt}")
    case("pad", [rand(dt, [2, 3])], lambda x: F.pad(x.to(torch.float64), (2, 1, 1, 0), value=1).to(x.dtype),
         {"pads": [[1, 0], [2, 1]], "value": 1.0}, name=f"pad_{dt}")
    case("repeat", [rand(dt, [2, 3])], lambda x: x.repeat(2, 1, 2), {"repeats": [2, 1, 2]}, name=f"repeat_{dt}")
    case("concat", [rand(dt, [2, 3]), rand(dt, [1, 3]), rand(dt, [3, 3])], lambda a, b, c: torch.cat([a, b, c], 0),
         {"axis": 0}, name=f"concat_{dt}")
    case("stack", [rand(dt, [2, 3]), rand(dt, [2, 3])], lambda a, b: torch.stack([a, b], -1), {"axis": -1},
         name=f"stack_{dt}")
    case("split", [rand(dt, [5, 2])], lambda x: torch.split(x, [2, 3], 0), {"sizes": [2, 3], "axis": 0},
         name=f"split_{dt}")
    case("slice", [rand(dt, [7, 2])], lambda x: x[1:6:2], {"axis": 0, "start": 1, "stop": 6, "step": 2},
         name=f"slice_{dt}")
case("expand", [rand("f32", [3])], lambda x: x.expand(2, -1), {"shape": [2, -1]}, name="expand_keep_minus1")
case("expand", [rand("f32", [1, 1])], lambda x: x.expand(1, 5), {"shape": [1, 5]}, name="expand_size1")
case("pad", [rand("f32", [3, 4], special=True)], lambda x: x[:, 1:3], {"pads": [[0, 0], [-1, -1]], "value": 0.0},
     name="pad_negative_crops")
case("pad", [rand("f32", [2, 2])], lambda x: F.pad(x, (1, 1), value=float("-inf")), {"pads": [[0, 0], [1, 1]], "value": "-inf"},
     name="pad_minus_inf")
case("pad", [rand("f32", [3, 3])], lambda x: F.pad(x[1:], (0, 0, 0, 2), value=2.5), {"pads": [[-1, 2]], "value": 2.5},
     name="pad_crop_and_pad")
for start, stop, step in ((None, None, 1), (2, None, 1), (-3, None, 1), (None, -2, 1), (1, 100, 3), (-100, 4, 1),
                          (None, None, -1), (5, 1, -2), (-2, None, -3), (None, None, 4), (4, 2, 1), (2, 4, -1), (0, 7, 7)):
    x = rand("f32", [7, 2])
    case("slice", [x], lambda x, s=slice(start, stop, step): torch.tensor(x.numpy()[s].copy()),
         {"axis": 0, "start": start, "stop": stop, "step": step}, name=f"slice_{start}_{stop}_{step}".replace("-", "m"))
case("slice", [rand("i32", [2, 9])], lambda x: torch.tensor(x.numpy()[:, ::-2].copy()), {"axis": -1, "start": None, "stop": None,
                                                                                           "step": -2}, name="slice_last_axis_neg_step")
case("concat", [torch.tensor([-0.0, float("nan")]), torch.tensor([float("inf"), -0.0, 1.0])],
     lambda a, b: torch.cat([a, b]), {"axis": 0}, name="concat_exact_special")
case("concat", [rand("i32", [2, 2]), rand("f32", [2, 3])], lambda a, b: torch.cat([a, b], 1), {"axis": -1},
     name="concat_promote_axis_m1", cls="signed")
case("concat", [rand("f16", [2, 1]), rand("f16", [2, 2])], lambda a, b: torch.cat([a, b], 1), {"axis": 1})
case("stack", [rand("f32", [3]), rand("f32", [3]), rand("f32", [3])], lambda a, b, c: torch.stack([a, b, c], 0),
     {"axis": 0}, name="stack_three")
case("split", [rand("f32", [2, 7])], lambda x: torch.split(x, 3, 1), {"sizes": [3], "axis": 1}, name="split_chunk_size")
case("split", [rand("f32", [2, 5])], lambda x: torch.split(x, [1, 0, 4], -1), {"sizes": [1, 0, 4], "axis": -1},
     name="split_with_empty")
for chunks, axis in ((3, 0), (2, -1), (4, 0)):
    x = rand("f32", [7, 4])
    case("chunk", [x], lambda x, c=chunks, a=axis: torch.chunk(x, c, a), {"chunks": chunks, "axis": axis},
         name=f"chunk_{chunks}_{axis}".replace("-", "m"))
case("chunk", [rand("i32", [5])], lambda x: torch.chunk(x, 2, 0), {"chunks": 2, "axis": 0}, name="chunk_i32")
x = rand("f32", [1, 3, 1, 2])
case("squeeze", [x], lambda x: x.squeeze(), {"axes": []}, name="squeeze_all")
case("squeeze", [x], lambda x: x.squeeze(-2), {"axes": [-2]}, name="squeeze_axis")
case("unsqueeze", [rand("i32", [2, 3])], lambda x: x.unsqueeze(-1), {"axis": -1}, name="unsqueeze_last")
case("unsqueeze", [rand("bool", [2, 3])], lambda x: x.unsqueeze(1), {"axis": 1}, name="unsqueeze_bool")
case("flatten", [rand("f32", [2, 3, 4])], lambda x: torch.flatten(x, 1), {"start": 1, "end": -1}, name="flatten_1")
case("flatten", [rand("u8", [2, 3, 4])], lambda x: torch.flatten(x), {"start": 0, "end": -1}, name="flatten_all_u8")
case("repeat", [rand("f32", [3])], lambda x: x.repeat(2, 2), {"repeats": [2, 2]}, name="repeat_new_axis")
case("narrow", [rand("f32", [4, 5])], lambda x: x.narrow(1, 1, 3), {"axis": 1, "start": 1, "len": 3}, name="narrow_f32")

# ---------------------------------------------------------------- composites
mm = [([3], [3]), ([3], [3, 2]), ([2, 3], [3]), ([2, 3], [3, 4]), ([2, 2, 3], [3, 4]), ([2, 1, 2, 3], [3, 3, 2]),
      ([1, 4], [4, 1]), ([3, 2, 4], [3, 4, 5])]
for sa, sb in mm:
    k = sa[-1]
    case("matmul", [rand("f32", sa), rand("f32", sb)], torch.matmul, {}, k=k,
         name="matmul_" + "x".join(map(str, sa)) + "_" + "x".join(map(str, sb)))
case("matmul", [rand("i32", [2, 3]), rand("i32", [3, 2])], torch.matmul, name="matmul_i32")
case("matmul", [rand("f16", [2, 4]), rand("f16", [4, 3])], torch.matmul, k=4, name="matmul_f16")
case("matmul", [rand("f64", [2, 4]), rand("f64", [4, 3])], torch.matmul, k=4, name="matmul_f64")
case("matmul", [rand("f32", [4, 32]), rand("f32", [32, 3])], torch.matmul, k=32, name="matmul_k32")
case("linear", [rand("f32", [2, 3]), rand("f32", [3, 4]), rand("f32", [4])], lambda x, w, b: x @ w + b, k=3,
     name="linear_bias")
case("linear", [rand("f32", [2, 2, 3]), rand("f32", [3, 4])], lambda x, w: x @ w, k=3, name="linear_nobias")
convs = [  # (x shape, w shape, stride, padding, dilation, groups, bias)
    ([1, 1, 5, 5], [1, 1, 3, 3], 1, 0, 1, 1, False), ([2, 3, 6, 5], [4, 3, 3, 2], 1, 1, 1, 1, True),
    ([1, 2, 7, 7], [2, 2, 3, 3], 2, 1, 1, 1, False), ([1, 2, 7, 6], [3, 2, 2, 2], 1, 0, 2, 1, True),
    ([1, 4, 5, 5], [4, 2, 3, 3], 1, 1, 1, 2, True), ([1, 4, 6, 6], [4, 1, 3, 3], (2, 1), (0, 1), 1, 4, False),
    ([2, 1, 4, 4], [2, 1, 1, 1], 3, 0, 1, 1, True), ([1, 2, 8, 8], [2, 2, 3, 3], 3, 2, 2, 1, False),
]
for xs, ws, st, pd, dl, g, hb in convs:
    ins = [rand("f32", xs), rand("f32", ws)] + ([rand("f32", [ws[0]])] if hb else [])
    pair = lambda v: list(v) if isinstance(v, tuple) else [v, v]
    case("conv2d", ins, lambda x, w, b=None, st=st, pd=pd, dl=dl, g=g: F.conv2d(x, w, b, st, pd, dl, g),
         {"stride": pair(st), "padding": pair(pd), "dilation": pair(dl), "groups": g, "bias": hb},
         k=ws[1] * ws[2] * ws[3], name=f"conv2d_{'x'.join(map(str, xs))}_s{st}_p{pd}_d{dl}_g{g}".replace(" ", "").replace(",", "_").replace("(", "").replace(")", ""))
for xs, k, st, pd, dl in (([1, 2, 4, 4], 2, None, 0, 1), ([1, 1, 5, 5], 3, 1, 1, 1), ([2, 1, 6, 6], 3, 2, 1, 2),
                          ([1, 1, 5, 4], (2, 3), (1, 2), 0, 1)):
    x = -torch.abs(rand("f32", xs)) - 1.0  # all negative: -inf padding must never win
    pair = lambda v: list(v) if isinstance(v, tuple) else [v, v]
    case("max_pool2d", [x], lambda x, k=k, st=st, pd=pd, dl=dl: F.max_pool2d(x, k, st, pd, dl),
         {"kernel": pair(k), "stride": pair(st) if st is not None else [], "padding": pair(pd), "dilation": pair(dl)},
         name=f"max_pool2d_{'x'.join(map(str, xs))}_{k}_{st}_{pd}_{dl}".replace(" ", "").replace(",", "_").replace("(", "").replace(")", ""))
case("max_pool2d", [rand("i32", [1, 1, 4, 4])], lambda x: F.max_pool2d(x.float(), 2).to(torch.int32),
     {"kernel": [2, 2], "stride": [], "padding": [0, 0], "dilation": [1, 1]}, name="max_pool2d_i32")
for xs, k, st, pd, cip in (([1, 2, 4, 4], 2, None, 0, True), ([1, 1, 5, 5], 3, 1, 1, True), ([1, 1, 5, 5], 3, 1, 1, False),
                           ([2, 1, 6, 5], 3, 2, 1, False)):
    case("avg_pool2d", [rand("f32", xs)], lambda x, k=k, st=st, pd=pd, cip=cip: F.avg_pool2d(x, k, st, pd, False, cip),
         {"kernel": [k, k], "stride": [st, st] if st else [], "padding": [pd, pd], "count_include_pad": cip}, k=k * k,
         name=f"avg_pool2d_{'x'.join(map(str, xs))}_{k}_{st}_{pd}_{int(cip)}")
for op, fn in (("softmax", F.softmax), ("log_softmax", F.log_softmax)):
    for axis in (-1, 0, 1):
        case(op, [rand("f32", [3, 4, 2])], lambda x, a=axis, f=fn: f(x, dim=a), {"axis": axis}, k=4,
             name=f"{op}_f32_{axis}".replace("-", "m"))
    x = torch.tensor([[1.0, float("-inf"), 2.0], [1000.0, 1001.0, 999.0], [-1000.0, -1001.0, -999.0]])
    case(op, [x], lambda x, f=fn: f(x, dim=-1), {"axis": -1}, name=f"{op}_stable_and_minus_inf")
    case(op, [rand("f16", [2, 5])], lambda x, f=fn: f(x, dim=-1), {"axis": -1}, k=5, name=f"{op}_f16")
    case(op, [rand("i32", [2, 3])], lambda x, f=fn: f(x.float(), dim=-1), {"axis": -1}, name=f"{op}_i32_promotes")
    case(op, [rand("f64", [2, 3])], lambda x, f=fn: f(x, dim=0), {"axis": 0}, name=f"{op}_f64")
for dims, hw, hb in ((1, True, True), (2, True, False), (1, False, False)):
    x = rand("f32", [2, 3, 4])
    shape = list(x.shape[-dims:])
    ins = [x] + ([rand("f32", shape)] if hw else []) + ([rand("f32", shape)] if hb else [])
    case("layer_norm", ins, lambda x, *wb, s=shape, hw=hw, hb=hb: F.layer_norm(
        x, s, wb[0] if hw else None, wb[-1] if hb else None, 1e-5),
        {"dims": dims, "eps": 1e-5, "weight": hw, "bias": hb}, k=int(np.prod(shape)), name=f"layer_norm_{dims}_{int(hw)}_{int(hb)}")
case("layer_norm", [rand("f16", [2, 6])], lambda x: F.layer_norm(x, [6]), {"dims": 1, "eps": 1e-5, "weight": False, "bias": False},
     name="layer_norm_f16")


def rms_ref(x, *w, dims=1, eps=1e-6):
    """RMSNorm by its formula in float64 (PyTorch 1.13 has no rms_norm)."""
    axes = tuple(range(x.dim() - dims, x.dim()))
    xd = x.double()
    y = xd * torch.rsqrt(torch.mean(xd * xd, dim=axes, keepdim=True) + eps)
    if w:
        y = y * w[0].double()
    return y.to(x.dtype)


for dims, hw in ((1, True), (2, False)):
    x = rand("f32", [2, 3, 4])
    ins = [x] + ([rand("f32", list(x.shape[-dims:]))] if hw else [])
    case("rms_norm", ins, lambda x, *w, d=dims: rms_ref(x, *w, dims=d), {"dims": dims, "eps": 1e-6, "weight": hw},
         k=int(np.prod(x.shape[-dims:])), name=f"rms_norm_{dims}_{int(hw)}")
for xs, hw, hb in (([2, 3, 2, 2], True, True), ([4, 3], False, False), ([1, 2, 5], True, False)):
    c = xs[1]
    ins = [rand("f32", xs), rand("f32", [c]), rand("f32", [c], positive=True)]
    ins += ([rand("f32", [c])] if hw else []) + ([rand("f32", [c])] if hb else [])
    case("batch_norm", ins, lambda x, m, v, *wb, hw=hw, hb=hb: F.batch_norm(
        x, m, v, wb[0] if hw else None, wb[-1] if hb else None, False, 0.1, 1e-5),
        {"eps": 1e-5, "weight": hw, "bias": hb}, name=f"batch_norm_{len(xs)}d_{int(hw)}_{int(hb)}")


def sdpa_ref(q, k, v, causal=False, scale=None):
    """softmax(q k^T * scale, masked) v with PyTorch ops (1.13 has no fused SDPA)."""
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    scores = torch.matmul(q, k.transpose(-2, -1)) * s
    if causal:
        L, S = q.shape[-2], k.shape[-2]
        mask = torch.ones(L, S, dtype=torch.bool).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, -1), v)


for qs, ks, vs, causal, scale in (([2, 3, 4], [2, 3, 4], [2, 3, 4], False, None), ([1, 2, 4, 8], [1, 2, 4, 8], [1, 2, 4, 3], True, None),
                                  ([3, 4], [5, 4], [5, 2], True, 0.5), ([2, 2, 3], [2, 4, 3], [2, 4, 3], False, 1.0)):
    case("sdpa", [rand("f32", qs), rand("f32", ks), rand("f32", vs)],
         lambda q, k, v, c=causal, s=scale: sdpa_ref(q, k, v, c, s), {"causal": causal, "scale": scale}, k=qs[-1],
         name=f"sdpa_{'x'.join(map(str, qs))}_{int(causal)}_{scale}")
for idx_dt in ("i64", "i32"):
    idx = torch.tensor([[0, 3, 1], [3, 3, 2]], dtype=TORCH[idx_dt])
    table = rand("f32", [4, 3], special=True)
    case("embedding", [idx, table], lambda i, t: F.embedding(i.long(), t), {}, name=f"embedding_{idx_dt}", cls="signed")
case("embedding", [torch.tensor([2, 0], dtype=torch.int64), rand("i32", [3, 2])], lambda i, t: F.embedding(i, t),
     name="embedding_int_table")
case("embedding", [torch.tensor([1, 1, 0], dtype=torch.uint8), rand("f16", [2, 4])], lambda i, t: F.embedding(i.long(), t),
     name="embedding_u8_idx", cls="unsigned")
for n in (3, 5):
    case("one_hot", [torch.tensor([0, 2, 1, 2], dtype=torch.int64)], lambda i, n=n: F.one_hot(i, n), {"num_classes": n},
         name=f"one_hot_{n}")
case("one_hot", [torch.tensor([[1, 0], [3, 3]], dtype=torch.int32)], lambda i: F.one_hot(i.long(), 4), {"num_classes": 4},
     name="one_hot_2d_i32")
case("one_hot", [torch.tensor([2, 0], dtype=torch.uint8)], lambda i: F.one_hot(i.long(), 3), {"num_classes": 3},
     name="one_hot_u8", cls="unsigned")
for ns, cs in ((4, 3), (2, 5), (1, 2)):
    case("cross_entropy", [rand("f32", [ns, cs]), torch.tensor(rng.integers(0, cs, ns), dtype=torch.int64)],
         lambda x, t: F.cross_entropy(x, t), k=cs, name=f"cross_entropy_{ns}x{cs}")
case("cross_entropy", [torch.tensor([[1000.0, -1000.0, 0.0]]), torch.tensor([1])], lambda x, t: F.cross_entropy(x, t),
     name="cross_entropy_extreme")
case("mse", [rand("f32", [3, 4]), rand("f32", [3, 4])], F.mse_loss, k=12, name="mse_f32")
case("mse", [rand("f32", [2, 3]), rand("f32", [3])], lambda a, b: torch.mean((a - b) ** 2), k=6, name="mse_broadcast")
case("mse", [rand("i32", [4]), rand("i32", [4])], lambda a, b: torch.mean(((a - b) ** 2).float()), name="mse_i32")

# ---------------------------------------------------------------- more dtype classes and wrapping
# Float functions of ints and bool promote to f32; ops PyTorch does not define for a dtype are
# skipped by case().
for op, fn in float_unary.items():
    for dt in ("i16", "u8", "bool"):
        case(op, [rand(dt, [4], positive=True)], fn, name=f"{op}_{dt}_more")
for op, fn, args in (("leaky_relu", lambda x: F.leaky_relu(x.float(), 0.1), {"alpha": 0.1}),
                     ("elu", lambda x: F.elu(x.float(), 1.0), {"alpha": 1.0}),
                     ("gelu", lambda x: F.gelu(x.float()), {"tanh": False}),
                     ("softplus", lambda x: F.softplus(x.float(), 1.0, 20.0), {"beta": 1.0, "threshold": 20.0}),
                     ("silu", lambda x: F.silu(x.float()), {})):
    for dt in ("i32", "u8", "bool"):
        case(op, [rand(dt, [5])], fn, args, name=f"{op}_{dt}_promotes")
# two's-complement wrapping of the integer dtypes
case("add", [torch.tensor([100, -100, 127], dtype=torch.int8), torch.tensor([100, -100, 1], dtype=torch.int8)],
     torch.add, name="add_i8_wraps")
case("mul", [torch.tensor([200, 16, 255], dtype=torch.uint8), torch.tensor([2, 16, 255], dtype=torch.uint8)],
     torch.mul, name="mul_u8_wraps")
case("sub", [torch.tensor([1, 0], dtype=torch.uint8), torch.tensor([2, 255], dtype=torch.uint8)], torch.sub,
     name="sub_u8_wraps")
case("mul", [torch.tensor([65536, -2147483648, 123456789], dtype=torch.int32),
             torch.tensor([65536, -1, 100], dtype=torch.int32)], torch.mul, name="mul_i32_wraps")
case("neg", [torch.tensor([-2147483648, 5], dtype=torch.int32)], torch.neg, name="neg_i32_min_wraps")
case("sum", [torch.tensor([2147483647, 2147483647, 10], dtype=torch.int32)], lambda x: torch.sum(x),
     {"axes": [], "keepdim": False}, name="sum_i32_widens_to_i64")
case("pow", [torch.tensor([3, 2, -2], dtype=torch.int8), torch.tensor([5, 7, 7], dtype=torch.int8)], torch.pow,
     name="pow_i8_wraps")
# movement ops in every class
for dt in ("i32", "u8", "bool", "f16"):
    x = rand(dt, [1, 4, 3])
    case("narrow", [x], lambda x: x.narrow(1, 1, 2), {"axis": 1, "start": 1, "len": 2}, name=f"narrow_{dt}")
    case("squeeze", [x], lambda x: x.squeeze(0), {"axes": [0]}, name=f"squeeze_{dt}")
    case("unsqueeze", [x], lambda x: x.unsqueeze(0), {"axis": 0}, name=f"unsqueeze_{dt}")
    case("flatten", [x], lambda x: torch.flatten(x, 0, 1), {"start": 0, "end": 1}, name=f"flatten_{dt}")
    case("chunk", [x], lambda x: torch.chunk(x, 2, 1), {"chunks": 2, "axis": 1}, name=f"chunk_{dt}")
    case("slice", [x], lambda x: torch.flip(x, (2,))[:, :, ::2], {"axis": -1, "start": None, "stop": None, "step": -2},
         name=f"slice_neg_step_{dt}")
    case("pad", [x], lambda x: F.pad(x.double(), (0, 0, 1, 2), value=0).to(x.dtype), {"pads": [[0, 0], [1, 2]], "value": 0.0},
         name=f"pad_zero_{dt}")
# composites on integer dtypes (reference in float64 / int64, then the dtype Kernelscope promises)
case("matmul", [rand("u8", [2, 3]), rand("u8", [3, 2])], lambda a, b: (a.long() @ b.long()).to(torch.uint8),
     name="matmul_u8_wraps_like_u8")
case("matmul", [rand("i8", [3]), rand("i8", [3, 2])], lambda a, b: (a.long() @ b.long()).to(torch.int8), name="matmul_i8_vec")
case("linear", [rand("i32", [2, 3]), rand("i32", [3, 2]), rand("i32", [2])], lambda x, w, b: x @ w + b, name="linear_i32")
case("conv2d", [rand("i32", [1, 2, 4, 4]), rand("i32", [2, 2, 2, 2])],
     lambda x, w: F.conv2d(x.double(), w.double()).to(torch.int32),
     {"stride": [1, 1], "padding": [0, 0], "dilation": [1, 1], "groups": 1, "bias": False}, name="conv2d_i32")
case("max_pool2d", [rand("u8", [1, 1, 4, 4])], lambda x: F.max_pool2d(x.float(), 2, 2, 1).to(torch.uint8),
     {"kernel": [2, 2], "stride": [2, 2], "padding": [1, 1], "dilation": [1, 1]}, name="max_pool2d_u8_padded")
case("max_pool2d", [rand("i8", [1, 1, 3, 3])], lambda x: F.max_pool2d(x.float(), 2, 1, 1).to(torch.int8),
     {"kernel": [2, 2], "stride": [1, 1], "padding": [1, 1], "dilation": [1, 1]}, name="max_pool2d_i8_padded")
case("max_pool2d", [rand("bool", [1, 1, 4, 4])], lambda x: F.max_pool2d(x.float(), 2).bool(),
     {"kernel": [2, 2], "stride": [], "padding": [0, 0], "dilation": [1, 1]}, name="max_pool2d_bool")
case("avg_pool2d", [rand("i32", [1, 1, 4, 4])], lambda x: F.avg_pool2d(x.float(), 2),
     {"kernel": [2, 2], "stride": [], "padding": [0, 0], "count_include_pad": True}, name="avg_pool2d_i32_promotes")
for op, fn in (("softmax", F.softmax), ("log_softmax", F.log_softmax)):
    for dt in ("u8", "bool"):
        case(op, [rand(dt, [2, 3])], lambda x, f=fn: f(x.float(), dim=-1), {"axis": -1}, name=f"{op}_{dt}_promotes")
case("layer_norm", [rand("i32", [2, 4])], lambda x: F.layer_norm(x.float(), [4]),
     {"dims": 1, "eps": 1e-5, "weight": False, "bias": False}, name="layer_norm_i32_promotes")
for dt in ("u8", "bool"):
    case("embedding", [torch.tensor([1, 0, 1], dtype=torch.int64), rand(dt, [2, 3])], lambda i, t: t[i],
         name=f"embedding_table_{dt}", cls=CLS[dt])
    case("var", [rand(dt, [2, 4])], lambda x: torch.var(x.float(), dim=1), {"axes": [1], "correction": 1.0, "keepdim": False},
         name=f"var_{dt}_promotes")
    case("clamp", [rand("u8", [6])], lambda x: torch.clamp(x, 2, 5), {"lo": 2, "hi": 5}, name="clamp_u8")
case("where", [rand("bool", [3]), rand("u8", [3]), rand("i8", [3])], torch.where, cls="unsigned", name="where_u8_i8_promote")
case("mse", [rand("bool", [4]), rand("bool", [4])], lambda a, b: torch.mean((a.float() - b.float()) ** 2), name="mse_bool",
     cls="bool")

# composites on integer inputs: Kernelscope promotes them to f32 (or keeps/wraps the int dtype
# where the op is integer arithmetic: matmul, linear, conv2d)
for dt in ("i32", "u8"):
    case("std", [rand(dt, [2, 4])], lambda x: torch.std(x.float(), dim=1), {"axes": [1], "correction": 1.0, "keepdim": False},
         name=f"std_{dt}_promotes")
    case("rms_norm", [rand(dt, [2, 4])], lambda x: rms_ref(x.float(), dims=1), {"dims": 1, "eps": 1e-6, "weight": False},
         name=f"rms_norm_{dt}_promotes")
    case("batch_norm", [rand(dt, [2, 3]), rand("f32", [3]), rand("f32", [3], positive=True)],
         lambda x, m, v: F.batch_norm(x.float(), m, v, None, None, False, 0.1, 1e-5), {"eps": 1e-5, "weight": False, "bias": False},
         name=f"batch_norm_{dt}_promotes")
    case("sdpa", [rand(dt, [3, 2]), rand(dt, [4, 2]), rand(dt, [4, 2])],
         lambda q, k, v: sdpa_ref(q.float(), k.float(), v.float(), False, 0.25), {"causal": False, "scale": 0.25},
         name=f"sdpa_{dt}_promotes")
    case("cross_entropy", [rand(dt, [3, 4]), torch.tensor([0, 3, 1], dtype=torch.int64)],
         lambda x, t: F.cross_entropy(x.float(), t), name=f"cross_entropy_{dt}_logits")
    case("layer_norm", [rand(dt, [2, 5])], lambda x: F.layer_norm(x.float(), [5]),
         {"dims": 1, "eps": 1e-5, "weight": False, "bias": False}, name=f"layer_norm_{dt}_more")
case("conv2d", [rand("u8", [1, 1, 4, 4]), rand("u8", [2, 1, 2, 2]), rand("u8", [2])],
     lambda x, w, b: F.conv2d(x.double(), w.double(), b.double(), 1, 1).long().to(torch.uint8),
     {"stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "groups": 1, "bias": True}, name="conv2d_u8_wraps")
case("linear", [rand("u8", [2, 3]), rand("u8", [3, 2]), rand("u8", [2])], lambda x, w, b: (x.long() @ w.long() + b.long()).to(torch.uint8),
     name="linear_u8_wraps")
case("avg_pool2d", [rand("u8", [1, 1, 4, 4])], lambda x: F.avg_pool2d(x.float(), 2),
     {"kernel": [2, 2], "stride": [], "padding": [0, 0], "count_include_pad": True}, name="avg_pool2d_u8_promotes")
case("mse", [rand("u8", [4]), rand("u8", [4])], lambda a, b: torch.mean((a - b).float() ** 2), name="mse_u8_wrapped_difference")

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "op_cases.json")
with open(out, "w") as f:
    json.dump({"generator": "tests/data/gen_op_cases.py", "torch": torch.__version__, "numpy": np.__version__,
               "cases": cases}, f, separators=(",", ":"))
    f.write("\n")
print(f"{len(cases)} cases -> {out}", file=sys.stderr)
