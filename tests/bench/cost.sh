#!/usr/bin/env bash
# Every per-call cost figure in one run, each against its yardstick:
#
#   bash tests/bench/cost.sh [BUILD_DIR] [ROUNDS]     (default: build, 9)
#
#   exec/ratios.py        one-shot sandboxed call / `codex sandbox`,
#                         serve call / `unshare` namespaces alone,
#                         `vthost tools` / /bin/true,
#                         one-shot call at 100,000 files / empty workspace
#   patch/bench_patch.sh  apply_patch / Codex's apply_patch
#   code_search/bench.sh  code_search / `rg -F -i`
#   http/http_bench.mjs   cheap MCP calls over HTTP / the same over stdio
#
# Each bench runs its commands paired and alternating and prints the
# median of the per-round ratios; this script runs them one after the
# other and then lists the ratios against the project's goals (the
# table in docs/internals.md, "What a call costs").  It is not a test: nothing here fails on a figure, and a loaded
# machine moves the figures (the ratios less than the times).
set -u
BUILD=$(cd "${1:-build}" && pwd)
ROUNDS=${2:-9}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VTHOST=$BUILD/bin/vthost
[ -x "$VTHOST" ] || { echo "cost.sh: no vthost at $VTHOST (build first)" >&2; exit 2; }
LOG=$(mktemp /tmp/vthost-cost.XXXXXX)
trap 'rm -f "$LOG"' EXIT

section() { printf '\n== %s\n' "$1" | tee -a "$LOG"; }

codex=$(find "${XDG_CACHE_HOME:-$HOME/.cache}/vthost-bench" "$ROOT/tests/integration/clients/node_modules" \
    -type f -path '*/vendor/*' -path '*/bin/codex' 2>/dev/null | head -1)

# apply_patch first: the 100,000-file rows create and delete that many
# files, and for minutes after, ext4 (without a journal) walks past each
# freed inode when it makes a new one, which a patch that stages its
# files pays and Codex's in-place writes do not.
section "apply_patch"
RUNS=$ROUNDS bash "$HERE/patch/bench_patch.sh" "$VTHOST" 2>&1 | tee -a "$LOG"
section "exec: one-shot, serve, start-up, 100,000 files"
python3 "$HERE/exec/ratios.py" --runs "$ROUNDS" ${codex:+--codex "$codex"} "$VTHOST" 2>&1 | tee -a "$LOG"
section "code_search"
bash "$HERE/code_search/bench.sh" "$BUILD" "$ROUNDS" 2>&1 | tee -a "$LOG"
section "HTTP against stdio"
# 3,000 calls a run: a one-client rate is a latency, and a run of 1,000
# (~0.1 s) moved by 0.1-0.2 between runs on a shared machine.
node "$HERE/http/http_bench.mjs" "$VTHOST" "$BUILD/tests/plugins/catalog" 3000 "$ROUNDS" 100 2>&1 | tee -a "$LOG"
# What the transport alone allows (servers that do no work, TCP against
# a pipe): a row of the table above near its figure is at the floor.
if command -v gcc >/dev/null && gcc -O2 -pthread "$HERE/http/floor_echo.c" -o "$LOG.echo" 2>/dev/null; then
    section "HTTP transport floor (no server work)"
    node "$HERE/http/floor.mjs" "$LOG.echo" 3000 "$ROUNDS" 2>&1 | tee -a "$LOG"
    rm -f "$LOG.echo"
fi

printf '\n== summary (ratio, goal)\n'
python3 - "$LOG" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
def grab(pattern, after=None):
    t = text if after is None else text[text.find(after):]
    m = re.search(pattern, t)
    return float(m.group(1)) if m else None
rows = [
    ("one-shot call / codex sandbox", grab(r"one-shot call / codex sandbox.*?=\s*([\d.]+)x"), "<=", 0.25),
    ("serve call / unshare floor", grab(r"serve exec_command true / unshare floor.*?=\s*([\d.]+)x"), "<=", 1.0),
    ("vthost tools / /bin/true", grab(r"vthost tools / /bin/true.*?=\s*([\d.]+)x"), "<=", 1.5),
    ("one-shot at 100,000 files / empty", grab(r"one-shot call, \d+ files / empty workspace.*?=\s*([\d.]+)x"), "<=", 1.5),
    ("apply_patch 1,000 chunks / Codex", grab(r"vthost\s+[\d.]+ ms\s+vthost / codex_apply_patch = ([\d.]+)", "many_chunks:"), "<=", 0.35),
    ("apply_patch 200 files / Codex", grab(r"vthost\s+[\d.]+ ms\s+vthost / codex_apply_patch = ([\d.]+)", "many_files:"), "<=", 1.0),
]
for q in ("pthread_mutex_lock", "size_t"):
    at = f"cs_bench_include '{q}'"
    rows.append((f"code_search text /usr/include '{q}' / rg", grab(r"text/rg: wall ([\d.]+)", at), "<=", 0.7))
    rows.append((f"code_search all /usr/include '{q}' / rg", grab(r"all/rg: wall ([\d.]+)", at), "<=", 0.8))
rows.append(("code_search text 100,000 files / rg", grab(r"text/rg: wall ([\d.]+)", "cs_bench_100k"), "<=", 0.7))
http_rows = text.split("== HTTP transport floor")[0]  # the floor's rows look alike
for m in re.finditer(r"^(ping|server/discover|tools/call search_tools)\s+(\d+)\s+(20\d\d)\s+\S+\s+\d+\s+\d+\s+([\d.]+)x", http_rows, re.M):
    rows.append((f"HTTP/stdio {m.group(1)} {m.group(2)} client(s) {m.group(3)}", float(m.group(4)), ">=", 0.8))
for name, r, op, goal in rows:
    if r is None:
        print(f"  {name:56s}   (no figure: see the bench's output above)")
        continue
    met = r <= goal if op == "<=" else r >= goal
    print(f"  {name:56s} {r:5.2f}x  goal {op} {goal}x: {'met' if met else 'NOT met'}")
EOF
