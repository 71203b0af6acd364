# PyTorch eager on the CPU for samples/softmax.ks and samples/layer_norm.ks ([4096, 1024] f32 rows):
# median wall time of one call over at least 0.6 s of calls after warm-up, at the thread count given.
# Run with Debian's interpreter (/usr/bin/python3, python3-torch). Prints one JSON object.
# usage: torch_norm.py THREADS
import json, os, statistics, sys, time
threads = int(sys.argv[1])
os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
import torch  # noqa: E402  (after the thread settings)
torch.set_num_threads(threads)


def bench(fn, min_time=0.6, warm=5):
    for _ in range(warm):
        fn()
    t = []
    start = time.perf_counter()
    while len(t) < 20 or time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return {"median_ms": statistics.median(t) * 1e3, "min_ms": min(t) * 1e3, "runs": len(t)}


g = torch.Generator().manual_seed(1)
x = torch.randn(4096, 1024, generator=g)
gamma = torch.randn(1024, generator=g) * 0.1 + 1
beta = torch.rand(1024, generator=g) * 0.2 - 0.1
with torch.no_grad():
    r = {"softmax": bench(lambda: torch.softmax(x, -1)),
         "layer_norm": bench(lambda: torch.nn.functional.layer_norm(x, (1024,), gamma, beta, 1e-5))}
r["threads"] = threads
r["torch"] = torch.__version__
json.dump(r, sys.stdout)
