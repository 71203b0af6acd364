#!/usr/bin/python3
"""Generates tests/data/grad_cases.json: gradients of small .ks programs, computed by PyTorch.

Expected values come from PyTorch autograd (Debian's python3-torch, 1.13) in float64, never from
Kernelscope. Inputs are drawn as float32 values, so the f32 .ks program sees exactly the numbers
PyTorch differentiates. Run once with /usr/bin/python3 and commit the JSON with it:

    /usr/bin/python3 tests/data/gen_grad_cases.py

A case is {name, ks, inputs: {name: T}, expected: {output: T}}, T = {shape, data} (row-major).
tests/engine/test_autograd.cpp parses `ks`, binds the inputs and compares every output.
"""
import json
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(1)
rng = np.random.default_rng(20261202)
cases = []


def t(shape, lo=-1.0, hi=1.0):
    return torch.tensor(rng.uniform(lo, hi, shape).astype(np.float32).astype(np.float64), requires_grad=True)


def ints(shape, n):
    return torch.tensor(rng.integers(0, n, shape), dtype=torch.int64)


def enc(x):
    x = x.detach().to(torch.float64)
    return {"shape": list(x.shape), "data": [float(v) for v in x.reshape(-1).tolist()]}


def case(name, ks, inputs, loss, wrt):
    """inputs: {name: tensor}; loss: the scalar PyTorch value; wrt: names, in the ks grad order."""
    grads = torch.autograd.grad(loss, [inputs[n] for n in wrt])
    expected = {"loss": enc(loss)}
    for n, g in zip(wrt, grads):
        expected["g" + n] = enc(g)
    cases.append({"name": name, "ks": ks, "inputs": {k: enc(v) for k, v in inputs.items()}, "expected": expected})


def decl(inputs, types=None):
    types = types or {}
    return "".join(f"input {k}: {types.get(k, 'f32')}{list(v.shape)}\n" for k, v in inputs.items())


def tail(wrt):
    gs = ", ".join("g" + n for n in wrt)
    return f"{gs} = grad(loss, [{', '.join(wrt)}])\noutput loss, {gs}\n"


# An MLP with cross-entropy (the training sample's shape, small).
i = {"x": t([4, 6]), "w1": t([6, 5]), "b1": t([5]), "w2": t([5, 3]), "b2": t([3]), "y": ints([4], 3)}
ks = decl(i, {"y": "i64"}) + "h = relu(linear(x, w1, b1))\nloss = cross_entropy(linear(h, w2, b2), y)\n"
w = ["w1", "b1", "w2", "b2", "x"]
case("mlp_cross_entropy", ks + tail(w), i,
     F.cross_entropy(F.relu(i["x"] @ i["w1"] + i["b1"]) @ i["w2"] + i["b2"], i["y"]), w)

# Causal attention written with softmax, and the fused op.
i = {"q": t([1, 2, 4, 3]), "k": t([1, 2, 4, 3]), "v": t([1, 2, 4, 3]), "c": t([1, 2, 4, 3])}
ks = decl(i) + "a = scaled_dot_product_attention(q, k, v, causal=true)\nloss = sum(a * c)\n"
s = i["q"] @ i["k"].transpose(-1, -2) / np.sqrt(3.0)
s = s.masked_fill(torch.triu(torch.ones(4, 4, dtype=torch.bool), 1), float("-inf"))
w = ["q", "k", "v"]
case("attention", ks + tail(w), i, (torch.softmax(s, -1) @ i["v"] * i["c"]).sum(), w)

# layer_norm, gelu and mse: an encoder MLP block.
i = {"x": t([3, 8]), "g": t([8]), "b": t([8]), "w": t([8, 8]), "r": t([3, 8])}
ks = decl(i) + "h = gelu(layer_norm(x, g, b) @ w)\nloss = mse(h + x, r)\n"
h = F.gelu(F.layer_norm(i["x"], [8], i["g"], i["b"]) @ i["w"])
w = ["x", "g", "b", "w"]
case("layer_norm_gelu_mse", ks + tail(w), i, F.mse_loss(h + i["x"], i["r"]), w)

# conv2d, max and average pools, log_softmax.
i = {"x": t([2, 2, 6, 6]), "k": t([3, 2, 3, 3]), "kb": t([3]), "c": t([2, 3, 2, 2])}
ks = decl(i) + ("h = conv2d(x, k, kb, padding=[1, 1])\np = max_pool2d(h, [2, 2])\nq = avg_pool2d(p, [2, 2], [1, 1])\n"
                "loss = sum(log_softmax(q, axis=1) * c)\n")
h = F.avg_pool2d(F.max_pool2d(F.conv2d(i["x"], i["k"], i["kb"], padding=1), 2), 2, 1)
w = ["x", "k", "kb"]
case("conv_pools", ks + tail(w), i, (F.log_softmax(h, 1) * i["c"]).sum(), w)

