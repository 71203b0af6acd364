#!/usr/bin/env python3
"""Checks that no function in engine/, views/ or app/ has a body longer than 150 lines.

A long function does several jobs; split it by meaning (the phases it runs, the records it
builds). The count is the one clang-tidy's readability-function-size uses for LineThreshold: the
line of the closing brace minus the line of the opening brace. A lambda counts toward the
function it sits in. Functions that are only a table (a registration list) are named in TABLES.
tests/function_size_tidy.sh runs the same threshold through clang-tidy itself.

usage: function_size.py [SOURCE_DIR] [--threshold N] [--list N]
    exit 1 and one line per function over the threshold; --list N prints every function over N
"""
import os
import re
import sys

THRESHOLD = 150
# "file:function" of functions that are only a table, allowed past the threshold.
TABLES = set()

CLASS_HEAD = re.compile(
    r"^(template\s*<.*>\s*)?(typedef\s+)?(inline\s+)?(class|struct|union|enum|namespace|extern)\b", re.S)
CTOR_INIT = re.compile(r"\)\s*(noexcept\s*)?:(?!:)")
NAME_BEFORE_PAREN = re.compile(r"((?:[A-Za-z_~][A-Za-z_0-9]*\s*::\s*)*~?(?:operator\s*[^\s(]+|[A-Za-z_][A-Za-z_0-9]*))\s*$")


def strip(text):
    """The source with comments, string and character literals and preprocessor lines blanked
    (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        m = re.match(r'R"([^(\s]*)\(', text[i:i + 20]) if c == "R" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) else None
        if m:
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r"[^\n]", "", text[i:j]))
            i = j
            continue
        if c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():
                out.append(c)  # digit separator (1'000)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def matching(text, i):
    """Index of the brace closing the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def function_name(head):
    """The (qualified) name before the parameter list of a function head."""
    depth = 0
    for k, ch in enumerate(head):
        if ch == "<":
            depth += 1
        elif ch == ">" and depth > 0:
            depth -= 1
        elif ch == "(" and depth == 0:
            m = NAME_BEFORE_PAREN.search(head[:k])
            if m:
                return re.sub(r"\s+", "", m.group(1))
            break
    return None


def functions(text):
    """(name, first line, body lines) of every function body at namespace or class scope."""
    found = []

    def scan(lo, hi):
        i, head_start = lo, lo
        while i < hi:
            c = text[i]
            if c in ";}":
                head_start = i + 1
            elif c == "{":
                head = text[head_start:i].strip()
                close = matching(text, i)
                if CLASS_HEAD.match(head):
                    scan(i + 1, close)  # a scope that holds functions
                elif "(" in head and not re.search(r"(?<![=!<>+\-*/%&|^])=(?!=)", head.split("(")[0]):
                    if CTOR_INIT.search(head) and re.search(r"[A-Za-z_0-9>]\s*$", head):
                        i = close + 1  # a member initializer's braces: the body is still ahead
                        continue
                    name = function_name(head)
                    if name:
                        line = text.count("\n", 0, i) + 1
                        found.append((name, line, text.count("\n", i, close)))
                head_start = close + 1
                i = close + 1
                continue
            i += 1

    scan(0, len(text))
    return found


def self_check():
    """The scanner on known code: None when it counts right, else what it got wrong."""
    body = "\n".join(f"  x += {k};" for k in range(160))
    code = f"""namespace a {{
struct S : B {{
  S(int v) : v_{{v}}, w_(v) {{
{body}
  }}
  int f() const {{ return v_; }}
  int v_{{0}}, w_;
}};
const char* text = "{{ not a brace";  // }}
static const int table[] = {{1, 2, 3}};
template <class T>
auto g(T t) -> std::vector<T> {{
  auto h = [&] {{ return t; }};
  return {{h()}};
}}
}}  // namespace a
"""
    got = [(name, lines) for name, _, lines in functions(strip(code))]
    want = [("S", 161), ("f", 0), ("g", 3)]
    return None if got == want else f"scanner self-check: got {got}, expected {want}"


def sources(root):
    for top in ("engine", "views", "app"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".h", ".cpp")):
                    yield os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")


def main():
    args = sys.argv[1:]
    threshold, listing = THRESHOLD, None
    if "--threshold" in args:
        k = args.index("--threshold")
        threshold = int(args[k + 1])
        del args[k:k + 2]
    if "--list" in args:
        k = args.index("--list")
        listing = int(args[k + 1])
        del args[k:k + 2]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    broken = self_check()
    if broken:
        print(broken)
        return 1
    over, counted = [], 0
    for rel in sorted(sources(root)):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            text = strip(fh.read())
        for name, line, lines in functions(text):
            counted += 1
            if listing is not None and lines > listing:
                print(f"{rel}:{line}: {name} {lines} lines")
            if lines > threshold and f"{rel}:{name}" not in TABLES:
                over.append(f"{rel}:{line}: {name} has {lines} lines (more than {threshold})")
    for o in over:
        print(o)
    print(f"function_size: {counted} functions, {len(over)} over {threshold} lines")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
