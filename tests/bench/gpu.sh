#!/usr/bin/env bash
# The GPU machine's benchmark and check, in one call (the machine starts bare): builds the CLI and
# the raw-kernel bench without Qt, then on the H200 and on PoCL (picked by device name, not index)
# times the kernel table -- 8-op chain and sum over 16M f32, softmax and layer_norm [4096, 1024],
# matmul 1024^3 -- against PyTorch eager (CUDA events, TF32 off) measured in the same call, times
# every matmul schedule at 1024^3 and 4096^3 (the fastest checked against cblas_sgemm), checks
# every lowering case under every schedule against the interpreter, and runs the random-program
# selftest. $OUT gets summary.json (the table, matmul, check and selftest results), log.txt
# (every step's output) and devices.json; the raw outputs stay in $WORK.
# usage: OUT=dir bash tests/bench/gpu.sh [--no-check]      (from the repository root)
# KS_BIN=dir: use the kernelscope-cli and bench_raw_kernels in dir (shared libraries they need
# beside them in dir/lib) instead of building, when they run there. BUDGET_S=seconds: every step
# after the PyTorch figures gets at most what is left of it (a step with under 20 s left is
# skipped), so summary.json is written inside a lease; SELFTEST_PROGRAMS=n (default 150).
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
START=$SECONDS
# `limit N`: N seconds, or what is left of BUDGET_S if less; fails (the step is skipped) under 20 s.
limit() {
  local n=$1
  if [ -n "${BUDGET_S:-}" ]; then
    local left=$((BUDGET_S - (SECONDS - START) - 10))
    [ "$left" -lt "$n" ] && n=$left
  fi
  [ "$n" -ge 20 ] && echo "$n" || { log "skipped: the time budget is spent" >&2; return 1; }
}

CLI= RAW=
if [ -n "${KS_BIN:-}" ]; then
  export LD_LIBRARY_PATH="$KS_BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if "$KS_BIN/kernelscope-cli" devices --json >/dev/null 2>"$WORK/bin.log" &&
     ! ldd "$KS_BIN/bench_raw_kernels" 2>&1 | grep -q 'not found'; then
    CLI="$KS_BIN/kernelscope-cli" RAW="$KS_BIN/bench_raw_kernels"
    log "using the binaries in $KS_BIN"
  else
    log "the binaries in $KS_BIN do not run here: building"; cat "$WORK/bin.log"
  fi
fi
if [ -z "$CLI" ]; then
  GEN=()
  command -v ninja >/dev/null && GEN=(-G Ninja)
  log "configure + build (kernelscope-cli, bench_raw_kernels)"
  cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DKS_BUILD_GUI=OFF -DKS_WITH_GRAPHVIZ=OFF \
    -DKS_WITH_ONNX=OFF -DKS_WITH_SQLITE=OFF >"$WORK/cmake.log" 2>&1 || { tail -30 "$WORK/cmake.log"; exit 1; }
  cmake --build "$BUILD" -j "$(nproc)" --target kernelscope-cli bench_raw_kernels >"$WORK/build.log" 2>&1 ||
    { tail -40 "$WORK/build.log"; exit 1; }
  CLI=$(find "$BUILD" -name kernelscope-cli -type f -perm -u+x | head -1)
  RAW=$(find "$BUILD" -name bench_raw_kernels -type f -perm -u+x | head -1)
fi

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
    local t; t=$(limit 120) || return 0
    timeout "$t" "$CLI" bench "$ROOT/$p" --devices "$1" --tune quick --cache none --repeat 20 --json \
      >"$WORK/bench_$2_$name.json" 2>"$WORK/bench_$2_$name.log" || log "bench $name on $1 failed"
    t=$(limit 120) || return 0
    timeout "$t" "$CLI" run "$ROOT/$p" --devices "$1" --tune quick --cache none --json >"$WORK/run_$2_$name.json" \
      2>"$WORK/run_$2_$name.log" || log "run $name on $1 failed"
  done
}
[ -n "$GPU" ] && bench_device "$GPU" gpu
log "raw kernels (sum vs a read of its bytes; every matmul schedule at 1024^3 and 4096^3)"
for n in 1024 4096; do
  [ -n "$GPU" ] && t=$(limit 150) && { timeout "$t" "$RAW" "$GPU" --only=mm --mm=$n -v >"$WORK/raw_gpu_mm$n.txt" 2>&1
    echo "rc=$?" >>"$WORK/raw_gpu_mm$n.txt"; cat "$WORK/raw_gpu_mm$n.txt"; }
