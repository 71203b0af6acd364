#!/usr/bin/env bash
# Prepared plans on a GPU machine: builds the CLI without Qt, then times the transformer and MLP
# samples on the first NVIDIA OpenCL device -- the cold run (allocations + every upload) and the
# steady state (median wall over N runs, parameters resident) at --tune quick -- against PyTorch
# eager on the same GPU in the same call (tests/bench/gpu/torch_models.py: wall with a synchronize
# per call, beside CUDA-event time), and prints the ratios of wall to wall.
# Usage: tests/bench/gpu_plans.sh OUTDIR [REPEAT]
set -eu
out=${1:?OUTDIR}
repeat=${2:-30}
mkdir -p "$out"
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  timeout 120 python3 tests/bench/gpu/torch_models.py >"$out/torch.jsonl" || echo "PyTorch baseline failed" >&2
fi
. tests/bench/gpu/build_cli.sh  # sets cli and dev
for p in transformer mlp; do
  timeout 100 "$cli" run "samples/$p.ks" --devices "$dev" --tune quick --cache "$out/tune.sqlite" --repeat "$repeat" \
    --verify --json >"$out/$p.run.json" || echo "$p: run failed" >&2
done
python3 - "$out" <<'PY'
import json, sys, os
d = sys.argv[1]
torch = {}
if os.path.exists(os.path.join(d, "torch.jsonl")):
    for line in open(os.path.join(d, "torch.jsonl")):
        r = json.loads(line)
        torch[r["name"]] = r
for p in ["transformer", "mlp"]:
    try:
        r = json.load(open(os.path.join(d, p + ".run.json")))
    except (OSError, ValueError):
        print(f"{p}: no result")
        continue
    tm = r["timings_ms"]
    st, cold = tm["steady"], tm["cold"]
    line = (f"{p}: verified {r.get('verified')}; cold wall {cold['wall']:.3f} ms; steady wall {st['wall']:.3f} ms "
            f"(kernels {st['device_kernels']:.3f}, copies {st['device_copies']:.3f}) over {st['runs']} runs")
    if p in torch:
        t = torch[p]
        line += f"; PyTorch eager wall {t['wall_ms']:.3f} ms (events {t['event_ms']:.3f}) -> {st['wall'] / t['wall_ms']:.2f}x"
    print(line)
PY
