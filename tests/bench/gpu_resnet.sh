#!/usr/bin/env bash
# ResNet-18 on the H200 against PyTorch eager in one call. The GPU machine has no libonnx, so the
# model travels as .ks text with its weights as .npy files, printed here by
#   kernelscope-cli print resnet18/model.onnx --ks --weights build/rk/weights --out build/rk/resnet18.ks
# (carry build/rk). When the weights are too large to carry (a device call takes 64 MiB with the
# tree), carry resnet18.ks with a manifest of their names and shapes (build/rk/weights.manifest)
# instead: random weights are written from it here (tests/bench/gpu/random_weights.py); timings do
# not depend on the values. Builds the CLI without Qt, picks the first NVIDIA OpenCL device by
# name, runs the model at each tuning level (cold compile time, cold run, steady wall over REPEAT runs with kernels and
# copies apart), then PyTorch eager (tests/bench/gpu/torch_resnet.py) and prints wall-to-wall ratios.
# Usage: tests/bench/gpu_resnet.sh OUTDIR [REPEAT=20] [KS=build/rk/resnet18.ks]   env: TUNES="none quick"
set -eu
out=${1:?OUTDIR}
repeat=${2:-20}
ks=${3:-build/rk/resnet18.ks}
tunes=${TUNES:-"none quick"}
mkdir -p "$out"
wdir="$(dirname "$ks")/weights"
if [ ! -d "$wdir" ] && [ -f "$(dirname "$ks")/weights.manifest" ]; then
  python3 tests/bench/gpu/random_weights.py "$(dirname "$ks")/weights.manifest" "$wdir"
fi
timeout 150 python3 tests/bench/gpu/torch_resnet.py >"$out/torch.jsonl" 2>"$out/torch.err" || echo "PyTorch baseline failed" >&2
. tests/bench/gpu/build_cli.sh  # sets cli and dev
for t in $tunes; do
  timeout "${STEP_S:-200}" "$cli" run "$ks" --devices "$dev" --tune "$t" --cache "$out/tune.sqlite" --repeat "$repeat" \
    --json --session "$out/resnet18.$t.kss.json" >"$out/resnet18.$t.json" || echo "tune $t: run failed or timed out" >&2
  # The session is large (the e-graph, every trace): keep what the autotuner did per kernel.
  [ -f "$out/resnet18.$t.kss.json" ] && python3 tests/bench/gpu/tune_summary.py "$out/resnet18.$t.kss.json" \
    >"$out/tune_summary.$t.txt" && rm -f "$out/resnet18.$t.kss.json"
done
python3 - "$out" "$tunes" <<'PY'
import json, os, sys
d, tunes = sys.argv[1], sys.argv[2].split()
torch = [json.loads(l) for l in open(os.path.join(d, "torch.jsonl"))] if os.path.getsize(os.path.join(d, "torch.jsonl")) else []
for r in torch:
    print(f"PyTorch {r['mode']} ({r['model']}): wall {r['wall_ms']:.3f} ms, CUDA events {r['event_ms']:.3f} ms")
eager = next((r for r in torch if r["mode"] == "eager"), None)
for t in tunes:
    try:
        r = json.load(open(os.path.join(d, f"resnet18.{t}.json")))
    except (OSError, ValueError):
        print(f"--tune {t}: no result")
        continue
    tm = r["timings_ms"]
    st = tm["steady"]
    ratio = f" = {st['wall'] / eager['wall_ms']:.2f}x PyTorch eager wall" if eager else ""
    print(f"--tune {t}: compile {tm['compile'] / 1000:.1f} s, cold {tm['cold']['wall']:.2f} ms, steady wall {st['wall']:.3f} ms "
          f"(kernels {st['device_kernels']:.3f}, copies {st['device_copies']:.3f}){ratio}")
    steps = sorted((k for k in tm["kernels"] if k["kind"] != "zero-copy"), key=lambda k: -k["ms"])
    print("    slowest: " + "; ".join(f"{k['name']} {k['ms']:.3f}" for k in steps[:5]))
PY
