#!/bin/bash
# 1,000 short execs (for i in $(seq 1000); do /bin/true; done) through
# vthost call in the same sandbox, with run-time enforcement and without
# it (VTHOST_NO_EXEC_CHECKS=1), under 2,000 rules (FILL filler rules, default 1995).  Prints both times and
# the ratio (goal <= 1.5x), medians of RUNS alternating runs.  --yes: without run-time checks the loop is
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
# The machine may be shared: the two kinds of run alternate, and the median
# of each is reported (the best too).
with=() without=()
for _ in $(seq "$RUNS"); do
    for mode in with without; do
        t0=$(date +%s%N)
        if [[ $mode == with ]]; then
            out=$("$V" --workspace "$WS" call --yes exec_command "$CMD")
        else
            out=$(VTHOST_NO_EXEC_CHECKS=1 "$V" --workspace "$WS" call --yes exec_command "$CMD")
        fi
        t1=$(date +%s%N)
        [[ $out == *'"exit_code":0'* ]] || { echo "run failed: $out" >&2; exit 1; }
        eval "$mode+=($(((t1 - t0) / 1000000)))"
    done
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
best() { printf '%s\n' "$@" | sort -n | head -1; }
awk -v a="$(median "${with[@]}")" -v b="$(median "${without[@]}")" \
    -v ba="$(best "${with[@]}")" -v bb="$(best "${without[@]}")" -v n="$RUNS" 'BEGIN {
    printf "1,000 execs, median of %d runs: %.0f ms with run-time checks, %.0f ms without\n", n, a, b
    printf "ratio %.2fx (goal <= 1.5x); %.1f us added per execve (best: %d / %d ms, %.2fx)\n",
           a / b, (a - b), ba, bb, ba / bb }'
