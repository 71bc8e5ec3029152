#!/bin/bash
# 1,000 short execs (for i in $(seq 1000); do /bin/true; done) through
# vthost call in the same sandbox, with run-time enforcement and without
# it (VTHOST_NO_EXEC_CHECKS=1), under 2,000 rules (FILL filler rules, default 1995).  Prints both times and
# the ratio (goal <= 1.5x).  --yes: without run-time checks the loop is
# opaque and needs an approval.  Usage: exec_ratio.sh VTHOST [runs]
set -eu
V=${1:?usage: exec_ratio.sh VTHOST [runs]}
RUNS=${2:-5}
WS=$(mktemp -d)
trap 'rm -rf "$WS"' EXIT
V=$(realpath "$V"); cd "$WS"
{
    echo '[permissions]'
    echo 'allow = ["exec_command(seq *)", "exec_command(true)", "exec_command(/bin/true)", "exec_command(/bin/true *)",'
    for i in $(seq "${FILL:-1995}"); do printf '  "exec_command(tool%d *)",\n' "$i"; done
    echo ']'
    echo 'deny = ["exec_command(rm *)"]'
} > "$WS/vtcode.toml"
CMD='{"cmd":"for i in $(seq 1000); do /bin/true; done","yield_time_ms":30000}'
best() {
    local b=999999
    for _ in $(seq "$RUNS"); do
        local t0 t1
        t0=$(date +%s%N)
        out=$("$@" --workspace "$WS" call --yes exec_command "$CMD")
        t1=$(date +%s%N)
        [[ $out == *'"exit_code":0'* ]] || { echo "run failed: $out" >&2; exit 1; }
        local ms=$(((t1 - t0) / 1000000))
        ((ms < b)) && b=$ms
    done
    echo "$b"
}
with=$(best "$V")
without=$(best env VTHOST_NO_EXEC_CHECKS=1 "$V")
awk -v a="$with" -v b="$without" 'BEGIN {
    printf "1,000 execs: %d ms with run-time checks, %d ms without (best of runs)\n", a, b
    printf "ratio %.2fx (goal <= 1.5x); %.1f us added per execve\n", a / b, (a - b) * 1000 / 1000 }'
