#!/usr/bin/env bash
# LeNet b16 on the CPU against onnxruntime, in one run: onnxruntime-node times the ONNX LeNet
# (samples/onnx/cnn.onnx, PyTorch's export) on its test data at 1 and 2 threads, then our CLI runs
# the same model and samples/lenet.ks (same layers) steady state on PoCL + OpenBLAS, PoCL alone and
# the host executor, each compiling plan at 1 and 2 threads (OPENBLAS_NUM_THREADS and
# POCL_MAX_PTHREAD_COUNT), then onnxruntime again. Prints per plan the median wall, kernel and copy
# time apart, the ratio of wall to onnxruntime's best median (either thread count, either pass)
# and the slowest steps; the load average before and after, since the machine is shared.
# Needs: onnxruntime-node (mkdir -p /tmp/ortbench && cd /tmp/ortbench && npm init -y &&
#        ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node@1.23.2).
# Usage: tests/bench/lenet_ort.sh CLI [REPEAT=200]   env: TUNE=none|quick|full (default none),
#        PLANS="opencl:0:0,openblas opencl:0:0 host" (default), OUT=DIR to keep the JSON.
set -eu
cli=${1:?CLI}
repeat=${2:-200}
tune=${TUNE:-none}
plans=${PLANS:-"opencl:0:0,openblas opencl:0:0 host"}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export NODE_PATH=${NODE_PATH:-/tmp/ortbench/node_modules}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
[ -n "${OUT:-}" ] || trap 'rm -rf "$out"' EXIT
model=$root/samples/onnx/cnn.onnx
data=$root/tests/data/onnx/cnn/test_data_set_0
uptime >"$out/load.txt"
node "$here/ort_model.js" "$model" "$data" 1 2 >"$out/ort.jsonl"
for prog in lenet.ks cnn.onnx; do
  src=$root/samples/$prog
  in=()
  [ "$prog" = cnn.onnx ] && src=$model && in=(--input "x=$data/input_0.pb")
  for dev in $plans; do
    for t in 1 2; do
      [ "$dev" = host ] && [ "$t" = 2 ] && continue  # the reference executor is single-threaded
      OPENBLAS_NUM_THREADS=$t POCL_MAX_PTHREAD_COUNT=$t "$cli" run "$src" "${in[@]}" --devices "$dev" --tune "$tune" \
        --cache "$out/tune.sqlite" --repeat "$repeat" --verify --json >"$out/$prog.$dev.t$t.json" ||
        echo "$prog on $dev at $t threads: run failed" >&2
    done
  done
done
node "$here/ort_model.js" "$model" "$data" 1 2 >>"$out/ort.jsonl"
uptime >>"$out/load.txt"
python3 - "$out" "$plans" <<'PY'
import json, os, sys
d, plans = sys.argv[1], sys.argv[2].split()
print("load:", " | ".join(l.split("load average:")[1].strip() for l in open(os.path.join(d, "load.txt"))))
ort = [json.loads(l) for l in open(os.path.join(d, "ort.jsonl"))]
for r in ort:
    print(f"onnxruntime t={r['threads']}: median {r['median_ms']:.3f} ms, min {r['min_ms']:.3f} ms over {r['runs']} runs")
best = min(r["median_ms"] for r in ort)
print(f"onnxruntime best median: {best:.3f} ms")
for prog in ["lenet.ks", "cnn.onnx"]:
    for dev in plans:
        for t in (1, 2):
            f = os.path.join(d, f"{prog}.{dev}.t{t}.json")
            if not os.path.exists(f):
                continue
            try:
                r = json.load(open(f))
            except ValueError:
                print(f"{prog} {dev} t={t}: no result")
                continue
            st = r["timings_ms"]["steady"]
            line = (f"{prog:9s} {dev:19s} t={t}: wall {st['wall']:.3f} ms (kernels {st['device_kernels']:.3f}, "
                    f"copies {st['device_copies']:.3f}) = {st['wall'] / best:.2f}x onnxruntime; verified {r.get('verified')}")
            print(line)
            steps = sorted((k for k in r["timings_ms"]["kernels"] if k["kind"] != "zero-copy"), key=lambda k: -k["ms"])
            print("    slowest: " + "; ".join(f"{k['name'].replace(' on ' + k['device'], '')} {k['ms']:.3f}" for k in steps[:4]))
PY
