#!/usr/bin/python3
"""Makes the ONNX samples (samples/onnx/*.onnx) and their reference data (tests/data/onnx/).

Run with Debian's interpreter: /usr/bin/python3 samples/onnx/make_models.py (python3-torch and
python3-onnx). Weights and inputs come from fixed seeds, so reruns give the same files. Each model
gets an ONNX test folder tests/data/onnx/<name>/ (model.onnx + test_data_set_0/input_*.pb,
output_*.pb) that `kernelscope-cli check` and tests/engine/test_onnx.cpp run; expected outputs
are PyTorch's.

Gelu (opset 20) and Mish (opset 18) are newer than ONNX 1.12's test data, so they get single-op
models built with onnx.helper, with expected values from torch.nn.functional.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # Debian's torch ignores set_num_threads for BLAS

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "data", "onnx")


class Mlp(torch.nn.Module):
    """784-512-512-10 with ReLU: what the .ks MLP sample computes."""

    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(784, 512)
        self.l2 = torch.nn.Linear(512, 512)
        self.l3 = torch.nn.Linear(512, 10)

    def forward(self, x):
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))


class LeNet(torch.nn.Module):
    """LeNet-5 style: conv-relu-maxpool twice, then three linear layers, log-softmax."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 6, 5, padding=2)
        self.c2 = torch.nn.Conv2d(6, 16, 5)
        self.f1 = torch.nn.Linear(16 * 5 * 5, 120)
        self.f2 = torch.nn.Linear(120, 84)
        self.f3 = torch.nn.Linear(84, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.c1(x)), 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.c2(x)), 2)
        x = torch.flatten(x, 1)
        x = torch.relu(self.f1(x))
        x = torch.relu(self.f2(x))
        return torch.log_softmax(self.f3(x), dim=-1)


class Attention(torch.nn.Module):
    """A pre-norm transformer encoder block: layer norm, 4-head causal self-attention with the
    head split done by Reshape/Transpose (the exporter emits Shape->Gather->Concat->Reshape
    chains that the importer must fold), residual, layer norm, tanh-GELU MLP, residual."""

    def __init__(self, width=64, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(width)
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.ln2 = torch.nn.LayerNorm(width)
        self.fc1 = torch.nn.Linear(width, 4 * width)
        self.fc2 = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(c, dim=-1)
        def heads(z):
            return z.reshape(b, t, self.heads, c // self.heads).transpose(1, 2)
        q, k, v = heads(q), heads(k), heads(v)
        att = q @ k.transpose(-2, -1) / (c // self.heads) ** 0.5
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        att = att.masked_fill(mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        x = x + self.proj(y)
        h = self.ln2(x)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(h), approximate="tanh"))


def write_case(name, model_path, inputs, outputs, link=False):
    """An ONNX test folder: the model (a relative symlink to a sample, or a copy) and one data set."""
    d = os.path.join(DATA, name)
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds, exist_ok=True)
    target = os.path.join(d, "model.onnx")
    if os.path.lexists(target):
        os.remove(target)
    if link:
        os.symlink(os.path.relpath(model_path, d), target)
    else:
        with open(model_path, "rb") as f, open(target, "wb") as g:
            g.write(f.read())
    for k, (n, a) in enumerate(inputs):
        with open(os.path.join(ds, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for k, (n, a) in enumerate(outputs):
        with open(os.path.join(ds, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())


def export(name, module, x):
    module.eval()
    path = os.path.join(HERE, name + ".onnx")
    with torch.no_grad():
        y = module(x)
        torch.onnx.export(module, (x,), path, input_names=["x"], output_names=["y"], opset_version=14,
                          do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path))
    write_case(name, path, [("x", x.numpy())], [("y", y.numpy())], link=True)


def single_op(name, op_type, x, y, opset, **attrs):
    """A one-node model; ONNX 1.12's checker does not know these opsets, so it is not run."""
    node = helper.make_node(op_type, ["x"], ["y"], **attrs)
    graph = helper.make_graph(node and [node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_models.py")
    model.ir_version = 8
    path = os.path.join(DATA, name + ".onnx.tmp")
    os.makedirs(DATA, exist_ok=True)
    onnx.save(model, path)
    write_case(name, path, [("x", x)], [("y", y)])
    os.remove(path)


def main():
    torch.manual_seed(0)
    export("mlp", Mlp(), torch.randn(64, 784))
    export("cnn", LeNet(), torch.randn(16, 1, 28, 28))
    export("attention", Attention(), torch.randn(2, 32, 64))

    rng = np.random.default_rng(1)
    # Values across the interesting range, plus the special cases.
    x = np.concatenate([rng.uniform(-6, 6, 60), [0.0, -0.0, 1e-4, -1e-4, 20.0, -20.0]]).astype(np.float32).reshape(6, 11)
    t = torch.from_numpy(x)
    f = torch.nn.functional
    single_op("test_gelu", "Gelu", x, f.gelu(t).numpy(), 20)
    single_op("test_gelu_tanh", "Gelu", x, f.gelu(t, approximate="tanh").numpy(), 20, approximate="tanh")
    single_op("test_mish", "Mish", x, f.mish(t).numpy(), 18)


if __name__ == "__main__":
    main()
