#!/usr/bin/env bash
# The CLI contract of DESIGN.md §4.2: exit codes (0 ok, 1 input/engine error, 2 usage), clear
# errors naming the file, and the keys of `run --json`.
set -u
cli=$1
src=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect() {  # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: $what: exit $got, expected $want"; sed 's/^/  /' "$tmp/err" | head -5; fail=1
  else
    echo "ok: $what (exit $got)"
  fi
}
expect 2 "no command" -- "$cli"
expect 2 "unknown command" -- "$cli" frobnicate
expect 2 "unknown flag" -- "$cli" run "$src/samples/softmax.ks" --frob
expect 2 "bad --tune" -- "$cli" run "$src/samples/softmax.ks" --tune fast
expect 1 "missing file" -- "$cli" run "$tmp/nope.ks"
grep -q "nope.ks" "$tmp/err" || { echo "FAIL: the error does not name the file"; fail=1; }
printf 'input x: f32[4]\ny = relu(x\noutput y\n' > "$tmp/bad.ks"
expect 1 "syntax error" -- "$cli" run "$tmp/bad.ks" --devices host
grep -qE "bad.ks:[23]:[0-9]+" "$tmp/err" || { echo "FAIL: the syntax error does not give file:line"; cat "$tmp/err"; fail=1; }
expect 2 "unknown device" -- "$cli" run "$src/samples/softmax.ks" --devices nosuch:9:9
# Every flag's value is checked before any work.
sm="$src/samples/softmax.ks"
expect 2 "unknown flag in last position" -- "$cli" run "$sm" --devices host --frob
grep -q "unknown flag --frob" "$tmp/err" || { echo "FAIL: a trailing unknown flag is not called unknown"; fail=1; }
expect 2 "flag without its value" -- "$cli" run "$sm" --devices
grep -q -- "--devices needs a value" "$tmp/err" || { echo "FAIL: a missing value is not named"; fail=1; }
expect 2 "--devices ," -- "$cli" run "$sm" --devices ,
grep -q "empty device name" "$tmp/err" || { echo "FAIL: --devices , does not say a name is empty"; fail=1; }
expect 2 "--devices ''" -- "$cli" run "$sm" --devices ""
expect 2 "--devices host," -- "$cli" run "$sm" --devices host,
expect 2 "--budget-seconds nan" -- "$cli" run "$sm" --devices host --budget-seconds nan
expect 2 "--budget-seconds -1" -- "$cli" run "$sm" --devices host --budget-seconds -1
expect 2 "--budget-count -3" -- "$cli" run "$sm" --devices host --budget-count -3
expect 2 "--budget-model -1" -- "$cli" run "$sm" --devices host --budget-model -1
expect 2 "--budget-model inf" -- "$cli" run "$sm" --devices host --budget-model inf
expect 2 "--seed abc" -- "$cli" run "$sm" --devices host --seed abc
expect 2 "--seed -1" -- "$cli" run "$sm" --devices host --seed -1
expect 2 "--input without =" -- "$cli" run "$sm" --devices host --input x
expect 2 "--rewrite other" -- "$cli" run "$sm" --devices host --rewrite fast
expect 2 "--rewrite-off unknown rule" -- "$cli" run "$sm" --devices host --rewrite-off no-such-rule
grep -q "no-such-rule" "$tmp/err" || { echo "FAIL: an unknown rule is not named"; fail=1; }
expect 2 "--rewrite-off with an empty name" -- "$cli" run "$sm" --devices host --rewrite-off algebra,
expect 2 "bench --repeat 0" -- "$cli" bench "$sm" --repeat 0
expect 2 "--rewrite-candidates 0" -- "$cli" run "$sm" --devices host --rewrite-candidates 0
expect 2 "explain-plan without a class" -- "$cli" explain-plan "$sm"
expect 2 "explain-plan with a class not of the program" -- "$cli" explain-plan "$sm" %99999
expect 2 "explain-plan with a class that is not %N" -- "$cli" explain-plan "$sm" x1
expect 2 "--verify-budget -1" -- "$cli" run "$sm" --devices host --verify-budget -1
expect 2 "--verify-samples 0" -- "$cli" run "$sm" --devices host --verify-samples 0
expect 2 "run --steps 0" -- "$cli" run "$sm" --devices host --steps 0
expect 2 "selftest --programs -1" -- "$cli" selftest --programs -1
expect 2 "selftest --grad-percent 101" -- "$cli" selftest --grad-percent 101
expect 2 "selftest --devices ,," -- "$cli" selftest --devices ,,
expect 2 "selftest --rewrite bogus" -- "$cli" selftest --rewrite bogus
expect 0 "selftest --rewrite default" -- "$cli" selftest --devices interpreter --programs 20 --seed 7 --rewrite default
grep -q "^rewrites (default): [0-9]* programs kernelized as another term" "$tmp/out" || { echo "FAIL selftest: no rewrites line"; fail=1; }
expect 0 "selftest --rewrite none" -- "$cli" selftest --devices interpreter --programs 3 --rewrite none
grep -q "^rewrites (none): 0 programs" "$tmp/out" || { echo "FAIL selftest --rewrite none: rewrote"; fail=1; }
expect 2 "check --timeout nan" -- "$cli" check --timeout nan "$tmp"
expect 2 "check --min-pass -1" -- "$cli" check --min-pass -1 "$tmp"
expect 2 "check --tune fast" -- "$cli" check --tune fast "$tmp"
expect 2 "check --rewrite bogus" -- "$cli" check --rewrite bogus "$tmp"
expect 2 "check --atol -1" -- "$cli" check --atol -1 "$tmp"
expect 2 "check --rtol nan" -- "$cli" check --rtol nan "$tmp"
expect 0 "check --atol --rtol" -- "$cli" check --atol 1e-6 --rtol 1e-4 --min-pass 1 "$src/tests/data/onnx/mlp"
expect 0 "check --tune quick" -- "$cli" check --devices opencl:0:0 --tune quick --min-pass 1 "$src/tests/data/onnx/mlp"
expect 1 "check --rtol 0 --atol 0" -- "$cli" check --atol 0 --rtol 0 --devices opencl:0:0 --min-pass 1 "$src/tests/data/onnx/mlp"
expect 2 "export --view other" -- "$cli" export "$sm" --view other --format dot --out "$tmp/x"
expect 2 "export without --out" -- "$cli" export "$sm" --view fusion --format dot
expect 2 "export --step on the plan view" -- "$cli" export "$sm" --view plan --format dot --step 1 --devices host --out "$tmp/x"
expect 0 "run --help" -- "$cli" run --help
grep -q -- "--budget-seconds" "$tmp/out" || { echo "FAIL: run --help does not list the flags"; fail=1; }
expect 0 "devices" -- "$cli" devices
expect 0 "devices --json" -- "$cli" devices --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
need = {"name", "kind", "platform", "vendor", "driver", "compute_units", "memory_bytes", "fingerprint"}
assert isinstance(d, list) and d, "devices --json must be a non-empty array"
for x in d:
    missing = need - set(x)
    assert not missing, f"device entry lacks {missing}"
