#!/usr/bin/env bash
# code_search vs ripgrep on a large real tree (/usr/include plus
# /usr/lib/python3*, plus 200 copies of the per-language fixtures: every
# language code_search reads), whole processes, timed with hyperfine.
#
#   tests/bench/code_search/bench.sh [BUILD_DIR] [RUNS]
#
# For each query it times
#   rg    rg -F -S --hidden --no-require-git -g '!.git' -g '!.env' -g '!.env.*' -n QUERY TREE
#         (same ignore rules as code_search: .gitignore/.ignore honoured
#         without a repository, hidden files searched, .git and .env
#         skipped, binary files skipped; -S is the same smart case)
#   text  vthost call code_search {"query":Q,"result_types":["text"],"max_results":100}
#   all   vthost call code_search {"query":Q,"max_results":100}
# and prints mean times and the ratios text/rg and all/rg (targets: text
# <= 1.2, all <= 2).  Rare queries (fewer than 100 matches) make both
# tools read the whole tree; with a common query code_search stops once
# its bound is met and truncation is certain, while rg reads everything,
# so those rows show the early stop rather than raw scan speed.
set -eu
BUILD=${1:-build}
RUNS=${2:-10}
VTHOST=$(cd "$BUILD" && pwd)/bin/vthost
[ -x "$VTHOST" ] || { echo "no vthost at $VTHOST (build first)"; exit 1; }
command -v rg >/dev/null || { echo "ripgrep (rg) is required"; exit 1; }
command -v hyperfine >/dev/null || { echo "hyperfine is required"; exit 1; }
command -v jq >/dev/null || { echo "jq is required"; exit 1; }

TREE=${CS_BENCH_TREE:-${TMPDIR:-/tmp}/cs_bench_tree}
if [ ! -d "$TREE" ]; then
    mkdir -p "$TREE/lib"
    # Hard links when possible: no copy of the data, same files.
    cp -al /usr/include "$TREE/include" 2>/dev/null || cp -r /usr/include "$TREE/include"
    for d in /usr/lib/python3*; do
        [ -d "$d" ] || continue
        cp -al "$d" "$TREE/lib/" 2>/dev/null || cp -r "$d" "$TREE/lib/"
    done
fi
# The multi-language part: the repository's per-language fixtures (all 33
# languages of code_search), replicated so every language weighs in.
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
if [ ! -d "$TREE/langs" ]; then
    for i in $(seq 1 200); do
        mkdir -p "$TREE/langs/$i"
        cp -r "$REPO/tests/unit/code_search/fixtures/." "$TREE/langs/$i/"
    done
fi
nfiles=$(find "$TREE" -type f | wc -l)
size=$(du -sh "$TREE" | cut -f1)
echo "tree: $TREE ($nfiles files, $size); cores: $(nproc); runs: $RUNS"

QUERIES=${CS_BENCH_QUERIES:-"PyObject_GetAttrString Py_DECREF pthread_mutex_lock straße size_t self Widget widget_count"}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Wall time is what a user waits for; CPU time (user+sys) is steadier on a
# loaded machine, so both are shown.
printf '%-24s %8s %8s %8s %7s %7s | %8s %8s %8s %7s %7s | %s\n' query rg_ms text_ms all_ms \
    text/rg all/rg rg_cpu text_cpu all_cpu text/rg all/rg rg_hits
for q in $QUERIES; do
    jq_q=$(jq -cn --arg q "$q" '$q')
    rgcmd="rg -F -S --hidden --no-require-git -g '!.git' -g '!.env' -g '!.env.*' -n -- '$q' '$TREE'"
    textcmd="'$VTHOST' --workspace '$TREE' --profile advanced call code_search '{\"query\":$jq_q,\"result_types\":[\"text\"],\"max_results\":100}'"
    allcmd="'$VTHOST' --workspace '$TREE' --profile advanced call code_search '{\"query\":$jq_q,\"max_results\":100}'"
    hits=$(eval "$rgcmd" | wc -l)
    hyperfine -N --warmup 2 --runs "$RUNS" -i --export-json "$TMP/h.json" \
        -n rg "$rgcmd" -n text "$textcmd" -n all "$allcmd" >/dev/null 2>&1 || \
    hyperfine --warmup 2 --runs "$RUNS" -i --export-json "$TMP/h.json" \
        -n rg "$rgcmd" -n text "$textcmd" -n all "$allcmd" >/dev/null
    jq -r --arg q "$q" --arg hits "$hits" '
        def r2: . * 100 | round / 100;
        (.results | map({(.command): (.mean * 1000)}) | add) as $m |
        (.results | map({(.command): ((.user + .system) * 1000)}) | add) as $c |
        [$q, ($m.rg|floor), ($m.text|floor), ($m.all|floor),
         ($m.text / $m.rg | r2), ($m.all / $m.rg | r2),
         ($c.rg|floor), ($c.text|floor), ($c.all|floor),
         ($c.text / $c.rg | r2), ($c.all / $c.rg | r2), $hits]
        | @tsv' "$TMP/h.json" |
        awk -F'\t' '{printf "%-24s %8s %8s %8s %7s %7s | %8s %8s %8s %7s %7s | %s\n",
                      $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12}'
done
