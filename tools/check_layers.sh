#!/usr/bin/env bash
# The include fences, checked on the sources (in the spirit of curl's
# checksrc).  Every #include "..." and #include <...> of host/ and plugins/
# is placed, and refused when it crosses a fence:
#
# host/: a quoted name is a header of the file's own layer or of a layer
#   below it, never one above, never a sibling's (cli and mcp); it names
#   the header, not a path.  The stack, lowest first:
#
#     util <- plugin <- ws <- perm <- call <- core <- {cli, mcp} <- http <- main.c
#
# plugins/P/: a quoted name is a header of P's own folder (no path); of
#   the project's headers a plugin reaches only the SDK, as <vthost/...>.
#
# Both: a quoted name that is not a header of the tree is refused (it cannot
#   be placed); a <...> name is an SDK header <vthost/NAME> that exists in
#   sdk/include/vthost/, or a system header: one with a path into host/ or
#   plugins/, or the name of a host or plugin header that the compiler's
#   system include directories do not hold (<spawn.h> is the system's, not
#   exec's), is refused.
#
# Usage: tools/check_layers.sh [SOURCE_ROOT]   (default: the checkout)
# Prints one line per violation (file:line: what) and exits 1 if any.
set -euo pipefail
root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
host="$root/host"
plugins="$root/plugins"
sdk="$root/sdk/include"
bad=0

# Rank of each layer; equal ranks are siblings and may not include each other.
declare -A rank=([util]=0 [plugin]=1 [ws]=2 [perm]=3 [call]=4 [core]=5 [cli]=6 [mcp]=6 [http]=7 [main]=8)

# Where each host header lives (names are unique across host/).
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