print("ok: devices --json keys")
PY
printf 'input x: f32[3, 5]\ny = softmax(x * 2.0, axis=-1)\noutput y\n' > "$tmp/p.ks"
expect 0 "run --json --verify on host" -- "$cli" run "$tmp/p.ks" --devices host --json --verify
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["outputs", "fused_kernels", "launches", "plan", "timings_ms", "memory"]:
    assert k in d, f"run --json lacks '{k}'"
o = d["outputs"][0]
for k in ["name", "dtype", "shape", "values", "min", "max", "mean"]:
    assert k in o, f"output lacks '{k}'"
assert o["shape"] == [3, 5] and len(o["values"]) == 15
rows = [sum(o["values"][i*5:(i+1)*5]) for i in range(3)]
assert all(abs(r - 1) < 1e-5 for r in rows), rows  # softmax rows sum to one
assert "total" in d["timings_ms"] and "kernels" in d["timings_ms"]
assert "peak_bytes" in d["memory"]
tm = d["timings_ms"]
for part in ["cold", "steady"]:
    for k in ["wall", "device_kernels", "device_copies"]:
        assert k in tm[part], f"timings_ms.{part} lacks '{k}'"
assert tm["steady"]["runs"] >= 1 and tm["steady"]["warmups"] == 3, tm["steady"]
assert tm["total"] == tm["steady"]["wall"]
assert all("resident" in k for k in tm["kernels"])
v = d["verification"]
assert {k: v[k] for k in ["mode", "checked", "total"]} == {"mode": "full", "checked": 15, "total": 15}, v
assert isinstance(v["ms"], (int, float)) and v["ms"] >= 0, v
pc = d["plan_choice"]
assert pc["candidates"] == [] and "one candidate" in pc["why"] and pc["policy"] == "", pc
print("ok: run --json keys and values")
PY
expect 0 "run --verify sampled" -- "$cli" run "$tmp/p.ks" --devices host --json --verify --verify-budget 0 --verify-samples 4 --repeat 0
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
v = d["verification"]
assert d["verified"] is True and v["mode"] == "sampled" and (v["checked"], v["total"]) == (4, 15), v
print("ok: run --verify past its budget checks a sample")
PY
# A training step: `<-` updates carry over between --steps; step_outputs has one list per step.
printf 'param w: f32[2] = full(4.0)\nloss = sum(w * w)\ng = grad(loss, [w])\nw <- w - 0.25 * g\noutput loss\n' > "$tmp/t.ks"
expect 0 "run --steps 3 --json --verify" -- "$cli" run "$tmp/t.ks" --devices host --steps 3 --json --verify
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
s = d["step_outputs"]
assert len(s) == 3 and all(len(x) == 1 and x[0]["name"] == "loss" for x in s), s
losses = [x[0]["values"][0] for x in s]
assert losses == [32.0, 8.0, 2.0], losses  # w = 4, 2, 1: each step halves w
assert d["outputs"][0]["values"][0] == 2.0 and d["verified"] is True
print("ok: run --steps carries params, step_outputs per step")
PY
expect 0 "run --repeat 0 --json on host" -- "$cli" run "$tmp/p.ks" --devices host --json --repeat 0
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
tm = json.load(open(sys.argv[1]))["timings_ms"]
assert tm["steady"]["runs"] == 0 and tm["total"] == tm["cold"]["wall"], tm
print("ok: run --repeat 0 reports the cold run")
PY
expect 2 "run --repeat -1" -- "$cli" run "$sm" --devices host --repeat -1
expect 2 "run --warmup x" -- "$cli" run "$sm" --devices host --warmup x
expect 2 "run --zero-copy maybe" -- "$cli" run "$sm" --devices host --zero-copy maybe
if "$cli" devices | grep -q '^opencl:0:0'; then
  # --budget-model: past the program's budget a kernel keeps its first schedule, said in its search.
  expect 0 "run --budget-model" -- "$cli" run "$src/samples/mlp.ks" --devices opencl:0:0 --tune quick --cache none --budget-model 0.001 --repeat 0 --verify --session "$tmp/bm.kss.json"
  python3 - "$tmp/bm.kss.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
