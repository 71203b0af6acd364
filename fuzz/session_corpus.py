#!/usr/bin/env python3
"""Writes the seed corpus of the session fuzz target (fuzz/corpus/session): the saved session of
every sample (the five largest by compiled size whole, the others cut to LIMIT), and edited copies
of the softmax session, each breaking one rule of the loader (what a user's hand edit does).
Files are named by their SHA-1, as libFuzzer names what it adds.

    python3 fuzz/session_corpus.py build/app/cli/kernelscope-cli fuzz/corpus/session
"""
import copy
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile

LIMIT = 192 * 1024  # the other samples' seeds stay small, so libFuzzer's mutations of them stay fast
LARGEST = 5  # samples whose whole session is a seed (the target reads up to 8 MiB)


def save(out, text):
    data = text.encode() if isinstance(text, str) else text
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


def compiled(text):
    """The session as compiled, before its run (the output values often take most of the room)."""
    d = json.loads(text)
    d["runs"] = []
    return json.dumps(d)


def sample_sessions(cli, root, tmp):
    whole = {}
    for ks in sorted((root / "samples").glob("*.ks")):
        path = tmp / (ks.stem + ".kss.json")
        cmd = [cli, "run", str(ks), "--tune", "none", "--cache", "none", "--session", str(path)]
        if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, POCL_MAX_PTHREAD_COUNT="2")).returncode:
            print("skipped (run failed):", ks.name)
            continue
        whole[ks.stem] = path.read_text()
    largest = sorted(whole, key=lambda n: len(compiled(whole[n])), reverse=True)[:LARGEST]
    sessions = {}
    for name, text in whole.items():
        if name in largest:
            print("whole (%d KiB):" % (len(text) // 1024), name)
        elif len(text) > LIMIT:
            text = compiled(text)
        if len(text) > LIMIT and name not in largest:
            print("skipped (%d KiB):" % (len(text) // 1024), name)
            continue
        sessions[name] = text
    return sessions


def edits(s):
    """One broken rule per copy: ids out of range, empty lists, wrong types, bad versions."""
    def put(pointer, value):
        """The session with the value at `pointer` replaced (None: removed); None if it has no such place."""
        d = copy.deepcopy(s)
        *parents, last = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]
        try:
            node = d
            for p in parents:
                node = node[p]
            if value is None:
                del node[last]
            else:
                node[last] = value
        except (KeyError, IndexError):
            return None
        return json.dumps(d)

    yield put("/trace/plan/steps/2/inputs", [99999])
    yield put("/trace/plan/buffers", [])
    yield put("/trace/plan/steps", [])
    yield put("/version", 1e30)
    yield put("/version", "2")
    yield put("/stage", 99)
    yield put("/graph/classes/0/shape", [-4, 8])
    yield put("/graph/nodes/0/class", 99999)
    yield put("/graph/leaves/0/shape", "x")
    yield put("/devices", [])
    yield put("/pools", [7, 7])
    yield put("/runs/0/steps/0/ns", "fast")
    yield put("/trace/fusion/kernels", [])
    yield put("/trace/entries/0/fused", 4000000000)
    yield put("/trace/extraction/chosen", [[1, 2, 3]])
    yield put("/options/tune", 200)
    yield put("/graph", None)
    yield put("/trace", None)
    # A careless or hostile edit of a kernel, a node, an enum or an embedded JSON string: each
    # passed the loader once and crashed or misled a reader behind it.
    yield edited(s, store_rank_changed)  # lowering indexed the store's value past its index (SIGSEGV)
    yield put("/trace/entries/0/schedule_json", '{"wg_n": 0,')  # a raw JSON parse error, no place
    yield put("/trace/entries/0/schedule_json", "[1, 2]")
    yield put("/trace/entries/0/schedule_json", '{"vec": "wide"}')
    yield put("/trace/entries/0/schedule_json", '{"wg_n": 4611686018427387904, "wg_m": 4}')  # overflowed the work-group size
    yield edited(s, lambda d: set_first(d["graph"]["nodes"], "unary", "op", 255))  # a label past the op names
    yield edited(s, lambda d: set_first(d["graph"]["nodes"], "reduce", "op", 9))
    yield edited(s, lambda d: set_first(d["graph"]["nodes"], "binary", "in", [0]))
    yield edited(s, lambda d: set_first(d["graph"]["nodes"], "expand", "kind", "pad", attr=[]))
    yield edited(s, lambda d: set_first(d["graph"]["nodes"], "reshape", "attr", [1, 2, 3]))
    yield put("/graph/leaves/0/kind", 7)
    yield put("/graph/classes/0/shape", [2**40, 2**40])
    yield put("/devices/0/kind", "gpu")
    yield put("/devices/0/compute_units", 1e30)
    yield put("/devices/0/max_work_group_size", 2**64 - 1)
    yield put("/trace/kernels/0/fused/kernel/1/dtype", "bool")
    yield put("/trace/kernels/0/fused/loads/0", 1)
    # deeper than any session: the loader refuses a nesting limit, never recurses into it
    yield json.dumps(s)[:-1] + ', "deep": ' + "[" * 5000 + "]" * 5000 + "}"


def edited(s, change):
    d = copy.deepcopy(s)
    change(d)
    return json.dumps(d)


def set_first(nodes, kind, key, value, **more):
    """Sets `key` (and `more`) of the first graph node of `kind`."""
    for n in nodes:
        if n["kind"] == kind:
            n[key] = value
            n.update(more)
            return


def store_rank_changed(d):
    """The first kernel's store keeps its element count but not its rank (the loader checked counts)."""
    store = d["trace"]["kernels"][0]["fused"]["kernel"][-1]
    count = 1
    for dim in store["shape"]:
        count *= dim
    store["shape"] = [count]


def main():
    cli, out = sys.argv[1], pathlib.Path(sys.argv[2])
    root = pathlib.Path(__file__).resolve().parent.parent
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as t:
        sessions = sample_sessions(cli, root, pathlib.Path(t))
    for text in sessions.values():
        save(out, text)
    # the committed fixtures are sessions of earlier versions
    for fixture in sorted((root / "tests/data/sessions").glob("*.kss.json")):
        save(out, fixture.read_bytes())
    for text in edits(json.loads(sessions["softmax"])):
        if text is not None:
            save(out, text)
    print(len(list(out.iterdir())), "files in", out)


if __name__ == "__main__":
    main()
