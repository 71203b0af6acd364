#!/usr/bin/env bash
# Softmax and layer_norm over [4096, 1024] f32 rows on the CPU against PyTorch eager, in one run:
# PyTorch (tests/bench/cpu/torch_norm.py, Debian's python3-torch) at 1 and 2 threads, then our CLI
# runs samples/softmax.ks and samples/layer_norm.ks steady state on PoCL at 1 and 2 threads
# (POCL_MAX_PTHREAD_COUNT), then PyTorch again. Prints per program and thread count our kernel
# time and wall time apart (steady medians; cold first run beside them), the schedule the tuner
# kept, and the ratio of our best kernel time to PyTorch's best median (either thread count, either
# pass); the load average before and after, since the machine is shared.
# Usage: tests/bench/cpu_norm.sh CLI [REPEAT=50]   env: TUNE=none|quick|full (default quick),
#        DEVICE (default: the PoCL device by name), OUT=DIR to keep the JSON.
set -eu
cli=${1:?CLI}
repeat=${2:-50}
tune=${TUNE:-quick}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
[ -n "${OUT:-}" ] || trap 'rm -rf "$out"' EXIT
dev=${DEVICE:-$("$cli" devices --json | python3 -c 'import json,sys
print(next(d["name"] for d in json.load(sys.stdin) if "Portable Computing Language" in d.get("platform", "")))')}
uptime >"$out/load.txt"
: >"$out/torch.jsonl"
torch_pass() { for t in 1 2; do /usr/bin/python3 "$here/cpu/torch_norm.py" "$t" >>"$out/torch.jsonl"; echo >>"$out/torch.jsonl"; done; }
torch_pass
for prog in softmax layer_norm; do
  for t in 1 2; do
    POCL_MAX_PTHREAD_COUNT=$t "$cli" run "$root/samples/$prog.ks" --devices "$dev" --tune "$tune" --cache "$out/tune.sqlite" \
      --repeat "$repeat" --verify --json >"$out/$prog.t$t.json" || echo "$prog at $t threads: run failed" >&2
  done
done
torch_pass
uptime >>"$out/load.txt"
python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
print("load:", " | ".join(l.split("load average:")[1].strip() for l in open(os.path.join(d, "load.txt"))))
torch = [json.loads(l) for l in open(os.path.join(d, "torch.jsonl")) if l.strip()]
for prog in ("softmax", "layer_norm"):
    for r in torch:
        print(f"PyTorch {r['torch']} {prog:10s} t={r['threads']}: median {r[prog]['median_ms']:.3f} ms, min {r[prog]['min_ms']:.3f} ms")
    best_torch = min(r[prog]["median_ms"] for r in torch)
    ours = []
    for t in (1, 2):
        f = os.path.join(d, f"{prog}.t{t}.json")
        try:
            r = json.load(open(f))
        except (OSError, ValueError):
            print(f"ours    {prog:10s} t={t}: no result")
            continue
        st, cold = r["timings_ms"]["steady"], r["timings_ms"]["cold"]
        sched = [p.get("schedule") for p in r["plan"] if p.get("schedule")]
        ours.append(st["device_kernels"])
        print(f"ours    {prog:10s} t={t}: kernels {st['device_kernels']:.3f} ms, wall {st['wall']:.3f} ms steady "
              f"(cold: kernels {cold['device_kernels']:.3f}, wall {cold['wall']:.3f}); {' '.join(map(str, sched))}; "
              f"verified {r.get('verified')}")
    if ours:
        print(f"{prog}: our best kernel time / PyTorch's best median = {min(ours):.3f} / {best_torch:.3f} = "
              f"{min(ours) / best_torch:.2f}x")
PY
