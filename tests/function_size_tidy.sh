#!/usr/bin/env bash
# clang-tidy's readability-function-size (LineThreshold 150) over every translation unit of
# engine/, views/ and app/ in a build's compile_commands.json, headers of those folders included.
# tests/function_size.py checks the same rule in the default suite in a second; this is the
# compiler's own count, slower (every file parsed), so it runs with the `long` label.
#
# usage: tests/function_size_tidy.sh BUILD_DIR [SOURCE_DIR] [JOBS]
#   exit 0 when no function is over the threshold, 1 with clang-tidy's warnings otherwise,
#   2 when clang-tidy or the compilation database is missing.
set -euo pipefail
build=${1:?usage: function_size_tidy.sh BUILD_DIR [SOURCE_DIR] [JOBS]}
src=$(cd "${2:-$(dirname "$0")/..}" && pwd)
jobs=${3:-$(nproc)}
tidy=${CLANG_TIDY:-$(command -v clang-tidy || true)}
if [ -z "$tidy" ]; then
  echo "function_size_tidy: clang-tidy not found (Debian package clang-tidy)" >&2
  exit 2
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "function_size_tidy: $build/compile_commands.json missing (configure with CMake first)" >&2
  exit 2
fi

config="{Checks: '-*,readability-function-size', WarningsAsErrors: '',
  CheckOptions: [{key: readability-function-size.LineThreshold, value: 150}]}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

python3 - "$build/compile_commands.json" "$src" <<'EOF' |
import json, sys
db, src = sys.argv[1], sys.argv[2].rstrip("/") + "/"
seen = set()
for entry in json.load(open(db)):
    f = entry["file"]
    if f.startswith(src) and f[len(src):].split("/")[0] in ("engine", "views", "app") and f not in seen:
        seen.add(f)
        print(f)
EOF
  xargs -P "$jobs" -n 4 "$tidy" -p "$build" --quiet --config="$config" \
    --header-filter="^$src/(engine|views|app)/" --extra-arg=-Wno-unknown-warning-option >"$out" 2>/dev/null || true

# A file clang-tidy could not parse was not checked: that fails too.
errors=$(grep -E "^/.*: error: " "$out" | sort -u || true)
if [ -n "$errors" ]; then
  echo "$errors" | head -20
  echo "function_size_tidy: clang-tidy could not parse every file"
  exit 1
fi
# A header's function is reported once per file that includes it.
warnings=$(grep -E "warning: function .* exceeds recommended size/complexity" "$out" | sort -u || true)
if [ -n "$warnings" ]; then
  echo "$warnings"
  echo "function_size_tidy: $(echo "$warnings" | wc -l) function(s) over 150 lines"
  exit 1
fi
echo "function_size_tidy: no function over 150 lines"
