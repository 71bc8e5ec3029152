#!/usr/bin/env bash
# What watching for shell edits costs: one exec_command (`true`) through
# `vthost call`, with the guard's before/after workspace snapshots on and
# off, in workspaces of 1 000, 10 000 and 50 000 files (100 per
# directory), plus one with a 50 000-file node_modules (skipped by the
# walk).  Prints the median wall times, the ratio, the cost per snapshot
# and that cost against `find -printf` reading the same metadata of the
# same tree (the machine-independent figure).
# Usage: snapshot.sh VTHOST [RUNS]
set -eu
vthost=$1 runs=${2:-15}
root=$(mktemp -d /tmp/vthost-guard-bench.XXXXXX)
trap 'rm -rf "$root"' EXIT

make_tree() { # make_tree DIR FILES
    mkdir -p "$1"
    local d
    for ((d = 0; d < $2 / 100; d++)); do
        mkdir -p "$1/d$d"
        (cd "$1/d$d" && touch $(seq -f 'f%g.c' 1 100))
    done
}

median_ms() { # median_ms CONFIG WS
    local t=()
    for ((i = 0; i < runs; i++)); do
        local a=$(date +%s%N)
        "$vthost" --workspace "$2" --config "$1" call exec_command '{"cmd":"true"}' >/dev/null
        t+=($((($(date +%s%N) - a) / 1000)))
    done
    printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

find_ms() { # find_ms WS: median of find reading what a snapshot reads
    local t=()
    for ((i = 0; i < runs; i++)); do
        local a=$(date +%s%N)
        find "$1" -path "$1/node_modules" -prune -o -printf '%i %s %m %T@ %C@\n' >/dev/null
        t+=($((($(date +%s%N) - a) / 1000)))
    done
    printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

printf '%-20s %9s %9s %7s %13s %9s %8s\n' workspace "off(ms)" "on(ms)" ratio "per snapshot" "find(ms)" "vs find"
for spec in 1000 10000 50000 nm50000; do
    ws=$root/ws$spec
    if [ "$spec" = nm50000 ]; then
        make_tree "$ws" 100; make_tree "$ws/node_modules" 50000
    else
        make_tree "$ws" "$spec"
    fi
    for on in true false; do
        printf '[permissions]\nallow = ["exec_command"]\n[tools.anti_blind_editing]\ndetect_shell_edits = %s\n' \
            "$on" >"$root/$on.toml"
    done
    off=$(median_ms "$root/false.toml" "$ws")
    on=$(median_ms "$root/true.toml" "$ws")
    fnd=$(find_ms "$ws")
    awk -v n="$spec" -v a="$off" -v b="$on" -v f="$fnd" 'BEGIN {
        s = (b - a) / 2000
        printf "%-20s %9.1f %9.1f %6.2fx %10.2f ms %9.2f %7.2fx\n", n " files", a / 1000, b / 1000,
               b / a, s, f / 1000, s / (f / 1000) }'
done