stops = [s["stop_reason"] for s in d["trace"]["searches"]]
spent = [s for s in stops if s.startswith("model budget (0.001 s for the program)")]
assert spent and len(spent) < len(stops), stops  # the slowest kernel is searched before the budget is looked at
skipped = [m for m in d["trace"]["measurements"] if m.get("reason") == "model budget reached"]
assert skipped and all(m["status"] == "skipped" for m in skipped), skipped
print("ok: --budget-model stops %d of %d searches" % (len(spent), len(stops)))
PY
  expect 0 "run on PoCL + openblas with --verify" -- "$cli" run "$src/samples/mlp.ks" --tune none --cache none --verify --json
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verified"] is True, "verify failed"
assert d["fused_kernels"] > 0 and d["launches"] > 0
tm = d["timings_ms"]
# PoCL works in host memory: its boundaries with openblas are zero-copy steps that move nothing.
assert all("zero_copy" in p for p in d["plan"])
# Every step says which program lines it computes; the launches cover mlp.ks's layers.
assert all(isinstance(p["source_lines"], list) for p in d["plan"])
assert any(p["source_lines"] for p in d["plan"] if p["kind"] == "launch"), d["plan"]
zc = [p for p in d["plan"] if p["zero_copy"]]
assert zc and all(p["kind"] == "copy" and p["label"].startswith("zero-copy") for p in zc), d["plan"]
assert not [k for k in tm["kernels"] if k["kind"] == "copy"], tm["kernels"]
assert all(k["ms"] == 0 for k in tm["kernels"] if k["kind"] == "zero-copy")
print("ok: mlp on PoCL verified, %d fused kernels, %d launches, %d zero-copy steps" % (d["fused_kernels"], d["launches"], len(zc)))
PY
  # Candidate plans measured on the devices: the kept one is the fastest measured.
  expect 0 "run --plan-candidates 3 --json" -- "$cli" run "$src/samples/mlp.ks" --tune none --cache none --plan-candidates 3 --repeat 2 --json
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
pc = json.load(open(sys.argv[1]))["plan_choice"]
c = pc["candidates"]
assert 2 <= len(c) <= 3, pc
for x in c:
    for k in ["devices", "blas_threads", "predicted_ms", "measured_ms", "runs", "steps", "chosen"]:
        assert k in x, f"candidate lacks '{k}'"
chosen = [x for x in c if x["chosen"]]
assert len(chosen) == 1 and chosen[0]["measured_ms"] is not None, c
assert all(chosen[0]["measured_ms"] <= x["measured_ms"] for x in c if x["measured_ms"] is not None), c
assert pc["why"].startswith("fastest measured"), pc
assert c[0]["devices"] == "opencl:0:0+openblas", c
print("ok: plan_choice lists %d candidates, kept %s" % (len(c), chosen[0]["devices"]))
PY
  # The slots left after the device subsets go to the local search from the fastest of them.
  expect 0 "run --plan-candidates 6 --json" -- "$cli" run "$src/samples/mlp.ks" --tune none --cache none --plan-candidates 6 --repeat 0 --json
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
pc = json.load(open(sys.argv[1]))["plan_choice"]
c = pc["candidates"]
assert 2 <= len(c) <= 6, pc
for x in c:
    for k in ["variant", "differs"]:
        assert isinstance(x[k], str), f"candidate lacks '{k}'"
local = [x for x in c if x["variant"]]
assert local and all(x["variant"].startswith("without ") for x in local), c
assert any(x["differs"] for x in local if not x["chosen"]) or any(x["chosen"] for x in local), c
assert "local search measured" in pc["why"], pc
chosen = [x for x in c if x["chosen"]]
assert len(chosen) == 1 and all(chosen[0]["measured_ms"] <= x["measured_ms"] for x in c if x["measured_ms"] is not None), c
print("ok: the local search proposed %d neighbour(s): %s" % (len(local), pc["why"]))
PY
  expect 2 "run --plan-candidates 0" -- "$cli" run "$sm" --devices host --plan-candidates 0
  # On PoCL alone: with openblas every parameter would be read on the host, by a GEMM step.
  expect 0 "run --zero-copy off --verify" -- "$cli" run "$src/samples/mlp.ks" --devices opencl:0:0 --tune none --cache none --verify --json --zero-copy off
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verified"] is True, "verify failed"
tm = d["timings_ms"]
assert not any(p["zero_copy"] for p in d["plan"]), d["plan"]
# Parameters stay on PoCL after the cold run: steady-state uploads are marked resident.
assert tm["steady"]["runs"] >= 1 and any(k["resident"] for k in tm["kernels"]), tm["kernels"]
print("ok: --zero-copy off copies, parameters resident")
PY
  "$cli" devices --json >"$tmp/dev.json" && python3 - "$tmp/dev.json" <<'PY' || fail=1
import json, sys
d = {x["name"]: x for x in json.load(open(sys.argv[1]))}
assert d["host"]["host_visible"] and d["openblas"]["host_visible"] and d["opencl:0:0"]["host_visible"], d
print("ok: devices --json says host_visible (PoCL works in host memory)")
PY
  # Rewrites: (A @ B) @ v with a transposed pair and a x*1, the report in run --json, verified
  # against the program as built.
  printf 'input a: f32[24, 16]\ninput b: f32[16, 24]\ninput v: f32[24, 3]\ny = (a @ b) @ (v * 1.0)\noutput y\n' > "$tmp/chain.ks"
  expect 0 "run with rewrites, --verify" -- "$cli" run "$tmp/chain.ks" --tune none --cache none --verify --json --rewrite-off matmul-transpose
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verified"] is True, "verify failed after rewriting"
r = d["rewrite"]
for k in ["mode", "stop", "rounds", "nodes_before", "nodes_after", "classes_before", "classes_after", "merges",
          "term_changes", "cached", "term_ns", "original_ns"]:
    assert k in r, f"rewrite lacks '{k}'"
