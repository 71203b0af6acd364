#!/usr/bin/env python3
"""Writes the seed corpus of the session fuzz target (fuzz/corpus/session): the saved session of
every sample that fits the target's size limit, and edited copies of the softmax session, each
breaking one rule of the loader (what a user's hand edit does). Files are named by their SHA-1,
as libFuzzer names what it adds.

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

LIMIT = 192 * 1024  # under the target's 256 KiB cap, so every seed is read


def save(out, text):
    data = text.encode() if isinstance(text, str) else text
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


def sample_sessions(cli, root, tmp):
    sessions = {}
    for ks in sorted((root / "samples").glob("*.ks")):
        path = tmp / (ks.stem + ".kss.json")
        cmd = [cli, "run", str(ks), "--tune", "none", "--cache", "none", "--session", str(path)]
        if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, POCL_MAX_PTHREAD_COUNT="2")).returncode:
            print("skipped (run failed):", ks.name)
            continue
        text = path.read_text()
        if len(text) > LIMIT:
            # the output values take the room: the same session as compiled, before its run
            d = json.loads(text)
            d["runs"] = []
            text = json.dumps(d)
        if len(text) > LIMIT:
            print("skipped (%d KiB):" % (len(text) // 1024), ks.name)
            continue
        sessions[ks.stem] = text
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
    # deeper than any session: the loader refuses a nesting limit, never recurses into it
    yield json.dumps(s)[:-1] + ', "deep": ' + "[" * 5000 + "]" * 5000 + "}"


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
