#!/usr/bin/env bash
# The layer rule of host/, checked on the sources (in the spirit of curl's
# checksrc): every #include "..." in host/ names a header of the file's own
# layer or of a layer below it, never one above, never a sibling's (cli and
# mcp), and never anything under plugins/.  The stack, lowest first:
#
#   util <- plugin <- perm <- call <- core <- {cli, mcp} <- http <- main.c
#
# Usage: tools/check_layers.sh [SOURCE_ROOT]   (default: the checkout)
# Prints one line per violation (file:line: what) and exits 1 if any.
set -euo pipefail
root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
host="$root/host"

# Rank of each layer; equal ranks are siblings and may not include each other.
declare -A rank=([util]=0 [plugin]=1 [perm]=2 [call]=3 [core]=4 [cli]=5 [mcp]=5 [http]=6 [main]=7)

# Where each header lives.
declare -A home
while IFS= read -r h; do
    rel=${h#"$host/"}
    layer=${rel%%/*}
    name=${h##*/}
    if [[ -n ${home[$name]:-} ]]; then
        echo "host/$rel: header name also used in host/${home[$name]}/ (names must be unique)"
        bad=1
    fi
    home[$name]=$layer
done < <(find "$host" -mindepth 2 -name '*.h' | sort)

bad=${bad:-0}
while IFS= read -r src; do
    rel=${src#"$host/"}
    if [[ $rel == */* ]]; then layer=${rel%%/*}; else layer=main; fi
    if [[ -z ${rank[$layer]:-} ]]; then
        echo "host/$rel: not in a layer folder (${!rank[*]})"
        bad=1
        continue
    fi
    while IFS=: read -r line inc; do
        inc=${inc#*\"}
        inc=${inc%%\"*}
        if [[ $inc == */* ]]; then
            if [[ $inc == *plugins/* ]]; then
                echo "host/$rel:$line: includes \"$inc\": host code never includes plugin sources"
            else
                echo "host/$rel:$line: includes \"$inc\": name the header, not a path"
            fi
            bad=1
            continue
        fi
        to=${home[$inc]:-}
        [[ -z $to ]] && continue      # a generated or system header
        [[ $to == "$layer" ]] && continue
        if (( ${rank[$to]} >= ${rank[$layer]} )); then
            echo "host/$rel:$line: includes \"$inc\" from host/$to/: $layer may use only the layers below it"
            bad=1
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src" || true)
done < <(find "$host" \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) | sort)

if (( bad )); then
    echo "check_layers: FAILED (the layer rule: docs/internals.md)"
    exit 1
fi
echo "check_layers: ok"