assert r["mode"] == "default" and r["stop"] in ("saturated", "iteration limit", "node limit", "time limit"), r
assert r["merges"] > 0 and r["term_changes"] > 0 and r["term_ns"] < r["original_ns"], r
# Candidate terms (two at --tune none): the static best and the program as built, both compiled.
c = r["candidates"]
assert [x["source"] for x in c] == ["static best", "as built"], c
for x in c:
    for k in ["source", "static_ns", "differ", "kernels", "gemms", "plan_kernels", "plan_only"]:
        assert k in x, f"candidate lacks '{k}'"
    assert x["kernels"] > 0, x
assert 0 <= r["plan_candidate"] < len(c) and c[r["plan_candidate"]]["plan_kernels"] > 0, r
print("ok: rewrite report: %s after %d rounds, %d merges, term cost %.0f vs %.0f ns, %d candidate terms" %
      (r["stop"], r["rounds"], r["merges"], r["term_ns"], r["original_ns"], len(c)))
PY
  expect 0 "run --rewrite-candidates 1" -- "$cli" run "$tmp/chain.ks" --tune none --cache none --json --rewrite-candidates 1
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['rewrite']; assert r['candidates'] == [] and r['plan_candidate'] == -1, r; print('ok: one candidate term')" "$tmp/out" || fail=1
  # explain-plan: the output class (%N of `print`), its chosen producer, runner-up and the plan cost without it.
  out=$("$cli" print "$tmp/chain.ks" | grep -o '^%[0-9]*' | tail -1)
  expect 0 "explain-plan FILE $out" -- "$cli" explain-plan "$tmp/chain.ks" "$out" --tune none --cache none
  grep -q "^chosen: node [0-9]*, .*: [0-9.]* ms" "$tmp/out" && grep -q "^runner-up: " "$tmp/out" &&
    grep -q "^without the chosen node: " "$tmp/out" || { echo "FAIL: explain-plan lacks its lines"; cat "$tmp/out"; fail=1; }
  expect 1 "explain-plan of a leaf" -- "$cli" explain-plan "$tmp/chain.ks" %0 --tune none --cache none
  expect 0 "explain-plan --json" -- "$cli" explain-plan "$tmp/chain.ks" "$out" --tune none --cache none --json
  python3 - "$tmp/out" "$out" <<'PY' || fail=1
import json, sys
e = json.load(open(sys.argv[1]))
for k in ["class", "label", "dtype", "shape", "decided", "inside", "chosen", "why", "runner_up", "alternatives", "dag_ms", "without"]:
    assert k in e, f"explain-plan --json lacks '{k}'"
for p in [e["chosen"]] + ([e["runner_up"]] if e["runner_up"] else []):
    for k in ["node", "label", "ms", "tree_ms"]:
        assert k in p, f"producer lacks '{k}'"
assert e["chosen"]["ms"] > 0 and e["dag_ms"] > 0, e
w = e["without"]
if w is not None:
    for k in ["dag_ms", "change_ms", "change_pct", "node", "label"]:
        assert k in w, f"without lacks '{k}'"
    assert w["dag_ms"] >= e["dag_ms"] and abs(w["change_ms"] - (w["dag_ms"] - e["dag_ms"])) < 1e-9, w
print("ok: explain-plan --json: node %d %.3f ms, runner-up %s" % (e["chosen"]["node"], e["chosen"]["ms"],
      e["runner_up"]["node"] if e["runner_up"] else None))
PY
  # explain-fusion answers in the kernelizer run the plan's kernels come from, --run N in another,
  # and says which; a run past the last is a usage error listing the runs.
  expect 0 "explain-fusion FILE %3 $out (the plan's run)" -- "$cli" explain-fusion "$tmp/chain.ks" %3 "$out" --tune none --cache none
  grep -q "^run [0-9]* (of [0-9]*): .*, the run the plan's kernels come from$" "$tmp/out" ||
    { echo "FAIL: explain-fusion does not name the plan's run"; cat "$tmp/out"; fail=1; }
  plan_run=$(sed -n 's/^run \([0-9]*\) (of.*/\1/p' "$tmp/out")
  other=$(( ${plan_run:-0} == 0 ? 1 : 0 ))
  expect 0 "explain-fusion --run $other" -- "$cli" explain-fusion "$tmp/chain.ks" %3 "$out" --tune none --cache none --run "$other"
  grep -q "^run $other (of [0-9]*): [a-z -]*, \(before\|after\) AOT matching, [0-9]* kernels$" "$tmp/out" && grep -q "kernel" "$tmp/out" ||
    { echo "FAIL: explain-fusion --run $other does not answer for run $other"; cat "$tmp/out"; fail=1; }
  expect 2 "explain-fusion --run past the last" -- "$cli" explain-fusion "$tmp/chain.ks" %3 "$out" --tune none --cache none --run 99
  grep -q "run 0: static best, before AOT matching" "$tmp/err" || { echo "FAIL: the --run error does not list the runs"; fail=1; }
  expect 0 "run with --rewrite none" -- "$cli" run "$tmp/chain.ks" --tune none --cache none --json --rewrite none
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'rewrite' not in d; print('ok: no rewrite report with --rewrite none')" "$tmp/out" || fail=1
  expect 0 "bench --json" -- "$cli" bench "$src/samples/softmax.ks" --devices opencl:0:0 --tune none --cache none --repeat 3 --json
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))["plans"][0]
for k in ["devices", "total_ms", "ratio_to_best", "verified", "cold_ms", "kernels_ms", "copies_ms", "runs", "warmups", "steps"]:
    assert k in p, f"bench plan lacks '{k}'"
