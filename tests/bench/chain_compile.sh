#!/usr/bin/env bash
# Compile time and session size of a fused chain y = x + x + ... at each length, on a 1 MiB
# stack (the limit a recursive walk would hit), beside `print` of the same program (parse and
# print: the baseline that is linear by construction) timed in the same run. Prints per length:
# print and run wall seconds, the compile time with its per-term cost and the kernelizer's share,
# and the saved session's size per term. Proportionate compiling keeps the per-term columns flat.
# Usage: tests/bench/chain_compile.sh CLI [DEVICES] [LENGTHS...]
set -eu
cli=${1:?CLI}
dev=${2:-all}
shift $(($# < 2 ? $# : 2))
lengths=("$@")
[ ${#lengths[@]} -gt 0 ] || lengths=(1000 4000 16000 100000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ulimit -s 1024
wall() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
printf '%8s %8s %8s %11s %8s %11s %10s %8s\n' terms print_s run_s compile_ms us/term kernelize_ms session_MB B/term
for n in "${lengths[@]}"; do
  python3 -c "import sys; open(sys.argv[1], 'w').write('input x: f32[4]\ny = x' + ' + x' * (int(sys.argv[2]) - 1) + '\noutput y\n')" "$tmp/c.ks" "$n"
  p=$(wall "$cli" print "$tmp/c.ks")
  r=$(wall "$cli" run "$tmp/c.ks" --devices "$dev" --tune none --cache none --session "$tmp/c.kss.json")
  python3 - "$tmp/c.kss.json" "$n" "$p" "$r" <<'EOF'
import json, os, sys
path, n, p, r = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
d = json.load(open(path))
t = d["trace"]
kz = {s["s"]: s["ms"] for s in t["stage_times"]}.get(2, 0)
size = os.path.getsize(path)
print("%8d %8s %8s %11.0f %8.1f %11.0f %10.1f %8.0f" % (n, p, r, t["compile_ms"], 1000 * t["compile_ms"] / n, kz, size / 1e6, size / n))
EOF
done
