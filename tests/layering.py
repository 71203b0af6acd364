#!/usr/bin/env python3
"""Checks that every #include in engine/, views/ and app/ points the allowed way.

Dependencies point down the pipeline only (DESIGN.md section 2): each engine folder may include
the folders listed for it below and nothing else; views include the engine and views; the CLI
includes the engine; the GUI includes views and the engine. The engine includes no Qt header.
A folder missing from the matrix is an error too: a new folder states its place here.

usage: layering.py [SOURCE_DIR]    (exit 1 and one line per wrong-way include)
"""
import os
import re
import sys

# folder -> the engine folders it may include besides itself, lowest first.
ENGINE = {
    "core": [],
    "graph": ["core"],
    "eval": ["core", "graph"],  # reference semantics: the host evaluator, constant folding
    "rewrite": ["core", "graph", "eval"],
    "program": ["core", "graph"],
    "io": ["core", "graph", "eval", "program"],  # parsers fold constants; they run no compiled program
    "kernel": ["core", "graph", "eval"],
    "kernelizer": ["core", "graph", "kernel"],
    "codegen": ["core", "graph", "kernel"],
    "devices": ["core", "graph", "eval", "kernel", "codegen"],
    "tune": ["core", "graph", "program", "kernel", "kernelizer", "codegen", "devices"],
    "plan": ["core", "graph", "eval", "program", "kernel", "kernelizer", "codegen", "devices", "tune"],
    "viz": ["core", "graph", "rewrite", "program", "kernel", "kernelizer", "codegen", "devices", "tune", "plan"],
    "session": ["core", "graph", "eval", "rewrite", "program", "io", "kernel", "kernelizer", "codegen", "devices",
                "tune", "plan", "viz"],
    "check": ["core", "graph", "eval", "rewrite", "program", "io", "kernel", "kernelizer", "codegen", "devices",
              "tune", "plan", "viz", "session"],  # checkers run whole programs through a Session
}
# top folder (or app sub-folder) -> the prefixes it may include.
OUTSIDE = {
    "views": ["engine/", "views/"],
    "app/cli": ["engine/", "app/cli/"],
    "app/gui": ["engine/", "views/", "app/gui/"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def owner(rel):
    """The matrix row a source file belongs to, or None for files outside the checked folders."""
    parts = rel.split("/")
    if "tests" in parts:
        return None  # tests may include anything they test
    if parts[0] == "engine" and len(parts) > 2:
        return "engine/" + parts[1]
    if parts[0] == "views":
        return "views"
    if parts[0] == "app" and len(parts) > 2:
        return "app/" + parts[1]
    return None


def problems(root):
    for top in ("engine", "views", "app"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith((".h", ".cpp")):
                    continue
                rel = os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
                row = owner(rel)
                if row is None:
                    continue
                if row.startswith("engine/") and row[7:] not in ENGINE:
                    yield f"{rel}: folder engine/{row[7:]} is not in the layering matrix (tests/layering.py)"
                    continue
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                    for no, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        why = wrong(row, m.group(1), m.group(2))
                        if why:
                            yield f"{rel}:{no}: includes {m.group(2)}: {why}"


def wrong(row, bracket, target):
    """Why `row` may not include `target`, or None when it may."""
    if row.startswith("engine/"):
        if bracket == "<":
            return "the engine has no Qt" if re.match(r"Q[A-Za-z]", target) else None
        parts = target.split("/")
        if parts[0] != "engine" or len(parts) < 3:
            return "the engine includes only engine/ headers"
        mine, theirs = row[7:], parts[1]
        if theirs == mine or theirs in ENGINE[mine]:
            return None
        return f"engine/{mine} may include only {', '.join(ENGINE[mine]) or 'itself'}"
    if bracket == "<":
        return "the CLI has no Qt" if row == "app/cli" and re.match(r"Q[A-Za-z]", target) else None
    if "/" not in target:
        return None  # generated headers (moc) next to the source
    allowed = OUTSIDE[row]
    if any(target.startswith(p) for p in allowed):
        return None
    return f"{row} may include only {', '.join(allowed)}"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = list(problems(root))
    for p in found:
        print(p)
    print(f"layering: {len(found)} wrong-way include(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
