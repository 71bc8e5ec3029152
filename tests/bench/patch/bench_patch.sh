#!/bin/bash
# apply_patch wall time, whole process against whole process, beside
# `git apply` (the equivalent unified diff) and Codex's apply_patch (the
# native binary of the npm package @openai/codex, run under the name
# apply_patch with the patch on stdin): the yardstick.
#   1,000 chunks on one 100,000-line file; one chunk in each of 200 files.
# Runs are paired and alternating (paired_cpu.py, the spec of
# ../paired.js): each figure is the median over rounds of vthost's time
# over Codex's in the same round, for wall time and for CPU time (user +
# system from wait4; the steadier figure on a loaded machine).
# Every run starts from a fresh copy of the tree and fresh vthost state
# (the anti-blind-editing guard counts changes per workspace).
# Usage: bench_patch.sh [VTHOST]   (default: ../../../build/bin/vthost)
# The trees live under $TMPDIR (default /tmp): point it at the filesystem
# to measure.  VTHOST_BASE=/path/to/other/vthost adds that build to the
# same rounds (a before/after pair), and YARDSTICK=vthost_base makes
# the ratios that build's instead of Codex's; GIT=0 leaves git apply out.
# Needs node, python3 and git; takes the Codex binary from $CODEX_DIR, else from
# the repository's tests/integration/clients/node_modules, else installs
# @openai/codex@$CODEX_VERSION with npm into $CODEX_DIR (or set
# CODEX_APPLY_PATCH to an apply_patch binary).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
VTHOST=${1:-$ROOT/build/bin/vthost}
PROFILE="$ROOT/tests/integration/patch/patch-only.ini"
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
CODEX_DIR=${CODEX_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vthost-bench/codex-$CODEX_VERSION}
RUNS=${RUNS:-10}

for tool in node git python3; do
    command -v $tool >/dev/null || { echo "bench_patch: needs $tool" >&2; exit 2; }
done
[ -x "$VTHOST" ] || { echo "bench_patch: no vthost at $VTHOST (build it first)" >&2; exit 2; }
if [ "${YARDSTICK:-}" = vthost_base ] && [ -z "${VTHOST_BASE:-}" ]; then
    echo "bench_patch: YARDSTICK=vthost_base needs VTHOST_BASE=/path/to/the/other/vthost" >&2
    exit 2
fi

# Succeeds with no output when nothing is found: under pipefail a
# missing directory (find's status 1) or head closing the pipe early
# must not end the script.
find_codex() {
    { find "$CODEX_DIR/node_modules" "$ROOT/tests/integration/clients/node_modules/" -type f -path '*/vendor/*' \( -path '*/codex/codex' -o -path '*/bin/codex' \) 2>/dev/null || true; } | head -1
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

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vthost-bench-patch.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
node "$HERE/gen_cases.js" "$WORK"
export XDG_STATE_HOME="$WORK/state" XDG_CACHE_HOME="$WORK/cache"

# Check once that all three produce the same tree (this also warms the
# caches).
for c in many_chunks many_files; do
    for t in vthost git codex; do
        rm -rf "$WORK/chk-$t"; cp -a "$WORK/$c/base" "$WORK/chk-$t"
    done
    "$VTHOST" --workspace "$WORK/chk-vthost" --profile "$PROFILE" --yes call apply_patch - \
        < "$WORK/$c/args.json" > /dev/null
    (cd "$WORK/chk-git" && git apply "$WORK/$c/patch.diff")
    (cd "$WORK/chk-codex" && "$CODEX_APPLY_PATCH" < "$WORK/$c/patch.txt" > /dev/null)
    diff -r -x .vtcode "$WORK/chk-vthost" "$WORK/chk-git" > /dev/null || { echo "bench_patch: vthost and git apply differ on $c" >&2; exit 1; }
    diff -r "$WORK/chk-codex" "$WORK/chk-git" > /dev/null || { echo "bench_patch: codex and git apply differ on $c" >&2; exit 1; }
done

for c in many_chunks many_files; do
    d="$WORK/$c"
    node -e '
      const [work, d, vthost, profile, codex, rounds, base, git, yard] = process.argv.slice(1);
      const vt = (name, bin) => ({ name, stdin: `${d}/args.json`,
        argv: [bin, "--workspace", `${work}/w`, "--profile", profile, "--yes", "call", "apply_patch", "-"] });
      const spec = {
        rounds: +rounds, yardstick: yard || "codex_apply_patch",
        prepare: ["sh", "-c", `rm -rf ${work}/w ${work}/state ${work}/cache && cp -a ${d}/base ${work}/w`],
        commands: [
          vt("vthost", vthost),
          ...(base ? [vt("vthost_base", base)] : []),
          { name: "codex_apply_patch", stdin: `${d}/patch.txt`, cwd: `${work}/w`, argv: [codex] },
          ...(git === "0" ? [] : [{ name: "git_apply", cwd: `${work}/w`, argv: ["git", "apply", `${d}/patch.diff`] }]),
        ] };
      require("fs").writeFileSync(`${work}/spec.json`, JSON.stringify(spec));
    ' "$WORK" "$d" "$VTHOST" "$PROFILE" "$CODEX_APPLY_PATCH" "$RUNS" "${VTHOST_BASE:-}" "${GIT:-1}" "${YARDSTICK:-}"
    echo "$c:"
    python3 "$HERE/paired_cpu.py" "$WORK/spec.json"
done
