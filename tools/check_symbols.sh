#!/usr/bin/env bash
# The link fences, checked on the built objects (tools/check_layers.sh checks
# the includes; this catches what a hand-written prototype walks past):
#
# - no host layer library uses a symbol defined by a layer above it or by a
#   sibling (cli and mcp), whatever declared it: the executable links all
#   layers together, so such a call would link and only this check stops it.
#   The stack, lowest first:
#     util <- plugin <- ws <- perm <- call <- core <- {cli, mcp} <- http <- main.c
# - no plugin module (lib/vthost/plugins/NAME.so and the modules of its
#   NAME.d/ folder) leaves undefined a symbol that a host layer library
#   defines (a plugin reaches the host only through the vt_host_api table)
#   or that another plugin's module exports (plugins meet through services),
#   and holds no code of a host layer or of another plugin linked in (its
#   DWARF compile units all come from plugins/NAME/).
#
# The symbols are read with nm(1): the global definitions (T D B R W V G S)
# and the undefined uses of each layer library's members, and each module's
# dynamic undefined symbols and dynamic exports.
#
# Usage: tools/check_symbols.sh BUILD_DIR [ALLOW_FILE]
#   ALLOW_FILE (default tools/symbol-fences-allow.txt): lines
#   "WHERE WHAT  # reason", WHERE host/LAYER or plugins/NAME, WHAT a symbol
#   or (code linked in) a source path such as host/util/strutil.c, for known
#   uses that are accepted for now.  Prints one line per violation; exit 1
#   if any, 2 if the build is missing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: check_symbols.sh BUILD_DIR [ALLOW_FILE]}
allow_file=${2:-"$here/symbol-fences-allow.txt"}
plugdir="$build/lib/vthost/plugins"
# The source tree the build compiled (its paths are in the debug information).
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2> /dev/null || true)
[[ -n $src ]] || src=$(cd "$here/.." && pwd)
layers=(util plugin ws perm call core mcp cli http)
declare -A rank=([util]=0 [plugin]=1 [ws]=2 [perm]=3 [call]=4 [core]=5 [cli]=6 [mcp]=6 [http]=7)
bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

declare -A allowed
if [[ -f $allow_file ]]; then
    while read -r where sym _; do
        [[ -z $where || $where == \#* ]] && continue
        allowed["$where $sym"]=1
    done < "$allow_file"
fi

# Which layer defines each global symbol.
declare -A defl
for layer in "${layers[@]}"; do
    lib="$build/host/libvthost_$layer.a"
    if [[ ! -f $lib ]]; then
        echo "check_symbols: $lib missing (build first)" >&2
        exit 2
    fi
    while read -r sym; do
        # util/cjson_lazy.c and utf8proc_lazy.c define the libraries' own
        # names, forwarding to them opened on first use: a plugin's
        # cJSON_* or utf8proc_* is the library's
        [[ $layer == util && ($sym == cJSON_* || $sym == utf8proc_*) ]] && continue
        [[ -z ${defl[$sym]:-} ]] && defl[$sym]=$layer
    done < <(nm --defined-only "$lib" 2> /dev/null | awk 'NF >= 3 && $(NF-1) ~ /^[TDBRWVGS]$/ {print $NF}' | sort -u)
done

# Host layers: no use upward or sideways.
for layer in "${layers[@]}"; do
    lib="$build/host/libvthost_$layer.a"
    # "symbol member" for each undefined use; nm -A prints "archive:member: U symbol".
    nm -A -u "$lib" 2> /dev/null | awk '{n = split($1, a, ":"); print $NF, a[n-1]}' | sort -u > "$tmp/uses"
    while read -r sym member; do
        to=${defl[$sym]:-}
        [[ -z $to || $to == "$layer" ]] && continue
        ((${rank[$to]} < ${rank[$layer]})) && continue
        [[ -n ${allowed["host/$layer $sym"]:-} ]] && continue
        echo "host/$layer (${member%.o}): uses $sym, defined in host/$to/: $layer may use only the layers below it"
        bad=1
    done < "$tmp/uses"
done

# Plugin modules: owner plugin of each module.
if [[ ! -d $plugdir ]]; then
    echo "check_symbols: $plugdir missing (build first)" >&2
    exit 2
fi
declare -A owner
for m in "$plugdir"/*.so "$plugdir"/*.d/*; do
    [[ -f $m ]] || continue
    rel=${m#"$plugdir/"}
    if [[ $rel == */* ]]; then owner[$m]=${rel%%.d/*}; else owner[$m]=${rel%.so}; fi
done
if ((${#owner[@]} == 0)); then
    echo "check_symbols: no plugin module in $plugdir (build first)" >&2
    exit 2
fi
# Each plugin's dynamic exports: "symbol plugin".
for m in "${!owner[@]}"; do
    nm -D --defined-only "$m" 2> /dev/null | awk -v p="${owner[$m]}" 'NF >= 3 {sub(/@.*/, "", $NF); print $NF, p}'
done | sort -u > "$tmp/exports"
declare -A expl
while read -r sym p; do
    expl[$sym]="${expl[$sym]:+${expl[$sym]} }$p"
done < "$tmp/exports"

for m in $(printf '%s\n' "${!owner[@]}" | sort); do
    p=${owner[$m]}
    # Code taken in: the module's compile units (DWARF; the product is
    # built RelWithDebInfo) come from plugins/P/ only, not from host/ or
    # another plugin's folder (a source added to SOURCES, a core library
    # or a host layer linked in statically).
    cus=$(readelf --debug-dump=info --dwarf-depth=1 "$m" 2> /dev/null |
        awk '/DW_TAG_compile_unit/ {cu = 1; next} cu && /DW_AT_name/ {print $NF; cu = 0}')
    if [[ -z $cus ]]; then
        echo "check_symbols: note: ${m#"$build/"} has no debug information; the code linked into it is not checked"
    fi
    for cu in $cus; do
        case $cu in
        "$src/plugins/$p/"*) ;;
        "$src/host/"* | "$src/plugins/"*)
            [[ -n ${allowed["plugins/$p ${cu#"$src/"}"]:-} ]] && continue
            echo "plugins/$p (${m#"$build/"}): contains code of ${cu#"$src/"}: a plugin links only its own folder's code"
            bad=1
            ;;
        esac
    done
    while read -r sym; do
        [[ -n ${allowed["plugins/$p $sym"]:-} ]] && continue
        if [[ -n ${defl[$sym]:-} ]]; then
            echo "plugins/$p (${m#"$build/"}): uses $sym, defined in host/${defl[$sym]}/: a plugin reaches the host only through vt_host_api"
            bad=1
            continue
        fi
        for q in ${expl[$sym]:-}; do
            [[ $q == "$p" ]] && continue
            echo "plugins/$p (${m#"$build/"}): uses $sym, exported by plugins/$q: plugins meet only through services"
            bad=1
        done
    done < <(nm -D -u "$m" 2> /dev/null | awk '{sub(/@.*/, "", $NF); print $NF}' | sort -u)
done

if ((bad)); then
    echo "check_symbols: FAILED (the link fences: docs/internals.md; accepted uses: ${allow_file#"$here/../"})"
    exit 1
fi
echo "check_symbols: ok"