assert p["verified"] is True and p["runs"] == 3 and p["warmups"] == 3
assert p["verification"]["mode"] == "full" and p["verification"]["checked"] == p["verification"]["total"], p
assert p["verification"]["ms"] >= 0, p
print("ok: bench --json cold and steady keys")
PY
  # Past the host check's budget bench compares a sample of the output (softmax.ks: one [4096, 1024]).
  expect 0 "bench --verify-budget 0 --json" -- "$cli" bench "$sm" --devices opencl:0:0 --tune none --cache none --repeat 1 --verify-budget 0 --verify-samples 33 --json
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))["plans"][0]
v = p["verification"]
assert p["verified"] is True and v["mode"] == "sampled" and v["checked"] == 33 and v["total"] == 4096 * 1024, p
assert "element operations" in v["reason"], v
print("ok: bench verifies a sample past its budget")
PY
  expect 0 "export fusion as dot" -- "$cli" export "$src/samples/softmax.ks" --view fusion --format dot --tune none --cache none --out "$tmp/f.dot"
  grep -q 'subgraph cluster_0 {' "$tmp/f.dot" && grep -q 'label="K[0-9]* ' "$tmp/f.dot" ||
    { echo "FAIL: fusion DOT has no kernel clusters"; fail=1; }
  expect 2 "export --step past the last step" -- "$cli" export "$src/samples/softmax.ks" --view fusion --format dot --step 99999 --tune none --cache none --out "$tmp/f.dot"
  grep -q "past the last fusion step" "$tmp/err" || { echo "FAIL: --step 99999 is not refused"; fail=1; }
fi
# A model exported with a dynamic batch runs at the batch of its --input data (needs ONNX support).
dyn="$src/tests/data/onnx/dynamic_batch"
"$cli" run "$dyn/model.onnx" --devices host >"$tmp/out" 2>"$tmp/err"
if ! grep -q "no ONNX support" "$tmp/err"; then
  grep -q "input 'x' has a symbolic" "$tmp/err" || { echo "FAIL: a symbolic input without data is not named"; cat "$tmp/err"; fail=1; }
  expect 1 "dynamic batch: data of another rank" -- "$cli" run "$dyn/model.onnx" --devices host --input "x=$dyn/test_data_set_0/output_0.pb"
  grep -q "has shape \[3, 4\], the model says \[-1, 3, 4\]" "$tmp/err" || { echo "FAIL: the rank mismatch does not name both shapes"; cat "$tmp/err"; fail=1; }
  for k in 0 1; do
    expect 0 "dynamic batch: run with test_data_set_$k" -- "$cli" run "$dyn/model.onnx" --tune none --cache none --verify --json \
      --input "x=$dyn/test_data_set_$k/input_0.pb"
    python3 - "$tmp/out" "$k" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
batch = (3, 17)[int(sys.argv[2])]
o = d["outputs"][0]
assert d["verified"] is True, "verify failed"
assert o["shape"] == [batch, 4], o["shape"]
rows = [sum(o["values"][i * 4:(i + 1) * 4]) for i in range(batch)]
assert all(abs(r - 1) < 1e-5 for r in rows), rows  # the model ends with a softmax
print("ok: dynamic batch %d: outputs [%d, 4], verified" % (batch, batch))
PY
  done
fi
# print --onnx-nodes: the ONNX nodes of the LeNet sample under their exporter names (needs ONNX support).
cnn="$src/samples/onnx/cnn.onnx"
"$cli" print "$cnn" >"$tmp/out" 2>"$tmp/err"
if ! grep -q "no ONNX support" "$tmp/err"; then
  expect 0 "print --onnx-nodes" -- "$cli" print "$cnn" --onnx-nodes
  head -1 "$tmp/out" | grep -qE '^name +op type +inputs +outputs +shape +classes$' || { echo "FAIL: print --onnx-nodes header"; head -2 "$tmp/out"; fail=1; }
  grep -qE '^/c1/Conv +Conv +[^ ]+,c1\.weight,c1\.bias +/c1/Conv_output_0 +f32\[16, 6, 28, 28\] +%[0-9]+( %[0-9]+)*$' "$tmp/out" ||
    { echo "FAIL: print --onnx-nodes has no /c1/Conv row"; cat "$tmp/out"; fail=1; }
  [ "$(grep -c . "$tmp/out")" = 14 ] || { echo "FAIL: print --onnx-nodes: not 13 nodes and a header"; fail=1; }
  expect 0 "print --onnx-nodes --json" -- "$cli" print "$cnn" --onnx-nodes --json
  python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 13, d
for n in d:
    assert set(n) == {"name", "op_type", "inputs", "outputs", "shapes", "classes"}, n
    assert len(n["shapes"]) == len(n["outputs"]) and n["classes"] == sorted(n["classes"]) and n["classes"], n
names = [n["name"] for n in d]
assert names[:4] == ["/c1/Conv", "/Relu", "/MaxPool", "/c2/Conv"] and names[-1] == "/LogSoftmax", names
c = d[0]
assert c["op_type"] == "Conv" and c["inputs"][1:] == ["c1.weight", "c1.bias"] and c["outputs"] == ["/c1/Conv_output_0"], c
assert c["shapes"] == [{"dtype": "f32", "shape": [16, 6, 28, 28]}], c["shapes"]
assert d[6]["op_type"] == "Flatten" and d[6]["shapes"][0]["shape"] == [16, 400], d[6]
print("ok: print --onnx-nodes --json, %d nodes" % len(d))
PY
  expect 1 "print --onnx-nodes of a .ks program" -- "$cli" print "$src/samples/softmax.ks" --onnx-nodes
  grep -q "no ONNX nodes" "$tmp/err" || { echo "FAIL: print --onnx-nodes of .ks does not say why"; cat "$tmp/err"; fail=1; }
  # A session compiled from the model keeps its table; a session of a .ks program has none.
  expect 0 "run cnn.onnx --session" -- "$cli" run "$cnn" --devices host --tune none --cache none --session "$tmp/cnn.kss.json"
  expect 0 "print --onnx-nodes of a session" -- "$cli" print "$tmp/cnn.kss.json" --onnx-nodes
  [ "$(grep -c . "$tmp/out")" = 14 ] && grep -q '^/c1/Conv ' "$tmp/out" || { echo "FAIL: print --onnx-nodes of a session: not the 13 nodes"; cat "$tmp/out"; fail=1; }
  expect 0 "run softmax --session" -- "$cli" run "$src/samples/softmax.ks" --devices host --tune none --cache none --session "$tmp/sm.kss.json"
  expect 1 "print --onnx-nodes of a .ks session" -- "$cli" print "$tmp/sm.kss.json" --onnx-nodes
  grep -q "no ONNX nodes" "$tmp/err" || { echo "FAIL: print --onnx-nodes of a .ks session does not say why"; cat "$tmp/err"; fail=1; }
