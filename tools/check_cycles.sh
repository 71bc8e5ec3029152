#!/usr/bin/env bash
# No two files of a host layer call each other in a circle: from the
# symbols each object of a layer library defines and uses, build the
# file-to-file graph and let tsort(1) find loops.  (tools/check_layers.sh
# checks the direction between layers; this checks within one.)
#
# Usage: tools/check_cycles.sh BUILD_DIR
# Known loops, allowed: cli.c <-> cli_help.c (the command table names the
# help commands, and help prints the table); ws_index_scan.c <->
# ws_index_watch.c (see below).
set -euo pipefail
build=${1:?usage: check_cycles.sh BUILD_DIR}
bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for layer in util plugin ws perm call core mcp cli http; do
    lib="$build/host/libvthost_$layer.a"
    if [[ ! -f $lib ]]; then
        echo "check_cycles: $lib missing (build first)" >&2
        exit 2
    fi
    # "member symbol" pairs; nm -A prints "archive:member: ... symbol".
    nm -A --defined-only "$lib" | awk '$(NF-1) ~ /^[TDBR]$/ {split($1, a, ":"); print $NF, a[2]}' \
        | sort -u > "$tmp/defs"
    nm -A -u "$lib" | awk '{split($1, a, ":"); print $NF, a[2]}' | sort -u > "$tmp/uses"
    join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 {print $2, $3}' | sort -u > "$tmp/edges"
    # The workspace index's scan and watch recurse into each other: a
    # directory found by a scan is watched before it is read, and an event
    # for a new directory scans its subtree (ws_index_scan.c, _watch.c).
    if [[ $layer == util ]]; then
        grep -v -x -e "ws_index_scan.c.o ws_index_watch.c.o" -e "ws_index_watch.c.o ws_index_scan.c.o" \
            "$tmp/edges" > "$tmp/e2" || true
        mv "$tmp/e2" "$tmp/edges"
    fi
    if [[ $layer == cli ]]; then
        grep -v -x -e "cli.c.o cli_help.c.o" -e "cli_help.c.o cli.c.o" "$tmp/edges" > "$tmp/e2" || true
        mv "$tmp/e2" "$tmp/edges"
    fi
    if ! tsort "$tmp/edges" > /dev/null 2> "$tmp/loop"; then
        echo "host/$layer: files call each other in a loop:"
        grep -v 'input contains a loop' "$tmp/loop" | sed 's/^tsort: /  /'
        bad=1
    fi
done
if (( bad )); then
    echo "check_cycles: FAILED"
    exit 1
fi
echo "check_cycles: ok"
