#!/usr/bin/env python3
"""Structure-aware mutation of the session fuzz seeds: edits one value of a seed the way a careless
or hostile user would (an id, a shape, an enum code, a kind, an embedded JSON string, a list
emptied or grown) and replays each batch of edited files through the session replay binary
(fuzz_replay_session, best built with KS_SANITIZE). A batch that crashes is replayed file by file;
each crashing file is kept in OUT with the edit that made it (OUT/<sha1>.edit).

    python3 fuzz/session_mutate.py build-asan/fuzz/fuzz_replay_session fuzz/corpus/session OUT \
        [--rounds 20] [--batch 200] [--seed 1]

libFuzzer's byte-level mutations rarely keep a 20 KiB session valid JSON; these keep the file
loadable up to the one edited value, so they reach the checks and readers behind the loader.
"""
import argparse
import copy
import hashlib
import json
import pathlib
import random
import subprocess
import sys
import tempfile

INTS = [-1, 0, 1, 2, 3, 7, 255, 256, 65535, 2**31 - 1, 2**31, 2**32, 2**53, 2**63 - 1, -2**63]
FLOATS = [1e30, -1e30, 0.5, -0.0, 1e-300]
STRINGS = ["", "x", "nan", "inf", "{", "{\"vec\": 0}", "{\"wg_n\": 99999999999}", "[1,2]", "\u00e9", "default",
           "launch", "copy", "fused", "gemm", "opencl", "host", "openblas", "leaf", "kernel", "pad", "reduce"]


def places(node, path=()):
    """Every (path, value) of the document, containers included."""
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from places(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from places(v, path + (i,))


def mutated(value, rng):
    """A replacement for `value`; None removes it."""
    choice = rng.random()
    if isinstance(value, bool):
        return rng.choice([not value, 0, "true", None])
    if isinstance(value, int):
        if choice < 0.6:
            return rng.choice(INTS + [value + 1, value - 1, value * 1000, -value])
        return rng.choice(FLOATS + ["7", None, [value]])
    if isinstance(value, float):
        return rng.choice(FLOATS + INTS[:4] + ["nan", None])
    if isinstance(value, str):
        if value.startswith("{") and choice < 0.5:  # embedded JSON: break it, or change one key
            try:
                inner = json.loads(value)
                key = rng.choice(list(inner)) if inner else "vec"
                inner[key] = rng.choice(INTS + ["x", None, [1]])
                return json.dumps(inner)
            except ValueError:
                pass
        return rng.choice(STRINGS + [value[: len(value) // 2], value + "x"])
    if isinstance(value, list):
        if not value or choice < 0.3:
            return []
        if choice < 0.6:
            return value[: rng.randrange(len(value))]
        if choice < 0.8:
            return value + [copy.deepcopy(rng.choice(value))]
        return list(reversed(value))
    if isinstance(value, dict):
        if value and choice < 0.7:
            d = dict(value)
            del d[rng.choice(list(d))]
            return d
        return {}
    return None


def edit(doc, rng):
    all_places = [p for p, _ in places(doc) if p]
    path = rng.choice(all_places)
    parent = doc
    for p in path[:-1]:
        parent = parent[p]
    old = parent[path[-1]]
    new = mutated(old, rng)
    if new is None and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return "/" + "/".join(str(p) for p in path) + " = " + json.dumps(new)[:200]


def replay(binary, files, timeout=120):
    try:
        r = subprocess.run([binary] + [str(f) for f in files], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=timeout)
        return r.returncode, r.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-size", type=int, default=256 * 1024)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    seeds = []
    for f in sorted(pathlib.Path(a.corpus).iterdir()):
        if f.stat().st_size > a.max_size:
            continue
        try:
            seeds.append(json.loads(f.read_text()))
        except (ValueError, RecursionError):  # the seeds that are not JSON, or nest past Python's limit
            continue
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    found = 0
    with tempfile.TemporaryDirectory() as t:
        for r in range(a.rounds):
            files, edits = [], {}
            for i in range(a.batch):
                doc = copy.deepcopy(rng.choice(seeds))
                what = edit(doc, rng)
                if rng.random() < 0.3:
                    what += "; " + edit(doc, rng)
                f = pathlib.Path(t) / f"m{r}_{i}.kss.json"
                f.write_text(json.dumps(doc))
                files.append(f)
                edits[f] = what
            rc, _ = replay(a.binary, files)
            if rc != 0:
                for f in files:
                    rc1, err = replay(a.binary, [f])
                    if rc1 != 0:
                        data = f.read_bytes()
                        name = hashlib.sha1(data).hexdigest()
                        (out / name).write_bytes(data)
                        (out / (name + ".edit")).write_text(edits[f] + "\n" + err[-3000:])
                        found += 1
                        print("crash:", name, edits[f], "rc", rc1, flush=True)
            for f in files:
                f.unlink()
            print("round", r + 1, "of", a.rounds, "crashes so far", found, flush=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
