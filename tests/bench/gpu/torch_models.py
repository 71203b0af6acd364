# PyTorch eager on the GPU for the samples the prepared-plan targets name: samples/mlp.ks (784-512-512-10,
# ReLU, softmax, batch 64) and samples/transformer.ks (pre-LN encoder block, seq 128, width 256, 4 heads).
# Median of 30 calls after 8 warm-ups: wall clock with a synchronize per call (what a caller waits for)
# and CUDA-event time of the same calls; TF32 off. Prints one JSON object per line.
import json, statistics as st, time
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = "cuda"
torch.manual_seed(0)


def bench(fn, reps=30, warm=8):
    with torch.no_grad():
        for _ in range(warm):
            fn()
        torch.cuda.synchronize()
        wall, ev = [], []
        for _ in range(reps):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t0 = time.perf_counter()
            a.record()
            fn()
            b.record()
            torch.cuda.synchronize()
            wall.append((time.perf_counter() - t0) * 1e3)
            ev.append(a.elapsed_time(b))
    return st.median(wall), st.median(ev)


class Block(torch.nn.Module):
    def __init__(s, d=256, h=4):
        super().__init__()
        s.ln1, s.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        s.att = torch.nn.MultiheadAttention(d, h, batch_first=True)
        s.fc1, s.fc2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(s, x):
        a = s.ln1(x)
        x = x + s.att(a, a, a, need_weights=False)[0]
        return x + s.fc2(torch.nn.functional.gelu(s.fc1(s.ln2(x))))


mlp = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
                          torch.nn.Linear(512, 10), torch.nn.Softmax(-1)).to(dev).eval()
xb = torch.rand(64, 784, device=dev)
blk = Block().to(dev).eval()
xt = torch.rand(1, 128, 256, device=dev)
for name, fn in (("mlp", lambda: mlp(xb)), ("transformer", lambda: blk(xt))):
    w, e = bench(fn)
    print(json.dumps(dict(name=name, mode="eager", wall_ms=round(w, 4), event_ms=round(e, 4))), flush=True)
