#!/bin/bash
# apply_patch wall time, whole process against whole process, beside
# `git apply` (the equivalent unified diff) and Codex's apply_patch (the
# native binary of the npm package @openai/codex, run under the name
# apply_patch with the patch on stdin).
#   1,000 chunks on one 100,000-line file; one chunk in each of 200 files.
# Wall time is the measure; on a shared, loaded machine the CPU time
# (user + system) printed beside it is the steadier figure.
# Usage: bench_patch.sh [VTHOST]   (default: ../../../build/bin/vthost)
# Needs node, git, hyperfine; installs @openai/codex@$CODEX_VERSION with
# npm into $CODEX_DIR when it is not there yet (or set CODEX_APPLY_PATCH
# to an apply_patch binary).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
VTHOST=${1:-$ROOT/build/bin/vthost}
PROFILE="$ROOT/tests/integration/patch/patch-only.ini"
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
CODEX_DIR=${CODEX_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vthost-bench/codex-$CODEX_VERSION}
RUNS=${RUNS:-10}

for tool in node git hyperfine; do
    command -v $tool >/dev/null || { echo "bench_patch: needs $tool" >&2; exit 2; }
done
[ -x "$VTHOST" ] || { echo "bench_patch: no vthost at $VTHOST (build it first)" >&2; exit 2; }

find_codex() {
    find "$CODEX_DIR/node_modules" -type f -path '*/vendor/*' \( -path '*/codex/codex' -o -path '*/bin/codex' \) 2>/dev/null | head -1
}
if [ -z "${CODEX_APPLY_PATCH:-}" ]; then
    bin=$(find_codex || true)
    if [ -z "$bin" ]; then
        echo "Installing @openai/codex@$CODEX_VERSION into $CODEX_DIR ..." >&2
        mkdir -p "$CODEX_DIR"
        (cd "$CODEX_DIR" && npm install --no-audit --no-fund --no-save "@openai/codex@$CODEX_VERSION" >&2)
        bin=$(find_codex)
    fi
    [ -n "$bin" ] || { echo "bench_patch: no codex binary found under $CODEX_DIR" >&2; exit 2; }
    mkdir -p "$CODEX_DIR/bin"
    ln -sf "$bin" "$CODEX_DIR/bin/apply_patch"
    CODEX_APPLY_PATCH="$CODEX_DIR/bin/apply_patch"
fi

WORK=$(mktemp -d /tmp/vthost-bench-patch.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
node "$HERE/gen_cases.js" "$WORK"

# Check once that all three produce the same tree (this also warms the
# caches: hyperfine 1.15 runs --prepare only before timed runs, so its
# own warm-up runs would re-apply an applied patch).
for c in many_chunks many_files; do
    for t in vthost git codex; do
        rm -rf "$WORK/chk-$t"; cp -a "$WORK/$c/base" "$WORK/chk-$t"
    done
    "$VTHOST" --workspace "$WORK/chk-vthost" --profile "$PROFILE" --yes call apply_patch - \
        < "$WORK/$c/args.json" > /dev/null
    (cd "$WORK/chk-git" && git apply "$WORK/$c/patch.diff")
    (cd "$WORK/chk-codex" && "$CODEX_APPLY_PATCH" < "$WORK/$c/patch.txt" > /dev/null)
    diff -r "$WORK/chk-vthost" "$WORK/chk-git" > /dev/null || { echo "bench_patch: vthost and git apply differ on $c" >&2; exit 1; }
    diff -r "$WORK/chk-codex" "$WORK/chk-git" > /dev/null || { echo "bench_patch: codex and git apply differ on $c" >&2; exit 1; }
done

for c in many_chunks many_files; do
    d="$WORK/$c"
    hyperfine -N ${HYPERFINE_OPTS:-} --warmup 0 --runs "$RUNS" --style none --export-json "$WORK/$c.json" \
        --prepare "sh -c 'rm -rf $WORK/w && cp -a $d/base $WORK/w'" \
        -n vthost "sh -c 'exec \"$VTHOST\" --workspace $WORK/w --profile $PROFILE --yes call apply_patch - < $d/args.json > /dev/null'" \
        -n git_apply "sh -c 'cd $WORK/w && exec git apply $d/patch.diff'" \
        -n codex_apply_patch "sh -c 'cd $WORK/w && exec \"$CODEX_APPLY_PATCH\" < $d/patch.txt > /dev/null'" \
        > /dev/null
    node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).results;
      const t = Object.fromEntries(r.map(x => [x.command, x]));
      const ms = x => (x.mean * 1000).toFixed(1) + " ms ± " + (x.stddev * 1000).toFixed(1);
      const cpu = x => ((x.user + x.system) * 1000).toFixed(1) + " ms cpu";
      console.log(process.argv[2] + ":");
      for (const x of r) console.log("  " + x.command.padEnd(18) + ms(x) + "  (median " + (x.median * 1000).toFixed(1) + " ms, " + cpu(x) + ")");
      const v = t.vthost.mean;
      console.log("  vthost / codex_apply_patch = " + (v / t.codex_apply_patch.mean).toFixed(2) +
                  "   vthost / git_apply = " + (v / t.git_apply.mean).toFixed(2) +
                  "   codex / git_apply = " + (t.codex_apply_patch.mean / t.git_apply.mean).toFixed(2) +
                  "   (cpu: vthost / codex = " + ((t.vthost.user + t.vthost.system) /
                  (t.codex_apply_patch.user + t.codex_apply_patch.system)).toFixed(2) + ")");
    ' "$WORK/$c.json" "$c"
done
