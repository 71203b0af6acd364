#!/usr/bin/env bash
# Big programs on a GPU machine: `bench` of a 4096^3 matmul and of a 256M-element elementwise
# chain on the first NVIDIA OpenCL device (compile at --tune quick, cold run verified against the
# bounded host check, 3 warm-ups, N timed runs), each timed end to end on the wall clock; the
# target is under a minute each. Then the prepared-plan benchmark (gpu_plans.sh) in the same call.
# Usage: tests/bench/gpu_big.sh OUTDIR [REPEAT]
set -eu
out=${1:?OUTDIR}
repeat=${2:-10}
mkdir -p "$out"
. tests/bench/gpu/build_cli.sh  # sets cli and dev
tmp=$(mktemp -d)
printf 'input a: f32[4096, 4096]\ninput b: f32[4096, 4096]\ny = a @ b\noutput y\n' >"$tmp/matmul4096.ks"
printf 'input x: f32[268435456]\ny = exp(-x * x) * 0.5 + sin(x) - tanh(x * 3.0)\noutput y\n' >"$tmp/chain256m.ks"
for p in matmul4096 chain256m; do
  t0=$(date +%s.%N)
  timeout 150 "$cli" bench "$tmp/$p.ks" --devices "$dev" --repeat "$repeat" --json >"$out/$p.bench.json" 2>"$out/$p.err" || echo "$p: bench failed" >&2
  t1=$(date +%s.%N)
  python3 - "$out/$p.bench.json" "$p" "$t0" "$t1" <<'PY'
import json, sys
path, name, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
try:
    p = json.load(open(path))["plans"][0]
    print(f"{name}: bench {t1 - t0:.1f} s wall in all; steady {p['total_ms']:.3f} ms (kernels {p['kernels_ms']:.3f}, "
          f"copies {p['copies_ms']:.3f}), cold {p['cold_ms']:.1f} ms, verified={p['verified']} "
          f"({p['verification']['mode']} {p['verification']['checked']} of {p['verification']['total']})")
except Exception as e:
    print(f"{name}: bench {t1 - t0:.1f} s wall, no result ({e})")
PY
done
rm -rf "$tmp"
bash tests/bench/gpu_plans.sh "$out" 30
