#!/usr/bin/python3
"""Generates torchvision's ResNet-18 and MobileNetV2 as ONNX test folders with PyTorch's outputs.

Random weights from a fixed seed (nothing is downloaded), batch 1, 224x224, ONNX opset 13, eval
mode (the exporter folds each batch norm into its convolution). Each model becomes an ONNX
backend-test folder that `kernelscope-cli check` runs:

    OUT/<name>/model.onnx
    OUT/<name>/test_data_set_0/input_0.pb, output_0.pb   (PyTorch's output for the input)

The weights (45 MB for ResNet-18) are not committed: ctest generates the folders into the build
tree (the `long` label), and a user runs it by hand the same way:

    /usr/bin/python3 tests/data/gen_models.py OUT [resnet18] [mobilenet_v2]

Needs Debian's python3-torch, python3-torchvision and python3-onnx. Reruns give identical files;
a folder whose files exist is kept unless --force.
"""
import argparse
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # Debian's torch ignores set_num_threads for BLAS

try:
    import torch  # noqa: E402
    import torchvision  # noqa: E402
    from onnx import numpy_helper  # noqa: E402
except ImportError as e:
    sys.exit(f"gen_models.py: {e}: needs Debian's python3-torch, python3-torchvision and python3-onnx "
             "(apt-get install python3-torch python3-torchvision python3-onnx), run with /usr/bin/python3")

MODELS = {
    "resnet18": lambda: torchvision.models.resnet18(weights=None),
    "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(weights=None),
}
SEED = 18


def randomize_batch_norms(model, gen):
    """torchvision initializes every batch norm to the identity (mean 0, var 1, weight 1, bias 0);
    random statistics make the folded convolution weights differ from the raw ones, so a wrong
    fold would show."""
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


def write_tensor(path, array):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array).SerializeToString())


def generate(name, out, force):
    folder = os.path.join(out, name)
    data = os.path.join(folder, "test_data_set_0")
    files = [os.path.join(folder, "model.onnx"), os.path.join(data, "input_0.pb"), os.path.join(data, "output_0.pb")]
    if not force and all(os.path.exists(f) for f in files):
        print(f"{name}: up to date in {folder}")
        return
    os.makedirs(data, exist_ok=True)
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    model = MODELS[name]()
    with torch.no_grad():
        randomize_batch_norms(model, gen)
    model.eval()
    x = torch.rand(1, 3, 224, 224, generator=gen)
    with torch.no_grad():
        y = model(x)
        torch.onnx.export(model, (x,), files[0], input_names=["input"], output_names=["logits"],
                          opset_version=13, do_constant_folding=True)
    write_tensor(files[1], x.numpy())
    write_tensor(files[2], y.numpy())
    print(f"{name}: wrote {folder} (output {tuple(y.shape)}, |y| max {y.abs().max().item():.4g})")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="folder that receives one test folder per model")
    p.add_argument("models", nargs="*", default=list(MODELS), help="models to make (default: all)")
    p.add_argument("--force", action="store_true", help="regenerate folders that already exist")
    args = p.parse_args()
    for m in args.models:
        if m not in MODELS:
            sys.exit(f"unknown model '{m}' (known: {', '.join(MODELS)})")
    torch.set_num_threads(1)
    for m in args.models:
        generate(m, args.out, args.force)


if __name__ == "__main__":
    main()
