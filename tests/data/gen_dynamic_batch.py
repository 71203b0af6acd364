#!/usr/bin/python3
"""Makes tests/data/onnx/dynamic_batch: a PyTorch model exported with a dynamic batch.

The input is x: f32[batch, 3, 4] with `batch` a symbolic dim (dynamic_axes); the model flattens
it with x.reshape(x.shape[0], -1), which the exporter writes as a Shape->Gather->Concat->Reshape
chain, then Linear(12, 8), ReLU, Linear(8, 4) and a softmax. One model file, two data sets with
PyTorch's outputs: batch 3 (test_data_set_0) and batch 17 (test_data_set_1).

Run with Debian's interpreter: /usr/bin/python3 tests/data/gen_dynamic_batch.py (python3-torch and
python3-onnx). Fixed seeds: reruns give the same values.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # Debian's torch ignores set_num_threads for BLAS

import onnx  # noqa: E402
import torch  # noqa: E402
from onnx import numpy_helper  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "onnx", "dynamic_batch")


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(12, 8)
        self.l2 = torch.nn.Linear(8, 4)

    def forward(self, x):
        h = x.reshape(x.shape[0], -1)
        return torch.softmax(self.l2(torch.relu(self.l1(h))), dim=-1)


def write_pb(path, name, array):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())


def main():
    torch.manual_seed(16)
    model = Head().eval()
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "model.onnx")
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(2, 3, 4),), path, input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, opset_version=14,
                          do_constant_folding=True)
        onnx.checker.check_model(onnx.load(path))
        for k, batch in enumerate((3, 17)):
            ds = os.path.join(OUT, f"test_data_set_{k}")
            os.makedirs(ds, exist_ok=True)
            x = torch.randn(batch, 3, 4)
            write_pb(os.path.join(ds, "input_0.pb"), "x", x.numpy())
            write_pb(os.path.join(ds, "output_0.pb"), "y", model(x).numpy())


if __name__ == "__main__":
    main()
