#!/usr/bin/env bash
# Matmul reassociation: (A @ B) @ v with A, B 1024x1024 and v 1024x16 (tests/bench/reassoc/left.ks)
# compiled with the default rewrites and with --rewrite none, and the hand-written A @ (B @ v)
# (right.ks, as written: --rewrite none), in the same run on the same devices. Prints each plan's
# steady-state median wall time, its kernel steps and the two ratios the rewrite stage must reach:
# at least 5x faster than without rewrites, within 1.3x of the hand-written form.
# Usage: tests/bench/reassoc.sh CLI [DEVICES] [TUNE] [--check]   (--check: exit 1 when a ratio is missed)
set -eu
cli=${1:?CLI}
dev=${2:-opencl:0:0,openblas}
tune=${3:-quick}
check=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # NAME FILE REWRITE [--verify]
  "$cli" run "$here/reassoc/$2" --devices "$dev" --tune "$tune" --cache none --rewrite "$3" --repeat 20 --json ${4:-} >"$tmp/$1.json"
}
# Only the rewritten plan is verified: it is checked by magnitude (a reassociated sum rounds
# otherwise); a 1024-term product of products cancels past the plain f32 bound on these inputs
# even as written, which is not what this measures.
run left_none left.ks none
run left_default left.ks default --verify
run right_none right.ks none
python3 - "$tmp" "$check" <<'PY'
import json, sys, os
d, check = sys.argv[1], sys.argv[2]
ms, rows = {}, [("left_none", "(A @ B) @ v, --rewrite none"), ("left_default", "(A @ B) @ v, --rewrite default"),
                ("right_none", "A @ (B @ v), hand-written")]
for key, what in rows:
    r = json.load(open(os.path.join(d, key + ".json")))
    ms[key] = r["timings_ms"]["steady"]["wall"]
    steps = ", ".join(f"{k['name']} {k['device']} {k['ms']:.3f}" for k in r["timings_ms"]["kernels"])
    rw = r.get("rewrite", {})
    forms = ""
    if rw.get("candidates"):
        forms = "; forms compiled: " + ", ".join(f"{c['source']} ({c['plan_kernels']} plan steps)" for c in rw["candidates"])
    print(f"{what}: {ms[key]:.3f} ms steady wall, verified={r.get('verified')} [{steps}]{forms}")
speedup = ms["left_none"] / ms["left_default"]
vs_hand = ms["left_default"] / ms["right_none"]
print(f"rewrite speed-up: {speedup:.1f}x (need >= 5); rewritten / hand-written: {vs_hand:.2f}x (need <= 1.3)")
if check == "--check" and (speedup < 5 or vs_hand > 1.3):
    sys.exit(1)
PY