done
[ -n "$GPU" ] && t=$(limit 120) && timeout "$t" "$RAW" "$GPU" --quick --only=sum >"$WORK/raw_gpu_sum.txt" 2>&1
cat "$WORK/raw_gpu_sum.txt" 2>/dev/null

if [ "$CHECK" = 1 ]; then  # the checks first: a short budget drops selftests before them
  for dev in "$GPU" "$POCL"; do
    [ -z "$dev" ] && continue
    tag=$([ "$dev" = "$GPU" ] && echo gpu || echo pocl)
    log "lowering cases x schedules on $dev"
    t=$(limit 200) || continue
    timeout "$t" "$RAW" "$dev" --check >"$WORK/check_$tag.txt" 2>&1; echo "rc=$?" >>"$WORK/check_$tag.txt"
    tail -4 "$WORK/check_$tag.txt"
  done
  for dev in "$GPU" "$POCL"; do
    [ -z "$dev" ] && continue
    tag=$([ "$dev" = "$GPU" ] && echo gpu || echo pocl)
    log "selftest on $dev"
    t=$(limit 150) || continue
    timeout "$t" "$CLI" selftest --devices "$dev" --programs "${SELFTEST_PROGRAMS:-150}" --seed 7 >"$WORK/selftest_$tag.txt" 2>&1
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
mm = {}
for n in (1024, 4096):
    try:
        text = open(os.path.join(out, f"raw_gpu_mm{n}.txt")).read()
    except Exception:
        continue
    m = re.search(r"best ([0-9.]+) ms \[([^]]*)\].*max rel error ([0-9.e+-]+) (ok|MISMATCH)", text)
    t = torch.get(f"matmul{n}")
    if m:
        ms = float(m.group(1))
        mm[str(n)] = {"ours_ms": ms, "schedule": m.group(2), "tflops": 2 * n ** 3 / ms * 1e-9, "torch_ms": t,
                      "torch_tflops": 2 * n ** 3 / t * 1e-9 if t else None, "ratio": ms / t if t else None,
                      "max_rel_error": float(m.group(3)), "check": m.group(4)}
        c = re.search(r"(\d+) schedules vs cblas_sgemm: (\d+) mismatches", text)
        if c:
            mm[str(n)]["schedules_checked"], mm[str(n)]["mismatches"] = int(c.group(1)), int(c.group(2))
summary = {"torch_version": torch.get("torch"), "copy16m_torch_ms": torch.get("copy16m"), "rows": rows,
           "matmul_all_schedules": mm, "raw_sum": tail("raw_gpu_sum.txt"), "check_gpu": tail("check_gpu.txt"), "check_pocl": tail("check_pocl.txt"),
           "selftest_gpu": tail("selftest_gpu.txt"), "selftest_pocl": tail("selftest_pocl.txt")}
json.dump(summary, open(os.path.join(dest, "summary.json"), "w"), indent=1)
print("| workload | PyTorch ms | ours ms | ratio | kernels | schedules |")
for r in rows:
    f = lambda v: "-" if v is None else f"{v:.4f}"
    print(f"| {r['workload']} | {f(r['torch_ms'])} | {f(r['ours_ms'])} | {f(r['ratio'])} | {r['kernel_steps']} | {', '.join(map(str, r['schedules']))} |")
for n, r in mm.items():
    print(f"matmul {n}^3 (every schedule): ours {r['ours_ms']:.4f} ms = {r['tflops']:.1f} TFLOP/s [{r['schedule']}], "
          f"PyTorch {r['torch_ms']} ms, ratio {r['ratio']}, vs cblas {r['check']}")
for k in ("raw_sum", "check_gpu", "check_pocl", "selftest_gpu", "selftest_pocl"):
    print(k, summary[k])
PY