fi
expect 2 "print --json without --onnx-nodes" -- "$cli" print "$src/samples/softmax.ks" --json
# export --format json: the picture (nodes, edges, clusters, groups by id) and what a view shows.
expect 0 "export egraph as json" -- "$cli" export "$src/samples/softmax.ks" --view egraph --format json --devices host --tune none --cache none --out "$tmp/e.json"
python3 - "$tmp/e.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
need = {"format", "version", "picture", "title", "collapsed", "nodes", "edges", "clusters", "groups", "visible"}
assert need <= set(d), f"picture JSON lacks {need - set(d)}"
assert d["format"] == "kernelscope-picture" and d["picture"] == "egraph"
ids = {n["id"] for n in d["nodes"]}
assert len(ids) == len(d["nodes"]), "node ids are not unique"
for n in d["nodes"]:
    assert {"id", "label", "tooltip", "style", "cluster", "subject", "highlighted"} <= set(n), n
for e in d["edges"]:
    assert {"from", "to", "count", "label", "weak", "memory"} <= set(e) and e["from"] in ids and e["to"] in ids, e
for c in d["clusters"]:
    assert {"id", "label", "tooltip", "group", "subject", "highlighted"} <= set(c), c
v = d["visible"]
assert {"nodes", "edges", "hidden"} <= set(v)
seen = {n["id"] for n in v["nodes"]}
assert all(e["from"] in seen and e["to"] in seen for e in v["edges"])
assert not d["collapsed"] and len(v["nodes"]) == len(d["nodes"]) and v["hidden"] == 0
print("ok: egraph picture JSON, %d nodes, %d edges" % (len(d["nodes"]), len(d["edges"])))
PY
expect 2 "export --expand unknown group" -- "$cli" export "$src/samples/softmax.ks" --view egraph --format json --devices host --tune none --cache none --expand g99 --out "$tmp/e.json"
grep -q "'g99'" "$tmp/err" || { echo "FAIL: the --expand error does not name the group"; fail=1; }
expect 0 "explain-fusion" -- "$cli" explain-fusion "$src/samples/softmax.ks" %1 %5 --tune none --cache none
grep -q "same kernel" "$tmp/out" && grep -q "rule row-normalization" "$tmp/out" ||
  { echo "FAIL: explain-fusion did not name the row kernel of max and exp"; fail=1; }
