#!/usr/bin/env bash
# Bounded verification: `run --verify` of an N^3 matmul and of an M-element elementwise chain on
# one device, once with the default host-check budget (a sample checked by the per-element
# reference) and once with an unbounded budget (the whole-tensor host oracle), timed in the same
# run, after one untimed run of each program. Prints each wall time, the ratio, and what each check covered.
# Usage: tests/bench/bounded_verify.sh CLI [DEVICE] [N] [M]
set -eu
cli=${1:?CLI}
dev=${2:-opencl:0:0}
n=${3:-1024}
m=${4:-33554432}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'input a: f32[%d, %d]\ninput b: f32[%d, %d]\ny = a @ b\noutput y\n' "$n" "$n" "$n" "$n" >"$tmp/matmul.ks"
printf 'input x: f32[%d]\ny = exp(-x * x) * 0.5 + sin(x) - tanh(x * 3.0)\noutput y\n' "$m" >"$tmp/chain.ks"
for p in matmul chain; do
  # Untimed first: PoCL caches the compiled kernel on disk, so the first timed mode would pay it alone.
  "$cli" run "$tmp/$p.ks" --devices "$dev" --tune none --cache none --repeat 0 >/dev/null
  for mode in bounded full; do
    budget=(); [ "$mode" = full ] && budget=(--verify-budget 1e18)
    t0=$(date +%s.%N)
    "$cli" run "$tmp/$p.ks" --devices "$dev" --tune none --cache none --verify --repeat 0 --json "${budget[@]}" >"$tmp/$p.$mode.json"
    t1=$(date +%s.%N)
    echo "$t0 $t1" >"$tmp/$p.$mode.t"
  done
done
python3 - "$tmp" <<'PY'
import json, sys, os
d = sys.argv[1]
for p in ["matmul", "chain"]:
    wall = {}
    for mode in ["bounded", "full"]:
        t0, t1 = map(float, open(os.path.join(d, f"{p}.{mode}.t")).read().split())
        r = json.load(open(os.path.join(d, f"{p}.{mode}.json")))
        v = r["verification"]
        wall[mode] = t1 - t0
        print(f"{p} {mode}: {wall[mode]:.2f} s wall (compile + cold run + check), verified={r['verified']}, "
              f"{v['mode']} {v['checked']} of {v['total']} elements")
    print(f"{p}: bounded/full wall ratio {wall['bounded'] / wall['full']:.3f}")
PY
