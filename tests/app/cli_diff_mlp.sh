#!/usr/bin/env bash
# `diff` of two sessions of samples/mlp.ks: compiled at --tune none and --tune quick (same
# devices: the same kernels, other schedules and times), and on PoCL alone and with openblas
# (the matmuls move to GEMMs). The expected kernels, times and changes are read from the two
# session files directly, by kernel index (valid here: the same program gives the same kernels),
# not by the structural matching under test.
set -u
cli=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mlp="$src/samples/mlp.ks"
session() {  # session OUT FLAGS...
  local out=$1
  shift
  "$cli" run "$mlp" --cache none --session "$tmp/$out" "$@" >"$tmp/log" 2>&1 || { echo "FAIL: run $*"; cat "$tmp/log"; exit 1; }
}
session none.kss.json --devices opencl:0:0,openblas --tune none
session quick.kss.json --devices opencl:0:0,openblas --tune quick
session pocl.kss.json --devices opencl:0:0 --tune none
fail=0
for pair in "none quick" "pocl none"; do
  set -- $pair
  "$cli" diff "$tmp/$1.kss.json" "$tmp/$2.kss.json" --json >"$tmp/d.json" 2>"$tmp/err" || { echo "FAIL: diff $pair --json"; cat "$tmp/err"; fail=1; continue; }
  "$cli" diff "$tmp/$1.kss.json" "$tmp/$2.kss.json" >"$tmp/d.txt" 2>"$tmp/err" || { echo "FAIL: diff $pair"; cat "$tmp/err"; fail=1; continue; }
  python3 - "$tmp/$1.kss.json" "$tmp/$2.kss.json" "$tmp/d.json" "$tmp/d.txt" "$pair" <<'PY' || fail=1
import json, sys
sa, sb, d = (json.load(open(p)) for p in sys.argv[1:4])
table = open(sys.argv[4]).read().splitlines()
pair = sys.argv[5]

def launched(s):
    """name -> (device, schedule, ns, plan step label) for every launch of the plan."""
    t, run = s["trace"], s["runs"][-1]
    assert len(run["steps"]) == len(t["plan"]["steps"])
    r = {}
    for i, st in enumerate(t["plan"]["steps"]):
        if st["kind"] != "launch":
            continue
        e = t["entries"][st["kernel"]]
        dev = s["devices"][st["device"]]["name"]
        name = st["label"][: -len(" on " + dev)] if e["kind"] == "gemm" else t["kernels"][e["fused"]]["name"]
        r[name] = (dev, e["schedule"] or None, run["steps"][i]["ns"], st["label"])
    return r

def ir(s):
    return [(k["fused"]["kernel"], k["fused"]["loads"], k["fused"]["stores"]) for k in s["trace"]["kernels"]]

la, lb = launched(sa), launched(sb)
rows = d["kernels"]
for r in rows:
    assert {"name", "time_a_us", "time_b_us"} <= set(r), r
got_a = {r["name_a"] for r in rows if r["time_a_us"] is not None}
got_b = {r["name_b"] for r in rows if r["time_b_us"] is not None}
assert got_a == set(la), (pair, got_a, set(la))
assert got_b == set(lb), (pair, got_b, set(lb))
for r in rows:
    if r["time_a_us"] is not None:
        assert abs(r["time_a_us"] - la[r["name_a"]][2] / 1000) < 1e-6, r
    if r["time_b_us"] is not None:
        assert abs(r["time_b_us"] - lb[r["name_b"]][2] / 1000) < 1e-6, r
p = d["plan"]
assert {"only_a", "only_b", "changed"} <= set(p), set(p)
changed_labels = {(c["a"]["label"], c["b"]["label"]): c["what"] for c in p["changed"]}

if pair == "none quick":
    # Same program and devices: the kernels are the same list, so the index is the identity.
    assert ir(sa) == ir(sb), "the two tune levels kernelized differently"
    assert all(r["status"] in ("same", "changed") for r in rows if r["name_a"] in la and r["name_b"] in lb)
    expect = {n for n in la if n in lb and la[n][:2] != lb[n][:2]}  # device or schedule differs
    got = {r["name_a"] for r in rows if r["status"] == "changed"}
    assert got == expect, ("changed kernels", got, expect)
    for n in expect:
        assert (la[n][3], lb[n][3]) in changed_labels, ("no plan change for", n, changed_labels)
        if la[n][1] != lb[n][1]:
            assert "schedule" in changed_labels[(la[n][3], lb[n][3])]
        line = [l for l in table if l.startswith(n + " ")]
        assert line and " changed " in line[0], ("the table does not list", n, "as changed")
    print("ok: --tune none vs quick: %d kernels, changed: %s" % (len(rows), sorted(expect) or "none"))
else:
    # PoCL alone vs with openblas: every GEMM is new in B, and what A ran elsewhere is gone.
    gemms = {n for n in lb if n.startswith("sgemm")}
    assert gemms, "openblas took no matmul"
    for r in rows:
        if r["name_b"] in gemms:
            assert r["time_a_us"] is None and r["status"] == "only_b" and r["kind"] == "gemm", r
    only_a = {r["name_a"] for r in rows if r["status"] == "only_a"}
    ia, ib = ir(sa), ir(sb)
    expect_only_a = {sa["trace"]["kernels"][i]["name"] for i, k in enumerate(ia)
                     if sa["trace"]["kernels"][i]["name"] in la and
                     not any(k == kb and sb["trace"]["kernels"][j]["name"] in lb for j, kb in enumerate(ib))}
    assert only_a == expect_only_a, (only_a, expect_only_a)
    assert p["changed"] or p["only_b"], "no plan step changed"
    for n in only_a:
        line = [l for l in table if l.startswith(n + " ")]
        assert line and " only A " in line[0], ("the table does not list", n, "as only A")
    print("ok: PoCL alone vs with openblas: %d GEMMs only in B, only in A: %s, %d steps changed"
          % (len(gemms), sorted(only_a), len(p["changed"])))
PY
done
exit $fail
