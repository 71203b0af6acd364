#!/usr/bin/env bash
# The GPU machine's benchmark and check, in one call (the machine starts bare): builds the CLI and
# the raw-kernel bench without Qt, then on the H200 and on PoCL (picked by device name, not index)
# times the kernel table -- 8-op chain and sum over 16M f32, softmax and layer_norm [4096, 1024],
# matmul 1024^3 -- against PyTorch eager (CUDA events, TF32 off) measured in the same call, checks
# every lowering case under every schedule against the interpreter, and runs the random-program
# selftest. $OUT gets three files: summary.json (the table, check and selftest results), log.txt
# (every step's output) and devices.json; the raw outputs stay in $WORK.
# usage: OUT=dir bash tests/bench/gpu.sh [--no-check]      (from the repository root)
set -u
ROOT=$(pwd)
OUT=${OUT:-/tmp/ks-gpu}
WORK=${WORK:-/tmp/ks-gpu-work}
BUILD=${BUILD:-$HOME/ks-build-gpu}  # outside the tree: a warm machine keeps it between calls
CHECK=1
[ "${1:-}" = "--no-check" ] && CHECK=0
mkdir -p "$OUT" "$WORK"
exec > >(tee -a "$OUT/log.txt") 2>&1
log() { echo "[gpu.sh $(date +%T)] $*"; }

GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
log "configure + build (kernelscope-cli, bench_raw_kernels)"
cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DKS_BUILD_GUI=OFF -DKS_WITH_GRAPHVIZ=OFF \
  -DKS_WITH_ONNX=OFF -DKS_WITH_SQLITE=OFF >"$WORK/cmake.log" 2>&1 || { tail -30 "$WORK/cmake.log"; exit 1; }
cmake --build "$BUILD" -j "$(nproc)" --target kernelscope-cli bench_raw_kernels >"$WORK/build.log" 2>&1 ||
  { tail -40 "$WORK/build.log"; exit 1; }
CLI=$(find "$BUILD" -name kernelscope-cli -type f -perm -u+x | head -1)
RAW=$(find "$BUILD" -name bench_raw_kernels -type f -perm -u+x | head -1)

"$CLI" devices --json >"$OUT/devices.json" || exit 1
pick() {  # first OpenCL device whose device or platform name matches the regex $1
  python3 -c 'import json,re,sys
for d in json.load(open(sys.argv[1])):
    if d.get("kind") == "opencl" and re.search(sys.argv[2], d.get("device", "") + " " + d.get("platform", ""), re.I):
        print(d["name"]); break' "$OUT/devices.json" "$1"
}
GPU=$(pick 'H200|NVIDIA')
POCL=$(pick 'Portable Computing Language')
log "GPU=${GPU:-none} PoCL=${POCL:-none}"

log "PyTorch"
python3 "$ROOT/tests/bench/gpu/torch_kernels.py" >"$WORK/torch.json" 2>"$WORK/torch.log" || log "no PyTorch figures"

PROGS=("tests/bench/gpu/chain16m.ks" "tests/bench/gpu/sum16m.ks" "samples/softmax.ks" "samples/layer_norm.ks"
       "tests/bench/gpu/matmul1024.ks")
bench_device() {  # $1 device, $2 tag
  for p in "${PROGS[@]}"; do
    local name; name=$(basename "$p" .ks)
    log "bench $name on $1"
    timeout 120 "$CLI" bench "$ROOT/$p" --devices "$1" --tune quick --cache none --repeat 20 --json \
      >"$WORK/bench_$2_$name.json" 2>"$WORK/bench_$2_$name.log" || log "bench $name on $1 failed"
    timeout 120 "$CLI" run "$ROOT/$p" --devices "$1" --tune quick --cache none --json >"$WORK/run_$2_$name.json" \
      2>"$WORK/run_$2_$name.log" || log "run $name on $1 failed"
  done
}
[ -n "$GPU" ] && bench_device "$GPU" gpu
log "raw kernels (sum vs a read of its bytes)"
[ -n "$GPU" ] && timeout 120 "$RAW" "$GPU" --quick --only=sum >"$WORK/raw_gpu_sum.txt" 2>&1; cat "$WORK/raw_gpu_sum.txt"

if [ "$CHECK" = 1 ]; then
  for dev in "$GPU" "$POCL"; do
    [ -z "$dev" ] && continue
    tag=$([ "$dev" = "$GPU" ] && echo gpu || echo pocl)
    log "lowering cases x schedules on $dev"
    timeout 200 "$RAW" "$dev" --check >"$WORK/check_$tag.txt" 2>&1; echo "rc=$?" >>"$WORK/check_$tag.txt"
    tail -4 "$WORK/check_$tag.txt"
    log "selftest on $dev"
    timeout 150 "$CLI" selftest --devices "$dev" --programs 150 --seed 7 >"$WORK/selftest_$tag.txt" 2>&1
    echo "rc=$?" >>"$WORK/selftest_$tag.txt"
    tail -2 "$WORK/selftest_$tag.txt"
  done
fi

python3 - "$WORK" "$OUT" <<'PY'
import json, os, re, sys
out, dest = sys.argv[1], sys.argv[2]
def load(p):
    try:
        return json.load(open(os.path.join(out, p)))
    except Exception:
        return None
torch = load("torch.json") or {}
rows = []
for name, key in (("chain16m", "chain16m"), ("sum16m", "sum16m"), ("softmax", "softmax"), ("layer_norm", "layer_norm"),
                  ("matmul1024", "matmul1024")):
    b = load(f"bench_gpu_{name}.json")
    r = load(f"run_gpu_{name}.json")
    ours = kernels = None
    if b and b.get("plans"):
        plan = b["plans"][0]
        kern = [s for s in plan.get("steps", []) if not str(s.get("step", "")).startswith("copy")]
        ours = sum(s["ms"] for s in kern)
        kernels = len(kern)
    scheds = [p.get("schedule") for p in (r or {}).get("plan", []) if p.get("kind") == "launch"]
    t = torch.get(key)
    rows.append({"workload": name, "torch_ms": t, "ours_ms": ours, "ratio": (ours / t) if ours and t else None,
                 "kernel_steps": kernels, "schedules": scheds, "verified": (b or {}).get("plans", [{}])[0].get("verified")})
def tail(p):
    try:
        return open(os.path.join(out, p)).read().strip().splitlines()[-3:]
    except Exception:
        return None
summary = {"torch_version": torch.get("torch"), "copy16m_torch_ms": torch.get("copy16m"), "rows": rows,
           "raw_sum": tail("raw_gpu_sum.txt"), "check_gpu": tail("check_gpu.txt"), "check_pocl": tail("check_pocl.txt"),
           "selftest_gpu": tail("selftest_gpu.txt"), "selftest_pocl": tail("selftest_pocl.txt")}
json.dump(summary, open(os.path.join(dest, "summary.json"), "w"), indent=1)
print("| workload | PyTorch ms | ours ms | ratio | kernels | schedules |")
for r in rows:
    f = lambda v: "-" if v is None else f"{v:.4f}"
    print(f"| {r['workload']} | {f(r['torch_ms'])} | {f(r['ours_ms'])} | {f(r['ratio'])} | {r['kernel_steps']} | {', '.join(map(str, r['schedules']))} |")
for k in ("raw_sum", "check_gpu", "check_pocl", "selftest_gpu", "selftest_pocl"):
    print(k, summary[k])
PY
