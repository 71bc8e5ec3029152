#!/usr/bin/env bash
# code_search against ripgrep, whole processes, paired and alternating
# (cpu_paired.py, paired.js's method: each ratio is the median over rounds of code_search's
# time over rg's in the same round).
#
#   tests/bench/code_search/bench.sh [BUILD_DIR] [ROUNDS]
#
# Trees (made once, kept in $CS_BENCH_DIR, default ${TMPDIR:-/tmp}):
#   include  /usr/include (hard links when possible)
#   100k     100,000 small C files, 10 per directory
# Commands:
#   rg    rg -F -i -n QUERY TREE
#   text  vthost call code_search {"query":Q,"result_types":["text"],"max_results":100}
#   all   vthost call code_search {"query":Q,"max_results":100}
#   noidx-text  text with the content index off (VTHOST_CODE_SEARCH_INDEX=off)
#   old-*  the same calls of $CS_BENCH_OLD (another vthost binary), if set
#          (with a cache directory of its own: an index is only used by
#          the build that wrote it)
# CS_BENCH_BIG=0 leaves out the 100k tree.
# The content index is made before the rounds (each search enters a
# share of what it reads: $CS_BENCH_INDEX_WARM calls, default 24), so the
# rows show searches with the index complete; index_cost.py measures the
# first call, with no index yet.
# Rare queries (fewer than 100 matches) make both tools read the whole
# tree; with a common one code_search stops once its bound is met, so
# those rows show the early stop rather than raw scan speed.
# Each row gives the wall and the CPU time (user + system, wait4) and
# their ratios to rg's; on a shared machine the CPU ratio is the steadier.
set -eu
BUILD=${1:-build}
ROUNDS=${2:-10}
VTHOST=$(cd "$BUILD" && pwd)/bin/vthost
HERE=$(cd "$(dirname "$0")" && pwd)
[ -x "$VTHOST" ] || { echo "no vthost at $VTHOST (build first)"; exit 1; }
command -v rg >/dev/null || { echo "ripgrep (rg) is required"; exit 1; }
command -v node >/dev/null || { echo "node is required"; exit 1; }
command -v python3 >/dev/null || { echo "python3 is required"; exit 1; }

BASE=${CS_BENCH_DIR:-${TMPDIR:-/tmp}}
INC=$BASE/cs_bench_include
BIG=$BASE/cs_bench_100k
if [ ! -d "$INC" ]; then
    mkdir -p "$INC"
    cp -al /usr/include "$INC/include" 2>/dev/null || cp -r /usr/include "$INC/include"
fi
if [ ! -d "$BIG" ]; then
    node -e '
      const fs = require("fs"), path = require("path"), root = process.argv[1];
      for (let d = 0; d < 10000; d++) {
        const dir = path.join(root, `d${Math.floor(d / 100)}`, `d${d}`);
        fs.mkdirSync(dir, { recursive: true });
        for (let f = 0; f < 10; f++)
          fs.writeFileSync(path.join(dir, `f${f}.c`),
            `/* file ${d}.${f} */\n#include <stdio.h>\n\nstatic int counter_${f};\n\n` +
            `int step_${d}_${f}(int x)\n{\n    counter_${f} += x;\n    return counter_${f} * ${d};\n}\n`);
      }' "$BIG"
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# vthost's own state for these runs (the workspace index cache, the guard).
export XDG_STATE_HOME="$WORK/state" XDG_CACHE_HOME="$WORK/cache"
echo "cores: $(nproc); rounds: $ROUNDS"
echo "include: $(find "$INC" -type f | wc -l) files; 100k: $(find "$BIG" -type f | wc -l) files"

# bench TREE QUERY WITH_ALL
bench() {
    node -e '
      const [vthost, old, tree, q, all, rounds, out, cacheOld] = process.argv.slice(1);
      const call = (bin, a) => [...(bin === old ? ["env", `XDG_CACHE_HOME=${cacheOld}`] : []),
                                bin, "--workspace", tree, "--profile", "advanced", "call",
                                "code_search", JSON.stringify(a)];
      const commands = [{ name: "rg", argv: ["rg", "-F", "-i", "-n", "--", q, tree], ok: [0, 1] }];
      for (const [prefix, bin] of [["", vthost], ["old-", old]]) {
        if (!bin) continue;
        commands.push({ name: prefix + "text",
                        argv: call(bin, { query: q, result_types: ["text"], max_results: 100 }) });
        if (all === "1")
          commands.push({ name: prefix + "all", argv: call(bin, { query: q, max_results: 100 }) });
        if (prefix === "")
          commands.push({ name: "noidx-text", argv: ["env", "VTHOST_CODE_SEARCH_INDEX=off",
                          ...call(bin, { query: q, result_types: ["text"], max_results: 100 })] });
      }
      require("fs").writeFileSync(out, JSON.stringify({ rounds: +rounds, yardstick: "rg", commands }));
    ' "$VTHOST" "${CS_BENCH_OLD:-}" "$1" "$2" "$3" "$ROUNDS" "$WORK/spec.json" "$WORK/cache-old"
    for _ in $(seq "${CS_BENCH_INDEX_WARM:-24}"); do
        "$VTHOST" --workspace "$1" --profile advanced call code_search \
            "{\"query\":\"$2\",\"max_results\":100}" >/dev/null
        [ -z "${CS_BENCH_OLD:-}" ] || XDG_CACHE_HOME="$WORK/cache-old" "$CS_BENCH_OLD" \
            --workspace "$1" --profile advanced call code_search \
            "{\"query\":\"$2\",\"max_results\":100}" >/dev/null
    done
    echo "$(basename "$1") '$2' (rg hits: $(rg -F -i -n -- "$2" "$1" | wc -l)):"
    python3 "$HERE/cpu_paired.py" "$WORK/spec.json"
}

for q in ${CS_BENCH_QUERIES:-pthread_mutex_lock size_t}; do
    bench "$INC" "$q" 1
done
[ "${CS_BENCH_BIG:-1}" = 0 ] || bench "$BIG" "${CS_BENCH_BIG_QUERY:-step_9999_9}" 0
