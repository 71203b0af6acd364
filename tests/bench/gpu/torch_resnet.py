# PyTorch eager ResNet-18 (torchvision's layout, batch 1, 224x224, random weights: the timing does not
# depend on the values) on the GPU, eval mode, TF32 off: median of 30 calls after 8 warm-ups, wall with
# a synchronize per call beside CUDA-event time, as torch_models.py. Uses torchvision when the machine
# has it, else the same network written out here. Prints one JSON object.
import json, statistics as st, time
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
nn = torch.nn


class Basic(nn.Module):
    def __init__(s, cin, cout, stride):
        super().__init__()
        s.c1, s.b1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
        s.c2, s.b2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
        s.down = None
        if stride != 1 or cin != cout:
            s.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(s, x):
        y = s.b2(s.c2(torch.relu(s.b1(s.c1(x)))))
        return torch.relu(y + (x if s.down is None else s.down(x)))


def resnet18():
    try:
        import torchvision
        return torchvision.models.resnet18(), "torchvision"
    except ImportError:
        layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
        cin = 64
        for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
            layers += [Basic(cin, cout, stride), Basic(cout, cout, 1)]
            cin = cout
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
        return nn.Sequential(*layers), "written out"


torch.manual_seed(0)
model, source = resnet18()
model = model.cuda().eval()
x = torch.rand(1, 3, 224, 224, device="cuda")
for mode in ("eager", "cudnn_benchmark"):
    torch.backends.cudnn.benchmark = mode == "cudnn_benchmark"
    with torch.no_grad():
        for _ in range(8):
            model(x)
        torch.cuda.synchronize()
        wall, ev = [], []
        for _ in range(30):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.perf_counter()
            a.record()
            model(x)
            b.record()
            torch.cuda.synchronize()
            wall.append((time.perf_counter() - t0) * 1e3)
            ev.append(a.elapsed_time(b))
    print(json.dumps(dict(name="resnet18", mode=mode, model=source, wall_ms=round(st.median(wall), 4),
                          event_ms=round(st.median(ev), 4))), flush=True)
