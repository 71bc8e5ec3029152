#!/usr/bin/env bash
# No two files of a host layer call each other in a circle: from the
# symbols each object of a layer library defines and uses, build the
# file-to-file graph and let tsort(1) find loops.  (tools/check_layers.sh
# checks the direction between layers; this checks within one.)
#
# Usage: tools/check_cycles.sh BUILD_DIR [ALLOW_FILE]
#   ALLOW_FILE (default tools/cycles-allow.txt): the circles accepted, one
#   "LAYER FILE_A FILE_B  # why" a line; the pair is allowed both ways.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: check_cycles.sh BUILD_DIR [ALLOW_FILE]}
allow_file=${2:-"$here/cycles-allow.txt"}
bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "layer a.c.o b.c.o" lines, both directions of each accepted circle.
: > "$tmp/allow"
if [[ -f $allow_file ]]; then
    while read -r layer a b _; do
        [[ -z $layer || $layer == \#* ]] && continue
        printf '%s %s.o %s.o\n%s %s.o %s.o\n' "$layer" "$a" "$b" "$layer" "$b" "$a" >> "$tmp/allow"
    done < "$allow_file"
fi
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
    # the accepted circles of this layer are not edges
    sed -n "s/^$layer //p" "$tmp/allow" > "$tmp/skip"
    grep -v -x -F -f "$tmp/skip" "$tmp/edges" > "$tmp/e2" || true
    mv "$tmp/e2" "$tmp/edges"
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