# Every plugin header name, with the plugin(s) that hold it.
declare -A pluginhdr
if [[ -d $plugins ]]; then
    while IFS= read -r h; do
        rel=${h#"$plugins/"}
        name=${h##*/}
        pluginhdr[$name]="${pluginhdr[$name]:+${pluginhdr[$name]} }plugins/${rel%%/*}"
    done < <(find "$plugins" -mindepth 2 -name '*.h' | sort)
fi

# The compiler's system include directories: a <name> found there is the
# system's header even when a host or plugin header has the same name.
sysdirs=()
cc=${CC:-cc}
if command -v "$cc" > /dev/null 2>&1; then
    while IFS= read -r d; do
        sysdirs+=("$d")
    done < <("$cc" -E -Wp,-v -x c /dev/null 2>&1 > /dev/null |
        sed -n '/#include <...> search starts here:/,/End of search list./p' |
        sed -n 's/^ \(\/.*\)/\1/p')
fi
if ((${#sysdirs[@]} == 0)); then
    sysdirs=(/usr/local/include /usr/include)
fi
is_system_header() { # is_system_header NAME
    local d
    for d in "${sysdirs[@]}"; do
        [[ -f $d/$1 ]] && return 0
    done
    return 1
}

# check_angle WHERE LINE NAME: the rule for <...> names, host and plugins alike.
check_angle() {
    local where=$1 line=$2 inc=$3
    if [[ $inc == vthost/* ]]; then
        if [[ ! -f $sdk/$inc ]]; then
            echo "$where:$line: includes <$inc>: no such SDK header in sdk/include/vthost/"
            bad=1
        fi
        return
    fi
    if [[ $inc == *..* || $inc == host/* || $inc == */host/* || $inc == plugins/* ||
        $inc == */plugins/* ]]; then
        echo "$where:$line: includes <$inc>: a path into the tree; only the SDK (<vthost/...>) and system headers go in <...>"
        bad=1
        return
    fi
    local base=${inc##*/} owner=""
    if [[ $inc == */* ]]; then
        # <layer/name.h>, <plugin/name.h>: a project folder by another name.
        local first=${inc%%/*}
        if [[ -n ${rank[$first]:-} && $first != main ]] || [[ -d $plugins/$first ]]; then
            if ! is_system_header "$inc"; then
                echo "$where:$line: includes <$inc>: a project header by path; only the SDK (<vthost/...>) and system headers go in <...>"
                bad=1
            fi
        fi
        return
    fi
    [[ -n ${home[$base]:-} ]] && owner="host/${home[$base]}/"
    [[ -n ${pluginhdr[$base]:-} ]] && owner="${owner:+$owner }${pluginhdr[$base]}/"
    if [[ -n $owner ]] && ! is_system_header "$inc"; then
        echo "$where:$line: includes <$inc>, a header of $owner: only the SDK (<vthost/...>) and system headers go in <...>"
        bad=1
    fi
}

includes() { # includes FILE: "line:kind:name" for each #include, kind q or a
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$1" |
        sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1:q:\2/;
                s/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*<([^>]*)>.*/\1:a:\2/' || true
}

# host/
while IFS= read -r src; do
    rel=${src#"$host/"}
    if [[ $rel == */* ]]; then layer=${rel%%/*}; else layer=main; fi
    if [[ -z ${rank[$layer]:-} ]]; then
        echo "host/$rel: not in a layer folder (${!rank[*]})"
        bad=1
        continue
    fi
    while IFS=: read -r line kind inc; do
        if [[ $kind == a ]]; then
            check_angle "host/$rel" "$line" "$inc"
            continue
        fi
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
        if [[ -z $to ]]; then
            if [[ -n ${pluginhdr[$inc]:-} ]]; then
                echo "host/$rel:$line: includes \"$inc\" of ${pluginhdr[$inc]}/: host code never includes plugin sources"
            else
                echo "host/$rel:$line: includes \"$inc\": no header of that name in host/ (a system or SDK header goes in <...>)"
            fi
            bad=1
            continue
        fi
        [[ $to == "$layer" ]] && continue
        if ((${rank[$to]} >= ${rank[$layer]})); then
            echo "host/$rel:$line: includes \"$inc\" from host/$to/: $layer may use only the layers below it"
            bad=1
        fi
    done < <(includes "$src")
done < <(find "$host" \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) | sort)

# The workspace fence: the host's ws layer is the one owner of the
# workspace (its .vtcode/ layout, the set-aside, the records, the watch on
# it), offered to plugins as the service vt_wsindex_v1 and the host events
# (VT_EVENTS_SERVICE).  A plugin that names the layout in a string (a
# path with .vtcode in it) or watches the workspace itself (inotify)
# reaches around the service.  Comment lines are not looked at.
check_ws_fence() { # check_ws_fence FILE REL
    local file=$1 rel=$2 line text
    while IFS=: read -r line text; do
        if [[ $text =~ inotify_(init|init1|add_watch)[[:space:]]*\( || $text =~ \<sys/inotify\.h\> ]]; then
            echo "plugins/$rel:$line: watches the workspace with inotify: the host's workspace index does (subscribe to VT_EVENT_WORKSPACE_CHANGED through VT_EVENTS_SERVICE)"
            bad=1
        fi
        if grep -o '"\([^"\\]\|\\.\)*"' <<< "$text" | grep -q '\.vtcode'; then
            echo "plugins/$rel:$line: names the workspace's .vtcode layout: ask the host's workspace service (vt_wsindex_v1: protected_names, prepare, set_aside)"
            bad=1
        fi
    done < <(grep -n 'inotify\|\.vtcode' "$file" | grep -Ev '^[0-9]+:[[:space:]]*(/\*|\*([[:space:]/]|$)|//)' || true)
}

# plugins/
if [[ -d $plugins ]]; then
    while IFS= read -r src; do
        rel=${src#"$plugins/"}
        if [[ $rel != */* ]]; then
            echo "plugins/$rel: not in a plugin folder"
            bad=1
            continue
        fi
        dir=${src%/*}
        check_ws_fence "$src" "$rel"
        while IFS=: read -r line kind inc; do
            if [[ $kind == a ]]; then
                check_angle "plugins/$rel" "$line" "$inc"
                continue
            fi
            if [[ $inc == */* ]]; then
                echo "plugins/$rel:$line: includes \"$inc\": a plugin includes only its own folder's headers by name, and the SDK as <vthost/...>"
                bad=1
                continue
            fi
            [[ -f $dir/$inc ]] && continue
            if [[ -n ${home[$inc]:-} ]]; then
                echo "plugins/$rel:$line: includes \"$inc\" of host/${home[$inc]}/: a plugin reaches the host only through the SDK"
            elif [[ -n ${pluginhdr[$inc]:-} ]]; then
                echo "plugins/$rel:$line: includes \"$inc\" of ${pluginhdr[$inc]}/: a plugin includes only its own folder (another plugin is reached through a service)"
            else
                echo "plugins/$rel:$line: includes \"$inc\": not a header of its folder (a system or SDK header goes in <...>)"
            fi
            bad=1
        done < <(includes "$src")
    done < <(find "$plugins" \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) | sort)
fi

if ((bad)); then
    echo "check_layers: FAILED (the include fences: docs/internals.md)"
    exit 1
fi
echo "check_layers: ok"