printf 'input x: f32[6, 5]\ny = softmax(x, axis=0)\noutput y\n' >"$tmp/sm0.ks"  # max varies along the rows
expect 0 "explain-fusion across kernels" -- "$cli" explain-fusion "$tmp/sm0.ks" %1 %5 --tune none --cache none
grep -q "different kernels" "$tmp/out" || { echo "FAIL: explain-fusion did not separate max and exp"; fail=1; }
expect 2 "explain-fusion bad class" -- "$cli" explain-fusion "$src/samples/softmax.ks" %1 %999 --tune none --cache none
# An edited session file is refused with the JSON pointer of the bad value, by every command.
fx="$src/tests/data/sessions/softmax.kss.json"
expect 0 "export an unedited session" -- "$cli" export "$fx" --view plan --format json --out "$tmp/plan.json"
python3 - "$fx" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["trace"]["plan"]["steps"][2]["inputs"] = [99999]
json.dump(d, open(sys.argv[2] + "/x.kss.json", "w"))
d = json.load(open(sys.argv[1]))
d["trace"]["plan"]["buffers"] = []
json.dump(d, open(sys.argv[2] + "/nobuf.kss.json", "w"))
d = json.load(open(sys.argv[1]))
d["version"] = 1e30
json.dump(d, open(sys.argv[2] + "/v.kss.json", "w"))
PY
# A plan whose key does not match its graph and devices loads, with a warning.
expect 0 "run --session" -- "$cli" run "$tmp/sm0.ks" --tune none --cache none --session "$tmp/s.kss.json"
expect 0 "export a saved session" -- "$cli" export "$tmp/s.kss.json" --view plan --format json --out "$tmp/plan.json"
! grep -q "plan's key" "$tmp/err" || { echo "FAIL: a plan key mismatch reported for an untouched session"; cat "$tmp/err"; fail=1; }
# A training program's session keeps its updates (program and run): reopened, its key matches.
printf 'input x: f32[4]\nparam w: f32[4] = ones\nloss = sum(x * w)\nw <- w - 0.1 * x\noutput loss\n' > "$tmp/train.ks"
expect 0 "run --session of a training program" -- "$cli" run "$tmp/train.ks" --tune none --cache none --session "$tmp/train.kss.json"
expect 0 "export a training session" -- "$cli" export "$tmp/train.kss.json" --view plan --format json --out "$tmp/plan.json"
! grep -q "plan's key" "$tmp/err" || { echo "FAIL: a training session reports a plan key mismatch"; cat "$tmp/err"; fail=1; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"] == 10, d["version"]
u = d["program"]["updates"]; assert len(u) == 1 and set(u[0]) == {"param", "class"}, u
r = d["runs"][0]["updates"]; assert len(r) == 1 and r[0]["name"] == "w" and len(r[0]["value"]["values"]) == 4, r' "$tmp/train.kss.json" ||
  { echo "FAIL: a training session lacks its updates"; fail=1; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["devices"][-1]["name"]="opencl:9:9"; json.dump(d, open(sys.argv[2], "w"))' \
  "$tmp/s.kss.json" "$tmp/renamed.kss.json"
expect 0 "export a session whose plan key does not match" -- "$cli" export "$tmp/renamed.kss.json" --view plan --format json --out "$tmp/plan.json"
grep -q "warning: the plan's key does not match this graph and device list" "$tmp/err" ||
  { echo "FAIL: a plan key mismatch is not reported"; cat "$tmp/err"; fail=1; }
expect 1 "export a session with a step reading buffer 99999" -- "$cli" export "$tmp/x.kss.json" --view plan --format json --out "$tmp/plan.json"
grep -q "x.kss.json.*/trace/plan/steps/2/inputs/0: expected a buffer of the plan (0\.\.[0-9]*), found 99999" "$tmp/err" ||
  { echo "FAIL: buffer 99999 is not named with its JSON pointer"; cat "$tmp/err"; fail=1; }
expect 1 "export a session without plan buffers" -- "$cli" export "$tmp/nobuf.kss.json" --view plan --format dot --out "$tmp/plan.dot"
grep -q "/trace/plan/steps/[0-9]*/[a-z]*puts/0: expected a buffer of the plan (there are none)" "$tmp/err" ||
  { echo "FAIL: an empty buffer list is not named"; cat "$tmp/err"; fail=1; }
expect 1 "export a session of version 1e30" -- "$cli" export "$tmp/v.kss.json" --view plan --format dot --out "$tmp/plan.dot"
grep -q "version 1e+30 is not supported" "$tmp/err" || { echo "FAIL: version 1e30 is misreported"; cat "$tmp/err"; fail=1; }
# diff: two sessions; exit 0 however much they differ, bad files exit 1 naming the file.
expect 0 "diff a session with itself --json" -- "$cli" diff "$fx" "$fx" --json
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert {"a", "b", "classes", "kernels", "plan", "decisions"} <= set(d), set(d)
for side in (d["a"], d["b"]):
    assert {"file", "program", "devices", "tune", "classes", "kernels", "plan_steps", "predicted_us", "run_us", "times"} <= set(side), side
assert {"matched", "only_a", "only_b"} <= set(d["classes"]) and d["classes"]["only_a"] == [] and d["classes"]["only_b"] == []
assert d["kernels"], "no kernels"
for k in d["kernels"]:
    need = {"name", "kind", "hash", "status", "name_a", "name_b", "time_a_us", "time_b_us", "delta_us", "device_a", "device_b",
            "schedule_a", "schedule_b", "compiled_a", "compiled_b"}
    assert need <= set(k), need - set(k)
    assert k["status"] == "same" and k["time_a_us"] == k["time_b_us"] and k["delta_us"] == 0, k
p = d["plan"]
assert {"only_a", "only_b", "changed", "same"} <= set(p) and p["only_a"] == p["only_b"] == p["changed"] == [] and p["same"] > 0, p
f = d["decisions"]["fusion"]
assert {"steps_a", "steps_b", "first_difference", "a", "b", "only_a", "only_b"} <= set(f) and f["first_difference"] is None, f
assert d["decisions"]["plan"] == []
print("ok: diff --json keys, a session equal to itself")
PY
expect 0 "diff as a table" -- "$cli" diff "$fx" "$tmp/s.kss.json"
grep -q "^kernel .*status" "$tmp/out" && grep -q "^plan: " "$tmp/out" && grep -q "^decisions:" "$tmp/out" ||
  { echo "FAIL: the diff table lacks its sections"; cat "$tmp/out"; fail=1; }
expect 2 "diff with one file" -- "$cli" diff "$fx"
expect 2 "diff with three files" -- "$cli" diff "$fx" "$fx" "$fx"
expect 1 "diff a missing file" -- "$cli" diff "$fx" "$tmp/nope.kss.json"
grep -q "nope.kss.json" "$tmp/err" || { echo "FAIL: diff does not name the missing file"; cat "$tmp/err"; fail=1; }
expect 1 "diff an edited session" -- "$cli" diff "$tmp/x.kss.json" "$fx"
grep -q "x.kss.json.*/trace/plan/steps/2/inputs/0" "$tmp/err" || { echo "FAIL: diff does not name the bad value"; cat "$tmp/err"; fail=1; }
echo '{"a": 1}' > "$tmp/notsession.kss.json"
expect 1 "diff a JSON file that is no session" -- "$cli" diff "$fx" "$tmp/notsession.kss.json"
grep -q "notsession.kss.json" "$tmp/err" || { echo "FAIL: diff does not name the file that is no session"; cat "$tmp/err"; fail=1; }
expect 0 "run --devices host --session" -- "$cli" run "$tmp/sm0.ks" --devices host --session "$tmp/host.kss.json"
expect 1 "diff a session without a plan" -- "$cli" diff "$tmp/host.kss.json" "$fx"
grep -q "host.kss.json: has no plan to compare" "$tmp/err" || { echo "FAIL: a session without a plan is not named"; cat "$tmp/err"; fail=1; }
# --cache never destroys what is not a cache of ours: the run goes on in memory with a warning.
echo A > "$tmp/t.txt"
expect 0 "run --cache on a text file" -- "$cli" run "$tmp/sm0.ks" --tune none --cache "$tmp/t.txt"
grep -q "t.txt is not an SQLite database" "$tmp/err" || { echo "FAIL: a text file as --cache is not named"; cat "$tmp/err"; fail=1; }
echo B > "$tmp/t.txt"
expect 0 "run --cache on another text file" -- "$cli" run "$tmp/sm0.ks" --tune none --cache "$tmp/t.txt"
[ "$(cat "$tmp/t.txt")" = B ] && [ ! -e "$tmp/t.txt.corrupt" ] || { echo "FAIL: --cache moved or changed a text file"; fail=1; }
mkdir -p "$tmp/mydata" && echo mine > "$tmp/mydata/notes.txt"
expect 0 "run --cache on a directory" -- "$cli" run "$tmp/sm0.ks" --tune none --cache "$tmp/mydata"
[ "$(cat "$tmp/mydata/notes.txt")" = mine ] && [ ! -e "$tmp/mydata.corrupt" ] || { echo "FAIL: --cache moved a directory"; fail=1; }
expect 1 "cache clear on a text file" -- "$cli" cache clear --cache "$tmp/t.txt"
[ "$(cat "$tmp/t.txt")" = B ] || { echo "FAIL: cache clear changed a text file"; fail=1; }
# Paths that are directories are named as such; a session is never half-written.
mkdir -p "$tmp/sdir" "$tmp/d.ks" "$tmp/d.npy" && echo mine > "$tmp/sdir/notes.txt"
expect 1 "run --session DIRECTORY" -- "$cli" run "$tmp/sm0.ks" --devices host --session "$tmp/sdir"
grep -q "sdir: is a directory, not a session file" "$tmp/err" || { echo "FAIL: run --session DIR is not named"; cat "$tmp/err"; fail=1; }
[ "$(cat "$tmp/sdir/notes.txt")" = mine ] && ! ls "$tmp" | grep -q "^sdir\." ||
  { echo "FAIL: run --session DIR changed or left files"; ls "$tmp"; fail=1; }
expect 1 "run a directory named .ks" -- "$cli" run "$tmp/d.ks" --devices host
grep -q "d.ks: is a directory, not a .ks program" "$tmp/err" || { echo "FAIL: a .ks directory is not named"; cat "$tmp/err"; fail=1; }
expect 1 "--input a directory named .npy" -- "$cli" run "$tmp/sm0.ks" --devices host --input "x=$tmp/d.npy"
grep -q "d.npy: is a directory, not a .npy array" "$tmp/err" || { echo "FAIL: a .npy directory is not named"; cat "$tmp/err"; fail=1; }
# A tensor larger than memory names its value, shape, bytes and memory.
printf 'input x: f32[16777216, 1]\ny = x + reshape(x, [1, 16777216])\noutput y\n' >"$tmp/big.ks"
expect 1 "run a value larger than memory" -- "$cli" run "$tmp/big.ks" --devices host
grep -q "(add): cannot allocate f32\[16777216, 16777216\] (1125899906842624 bytes (1.0 PiB)) in host memory" "$tmp/err" ||
  { echo "FAIL: an allocation failure does not name the value"; cat "$tmp/err"; fail=1; }
# NaN outputs: min and max skip them, the report counts them.
printf 'input x: f32[4]\ny = log(x - 2)\noutput y\n' >"$tmp/nan.ks"  # x is drawn from [-1, 1]: all NaN
expect 0 "run an all-NaN output" -- "$cli" run "$tmp/nan.ks" --devices host
grep -q "min nan max nan mean nan (all 4 values NaN)" "$tmp/out" || { echo "FAIL: all-NaN statistics"; cat "$tmp/out"; fail=1; }
expect 0 "run --json an all-NaN output" -- "$cli" run "$tmp/nan.ks" --devices host --json
python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["outputs"][0]; sys.exit(0 if (o["min"], o["max"], o["mean"]) == ("nan",)*3 else 1)' "$tmp/out" ||
  { echo "FAIL: all-NaN statistics in --json"; cat "$tmp/out"; fail=1; }
# print --ks --weights: parameter data as .npy files read back by data(...), relative to --out's folder.
printf 'input x: f32[2]\nparam w: f32[2, 2] = [[1.0, 2.0], [3.0, 4.0]]\ny = x @ w\noutput y\n' > "$tmp/wl.ks"
mkdir -p "$tmp/printed"
expect 0 "print --ks --weights --out" -- "$cli" print "$tmp/wl.ks" --ks --weights "$tmp/printed/weights" --out "$tmp/printed/wl.ks"
[ -f "$tmp/printed/weights/w.npy" ] && grep -q 'data("weights/w.npy")' "$tmp/printed/wl.ks" ||
  { echo "FAIL: print --weights did not write weights/w.npy and its data(...)"; cat "$tmp/printed/wl.ks"; fail=1; }
expect 0 "run the printed program" -- "$cli" run "$tmp/printed/wl.ks" --devices host --cache none --json
python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["outputs"][0]; sys.exit(0 if o["shape"] == [2] else 1)' "$tmp/out" ||
  { echo "FAIL: the printed program does not run"; fail=1; }
expect 2 "--weights without --ks" -- "$cli" print "$tmp/wl.ks" --weights "$tmp/printed/weights"
# Without an OpenCL driver, devices says so.
mkdir -p "$tmp/noicd"
expect 0 "devices without an OpenCL driver" -- env OCL_ICD_VENDORS="$tmp/noicd" "$cli" devices
grep -q "note: no OpenCL platform: the OpenCL loader found no driver (no .icd file in $tmp/noicd)" "$tmp/out" ||
  { echo "FAIL: devices without OpenCL has no note"; cat "$tmp/out"; fail=1; }
expect 0 "devices --json without an OpenCL driver" -- env OCL_ICD_VENDORS="$tmp/noicd" "$cli" devices --json
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" && grep -q "note: no OpenCL platform" "$tmp/err" ||
  { echo "FAIL: devices --json without OpenCL"; fail=1; }
expect 0 "cache clear" -- "$cli" cache clear --cache "$tmp/cache.sqlite"
[ $fail = 0 ] && echo "cli contract: all checks passed"
exit $fail
