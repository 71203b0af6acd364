#!/usr/bin/env bash
# A real model (an ONNX test folder: model.onnx + test_data_set_0, as tests/data/gen_models.py
# writes torchvision's ResNet-18 and MobileNetV2) on the CPU against onnxruntime, in one run:
# onnxruntime-node at 1 and 2 threads, then our CLI compiling and running the model steady state
# at each tuning level on one plan (PoCL + OpenBLAS by default, 2 threads each), then onnxruntime
# again. Per level: compile time, cold run, steady wall (kernels and copies apart), ratio to
# onnxruntime's best median, peak resident memory of the whole process (GNU time), the slowest
# steps; the load average before and after, since the machine is shared.
# Needs: onnxruntime-node (see lenet_ort.sh), GNU time (/usr/bin/time).
# Usage: tests/bench/model_ort.sh CLI MODEL_DIR [REPEAT=20]
#        env: TUNES="none quick" (levels), DEVICES=opencl:0:0,openblas, THREADS=2, OUT=DIR to keep the JSON.
set -eu
cli=${1:?CLI}
dir=${2:?MODEL_DIR}
repeat=${3:-20}
tunes=${TUNES:-"none quick"}
devices=${DEVICES:-opencl:0:0,openblas}
threads=${THREADS:-2}
input=${INPUT:-input}
here=$(cd "$(dirname "$0")" && pwd)
export NODE_PATH=${NODE_PATH:-/tmp/ortbench/node_modules}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
[ -n "${OUT:-}" ] || trap 'rm -rf "$out"' EXIT
model=$dir/model.onnx
data=$dir/test_data_set_0
uptime >"$out/load.txt"
node "$here/ort_model.js" "$model" "$data" 1 2 >"$out/ort.jsonl"
for tune in $tunes; do
  # A fresh cache per level: the compile time is a cold one.
  rm -f "$out/tune.$tune.sqlite"
  OPENBLAS_NUM_THREADS=$threads POCL_MAX_PTHREAD_COUNT=$threads /usr/bin/time -f '{"rss_kb": %M, "elapsed_s": %e}' \
    -o "$out/time.$tune.json" "$cli" run "$model" --input "$input=$data/input_0.pb" --devices "$devices" --tune "$tune" \
    --cache "$out/tune.$tune.sqlite" --repeat "$repeat" --json >"$out/run.$tune.json" ||
    echo "tune $tune: run failed" >&2
  # Warm: the same compile again from the filled cache.
  OPENBLAS_NUM_THREADS=$threads POCL_MAX_PTHREAD_COUNT=$threads /usr/bin/time -f '{"rss_kb": %M, "elapsed_s": %e}' \
    -o "$out/time.$tune.warm.json" "$cli" run "$model" --input "$input=$data/input_0.pb" --devices "$devices" --tune "$tune" \
    --cache "$out/tune.$tune.sqlite" --repeat 1 --json >"$out/run.$tune.warm.json" ||
    echo "tune $tune: warm run failed" >&2
done
node "$here/ort_model.js" "$model" "$data" 1 2 >>"$out/ort.jsonl"
uptime >>"$out/load.txt"
python3 - "$out" "$tunes" "$model" "$devices" "$threads" <<'PY'
import json, os, sys
d, tunes, model, devices, threads = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4], sys.argv[5]
print(f"{model}: {devices} at {threads} threads")
print("load:", " | ".join(l.split("load average:")[1].strip() for l in open(os.path.join(d, "load.txt"))))
ort = [json.loads(l) for l in open(os.path.join(d, "ort.jsonl"))]
for r in ort:
    print(f"onnxruntime t={r['threads']}: median {r['median_ms']:.3f} ms, min {r['min_ms']:.3f} ms over {r['runs']} runs")
best = min(r["median_ms"] for r in ort)
print(f"onnxruntime best median: {best:.3f} ms")
for tune in tunes:
    try:
        r = json.load(open(os.path.join(d, f"run.{tune}.json")))
        t = json.load(open(os.path.join(d, f"time.{tune}.json")))
    except (OSError, ValueError):
        print(f"--tune {tune}: no result")
        continue
    tm = r["timings_ms"]
    st = tm["steady"]
    print(f"--tune {tune:5s}: compile {tm['compile'] / 1000:.1f} s, process {t['elapsed_s']:.1f} s, peak RSS "
          f"{t['rss_kb'] / 1024 / 1024:.2f} GB; cold {tm.get('cold', {}).get('wall', float('nan')):.2f} ms; steady wall "
          f"{st['wall']:.2f} ms (kernels {st['device_kernels']:.2f}, copies {st['device_copies']:.2f}) = "
          f"{st['wall'] / best:.1f}x onnxruntime")
    try:
        w = json.load(open(os.path.join(d, f"run.{tune}.warm.json")))
        wt = json.load(open(os.path.join(d, f"time.{tune}.warm.json")))
        print(f"    warm compile {w['timings_ms']['compile'] / 1000:.2f} s (process {wt['elapsed_s']:.1f} s, "
              f"peak RSS {wt['rss_kb'] / 1024 / 1024:.2f} GB)")
    except (OSError, ValueError, KeyError):
        print("    warm: no result")
    steps = sorted((k for k in tm["kernels"] if k["kind"] != "zero-copy"), key=lambda k: -k["ms"])
    print("    slowest: " + "; ".join(f"{k['name'].replace(' on ' + k['device'], '')} {k['ms']:.3f}" for k in steps[:5]))
PY
