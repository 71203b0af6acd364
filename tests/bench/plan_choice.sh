#!/usr/bin/env bash
# The plan the session keeps against the best plan `bench --compare` finds, per sample, in one
# run: `run --repeat N` (the plan choice at --tune quick: device subsets, OpenBLAS thread twins,
# local search; its steady-state median wall) beside `bench --compare --repeat N` (every device
# selection compiled and run on its own; the fastest total). Prints each, the ratio (target:
# at most 1.1) and what the choice measured; the load average before and after, since the
# machine may be shared.
# Usage: tests/bench/plan_choice.sh CLI [REPEAT=20] [SAMPLES...]   (from the repository root)
set -eu
cli=${1:?CLI}
repeat=${2:-20}
shift $(( $# >= 2 ? 2 : $# ))
samples=${*:-"mlp softmax layer_norm attention transformer lenet matmul_chain"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $samples; do
  f=samples/$s.ks
  [ -f "$f" ] || { echo "$s: no $f"; continue; }
  "$cli" run "$f" --tune quick --cache "$tmp/tune.sqlite" --repeat "$repeat" --json >"$tmp/$s.run.json" 2>/dev/null || { echo "$s: run failed"; continue; }
  "$cli" bench "$f" --compare --repeat "$repeat" --json >"$tmp/$s.bench.json" 2>/dev/null || { echo "$s: bench failed"; continue; }
  python3 - "$tmp/$s.run.json" "$tmp/$s.bench.json" "$s" <<'PY'
import json, sys
run, bench, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
kept = run["timings_ms"]["steady"]["wall"]
sel = [x for x in bench["selections"] if x.get("total_ms") is not None and not x.get("error")]
best = min(sel, key=lambda x: x["total_ms"])
pc = run["plan_choice"]
chosen = [c for c in pc["candidates"] if c["chosen"]]
desc = (chosen[0]["devices"] + (", " + chosen[0]["variant"] if chosen[0]["variant"] else "")) if chosen else "the extraction's plan"
print(f"{name}: kept {kept:.3f} ms ({desc}; {len(pc['candidates'])} candidates), "
      f"bench --compare best {best['total_ms']:.3f} ms ({best['selection']}) -> {kept / best['total_ms']:.2f}x")
PY
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
