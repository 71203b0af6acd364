# PyTorch eager on CUDA for the same workloads as the .ks files beside this script: median
# CUDA-event time of 30 calls after warm-up, TF32 off. Prints one JSON object.
import json, statistics, sys
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = 'cuda'
def bench(fn, reps=30, warm=8):
    with torch.no_grad():
        for _ in range(warm): fn()
        torch.cuda.synchronize()
        ev = []
        for _ in range(reps):
            a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
            a.record(); fn(); b.record(); torch.cuda.synchronize()
            ev.append(a.elapsed_time(b))
    return statistics.median(ev)
x = torch.rand(16 << 20, device=dev) * 2 - 1; y = torch.empty_like(x)
r = {'copy16m': bench(lambda: y.copy_(x)),
     'chain16m': bench(lambda: torch.sigmoid(torch.relu(x * 0.5 + 1.0) ** 2 - 0.25) * 2.0 + x),
     'sum16m': bench(lambda: x.sum())}
m = torch.rand(4096, 1024, device=dev)
g = torch.rand(1024, device=dev); bb = torch.rand(1024, device=dev)
r['softmax'] = bench(lambda: torch.softmax(m, -1))
r['layer_norm'] = bench(lambda: torch.nn.functional.layer_norm(m, (1024,), g, bb, 1e-5))
a = torch.rand(1024, 1024, device=dev); b = torch.rand(1024, 1024, device=dev)
r['matmul1024'] = bench(lambda: a @ b)
a4 = torch.rand(4096, 4096, device=dev); b4 = torch.rand(4096, 4096, device=dev)
r['matmul4096'] = bench(lambda: a4 @ b4, reps=10, warm=3)
r['torch'] = torch.__version__
json.dump(r, sys.stdout)
