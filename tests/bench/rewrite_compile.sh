#!/usr/bin/env bash
# Compile-time cost of the rewrite stage on the transformer sample at --tune quick: one process per
# mode (bench_rewrite_compile: cold, then warm in the same process), --rewrite none first, then
# default, then none again (the load of a shared machine drifts; both none runs are printed), and
# the ratios default/none cold and warm against the mean of the two none runs.
# Usage: tests/bench/rewrite_compile.sh BUILD_DIR [DEVICES] [FILE]
set -eu
bin=${1:?BUILD_DIR}/tests/bench/bench_rewrite_compile
dev=${2:-opencl:0:0,openblas}
file=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in none default none2; do
  "$bin" --rewrite "${m%2}" --devices "$dev" $file | tee "$tmp/$m.txt"
done
python3 - "$tmp" <<'PY'
import re, sys, os
d = sys.argv[1]
def ms(name, kind):
    for line in open(os.path.join(d, name + ".txt")):
        if line.startswith(kind):
            return float(re.search(r": ([0-9.]+) ms", line).group(1))
for kind in ["cold", "warm"]:
    none = (ms("none", kind) + ms("none2", kind)) / 2
    print(f"{kind}: default {ms('default', kind):.0f} ms / none {none:.0f} ms = {ms('default', kind) / none:.2f}x")
PY