# Activations.
i = {"x": t([10], -3, 3), "c": t([10])}
ks = decl(i) + ("a = tanh(x) + sigmoid(x) * 2 + softplus(x, 2.0, 3.0) + elu(x, 0.7) + leaky_relu(x, 0.1)\n"
                "b = silu(x) + gelu(x, tanh_approx=true) + clamp(x, -1.5, 2.0) + abs(x) + exp(x) * 0.1\n"
                "loss = sum((a + b) * c)\n")
x = i["x"]
a = torch.tanh(x) + torch.sigmoid(x) * 2 + F.softplus(x, 2.0, 3.0) + F.elu(x, 0.7) + F.leaky_relu(x, 0.1)
b = F.silu(x) + F.gelu(x, approximate="tanh") + torch.clamp(x, -1.5, 2.0) + x.abs() + x.exp() * 0.1
case("activations", ks + tail(["x"]), i, ((a + b) * i["c"]).sum(), ["x"])

# Movement ops.
i = {"x": t([2, 3, 4]), "z": t([2, 3, 4]), "c": t([8, 3, 2])}
ks = decl(i) + ("a = concat([x, flip(z, [2])], axis=2)\nb = permute(a, [2, 1, 0])\n"
                "p, q = split(b, [3, 5], axis=0)\n"
                "r = concat([repeat(narrow(p, 2, 1, 1), [1, 1, 2]), pad(q, [[0, 0], [0, 0], [1, -1]])], axis=0)\n"
                "e = reshape(permute(expand(reshape(x, [2, 3, 4, 1]), [2, 3, 4, 2]), [2, 1, 0, 3]), [8, 3, 2])\n"
                "s = stack([r, e], 1)\n"
                "loss = sum(squeeze(narrow(s, 1, 1, 1), [1]) * c) + sum(flatten(r) * flatten(c * c))\n")
x, z, c = i["x"], i["z"], i["c"]
a = torch.cat([x, z.flip(2)], 2)
b = a.permute(2, 1, 0)
p, q = torch.split(b, [3, 5], 0)
r = torch.cat([p[:, :, 1:2].repeat(1, 1, 2), F.pad(q, (1, -1))], 0)
e = x.reshape(2, 3, 4, 1).expand(2, 3, 4, 2).permute(2, 1, 0, 3).reshape(8, 3, 2)
s = torch.stack([r, e], 1)
w = ["x", "z"]
case("movement", ks + tail(w), i, (s[:, 1] * c).sum() + (r.flatten() * (c * c).flatten()).sum(), w)

# Reductions.
i = {"x": t([3, 5], 0.5, 1.5), "c": t([3, 5])}
ks = decl(i) + ("a = var(x, [1]) + std(x, [1], correction=0.0) + mean(x, [1]) + prod(x, [1]) + max(x, [1]) + min(x, [1])\n"
                "loss = sum(a) + sum(cumsum(x, 1) * c)\n")
x = i["x"]
a = x.var(1) + x.std(1, unbiased=False) + x.mean(1) + x.prod(1) + x.amax(1) + x.amin(1)
case("reductions", ks + tail(["x"]), i, a.sum() + (torch.cumsum(x, 1) * i["c"]).sum(), ["x"])

# Embedding rows picked by indices (the table's gradient scatters back, repeated rows add up).
i = {"table": t([5, 3]), "idx": torch.tensor([[0, 3], [3, 4]]), "c": t([2, 2, 3])}
ks = decl(i, {"idx": "i64"}) + "loss = sum(embedding(idx, table) * c)\n"
case("embedding", ks + tail(["table"]), i, (F.embedding(i["idx"], i["table"]) * i["c"]).sum(), ["table"])

# Elementwise binary ops, where and rms_norm.
i = {"a": t([4, 3], 0.2, 2.0), "b": t([4, 3], -1, 1), "w": t([3])}
ks = decl(i) + ("u = pow(a, b) + a / (b * b + 1) + maximum(a, b) * minimum(a, b * 2) + where(b > 0, a * b, b * b)\n"
                "loss = sum(rms_norm(u, w) * u) + sum(log(a) * sqrt(a) - rsqrt(a) + reciprocal(a))\n")
a, b = i["a"], i["b"]
u = a.pow(b) + a / (b * b + 1) + torch.maximum(a, b) * torch.minimum(a, b * 2) + torch.where(b > 0, a * b, b * b)
rms = u * torch.rsqrt(u.pow(2).mean(-1, keepdim=True) + 1e-6) * i["w"]
w = ["a", "b", "w"]
case("binary_rms_norm", ks + tail(w), i, (rms * u).sum() + (a.log() * a.sqrt() - a.rsqrt() + a.reciprocal()).sum(), w)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grad_cases.json")
with open(out, "w") as f:
    json.dump(cases, f, separators=(",", ":"))
    f.write("\n")
print(f"{len(cases)} cases -> {out}")
