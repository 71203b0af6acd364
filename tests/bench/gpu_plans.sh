#!/usr/bin/env bash
# Prepared plans on a GPU machine: builds the CLI without Qt, then times the transformer sample on
# the first NVIDIA OpenCL device: the cold run (allocations + every upload) and the steady state
# (bench's median wall over N runs, parameters resident), kernels and copies apart.
# Usage: tests/bench/gpu_plans.sh OUTDIR [REPEAT]
set -eu
out=${1:?OUTDIR}
repeat=${2:-23}
mkdir -p "$out"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DKS_BUILD_GUI=OFF -DKS_WITH_GRAPHVIZ=OFF \
  -DKS_WITH_ONNX=OFF -DKS_WITH_SQLITE=OFF >/dev/null
ninja -C build-gpu kernelscope-cli >/dev/null
cli=$(find build-gpu -name kernelscope-cli -type f | head -1)
"$cli" devices >"$out/devices.txt"
dev=$(grep -i nvidia "$out/devices.txt" | head -1 | awk '{print $1}')
[ -n "$dev" ] || { echo "no NVIDIA OpenCL device"; cat "$out/devices.txt"; exit 1; }
for p in transformer mlp; do
  "$cli" run "samples/$p.ks" --devices "$dev" --tune none --cache none --json >"$out/$p.run.json"
  "$cli" bench "samples/$p.ks" --devices "$dev" --tune none --cache none --repeat "$repeat" --json >"$out/$p.bench.json"
done
python3 - "$out" <<'PY'
import json, sys, os
d = sys.argv[1]
for p in ["transformer", "mlp"]:
    r = json.load(open(os.path.join(d, p + ".run.json")))
    b = json.load(open(os.path.join(d, p + ".bench.json")))
    ks = r["timings_ms"]["kernels"]
    kern = sum(k["ms"] for k in ks if k["kind"] != "copy")
    copy = sum(k["ms"] for k in ks if k["kind"] == "copy")
    pl = b["plans"][0]
    bk = sum(s["ms"] for s in pl["steps"] if "copy" not in s["step"])
    bc = sum(s["ms"] for s in pl["steps"] if "copy" in s["step"])
    print(f"{p}: cold wall {r['timings_ms']['total']:.3f} ms (kernels {kern:.3f}, copies {copy:.3f}); "
          f"steady median wall {pl['total_ms']:.3f} ms (kernel medians {bk:.3f}, copy medians {bc:.3f}) over {b['repeat']} runs")
PY
