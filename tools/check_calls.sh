#!/usr/bin/env bash
# Calls allowed in one place only (in the spirit of curl's checksrc list of
# banned functions): each helper the tree has once stays once.  A rule
# names a call, the file(s) that may make it (the host's one home and, where
# plugins cannot link host/util, the plugins' one) and what to use instead;
# any other .c/.h/.cpp file of host/, plugins/ or sdk/include/ that makes
# the call is refused.
#
# A contract is a struct, not text to re-parse: the command-ran report
# goes through api->command_ran, and only the guard reads the old JSON note
# (for plugins built before ABI 1.11).
#
# Lines that are comments (starting with /*, * or //) are not read.
# tools/calls-allow.txt lists the uses not folded yet, one "RULE FILE  #
# reason" a line; the list only shrinks: a file added to it needs a reason
# a reviewer accepts, and a listed file that no longer makes the call is
# reported so that its line is removed.
#
# Usage: tools/check_calls.sh [SOURCE_ROOT [ALLOW_FILE]]
# Prints one line per violation (file:line: what) and exits 1 if any.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${1:-"$(cd "$here/.." && pwd)"}
allow_file=${2:-"$root/tools/calls-allow.txt"}
bad=0

# name|extended regular expression|homes (space-separated; - for none)|use instead
rules=(
    'clock|\bclock_gettime[[:space:]]*\(|host/util/monotime.c sdk/include/vthost/clock.h|mono_now_us, mono_deadline_ms, wall_now (host/util/monotime.h); in a plugin <vthost/clock.h>'
    'xdg|getenv[[:space:]]*\([[:space:]]*"XDG_|host/util/paths.c|paths_xdg_dir (host/util/paths.h)'
    'vasprintf|\bvasprintf[[:space:]]*\(|host/util/strutil.c|str_vprintf (host/util/strutil.h); in a plugin api->vformat, in code without the host vt_vformat (<vthost/format.h>)'
    'mkdirs|^[A-Za-z_][A-Za-z0-9_ *]*[^A-Za-z0-9_]?[A-Za-z0-9_]*mkdir[A-Za-z0-9_]*[[:space:]]*\([^;]*$|host/util/paths.c host/util/paths.h host/util/beneath.c host/util/beneath.h plugins/exec/sandbox_paths.c plugins/exec/sandbox_int.h|paths_mkdirs (host/util/paths.h) or beneath_mkdirs (host/util/beneath.h)'
    'realloc|\brealloc[[:space:]]*\(|sdk/include/vthost/grow.h host/util/strbuf.c|VT_GROW (<vthost/grow.h>) for arrays; strbuf (host/util/strbuf.h) or in a plugin api->strbuf_append for text'
    'jsonnote|VT_NOTE_COMMAND_RAN|->note[[:space:]]*\([^,]*,[[:space:]]*3[[:space:]]*,|host/call/guard.c sdk/include/vthost/plugin.h|api->command_ran with a vt_command_ran (<vthost/plugin.h>), not the note as JSON text'
    'libcrypto|VTHOST_CRYPTO_SONAME|"libcrypto\.so|host/util/crypto_lib.c|crypto_lib.h, or digest.h for SHA-256, HMAC and base64url'
    # cJSON 1.7.15 keeps the last parse error in one process-wide global
    # that every parse on every thread overwrites: what it points at may be
    # another thread's text (tests/suppressions/helgrind.supp says why the
    # race on it is suppressed).
    'cjson_error_ptr|\bcJSON_GetErrorPtr[[:space:]]*\(|-|return_parse_end of cJSON_ParseWithLengthOpts (this thread'"'"'s own), or json_parse_document (host/util/json_exact.h)'
)

declare -A allowed used_allow
if [[ -f $allow_file ]]; then
    while read -r rule file _; do
        [[ -z $rule || $rule == \#* ]] && continue
        allowed["$rule $file"]=1
    done < "$allow_file"
fi

cd "$root"
mapfile -t files < <(find host plugins sdk/include \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) 2> /dev/null | sort)
for r in "${rules[@]}"; do
    IFS='|' read -r name pattern homes instead <<< "$r"
    # a rule's pattern may hold '|' itself: the last two fields are fixed
    n=$(awk -F'|' '{print NF}' <<< "$r")
    if ((n > 4)); then
        name=$(cut -d'|' -f1 <<< "$r")
        pattern=$(cut -d'|' -f2-$((n - 2)) <<< "$r")
        homes=$(cut -d'|' -f$((n - 1)) <<< "$r")
        instead=$(cut -d'|' -f"$n" <<< "$r")
    fi
    # "file:line:text" for every match, comments left out
    while IFS= read -r hit; do
        f=${hit%%:*}
        rest=${hit#*:}
        line=${rest%%:*}
        [[ " $homes " == *" $f "* ]] && continue
        if [[ -n ${allowed["$name $f"]:-} ]]; then
            used_allow["$name $f"]=1
            continue
        fi
        if [[ $homes == - ]]; then
            echo "$f:$line: $name: not to be used in this tree; use $instead"
        else
            echo "$f:$line: $name: allowed only in ${homes// /, }; use $instead"
        fi
        bad=1
    done < <(grep -nHE -- "$pattern" "${files[@]}" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/\*|\*|//)' || true)
done
for k in "${!allowed[@]}"; do
    if [[ -z ${used_allow[$k]:-} ]]; then
        echo "${allow_file#"$root/"}: \"$k\" is listed but makes no such call any more: remove the line"
        bad=1
    fi
done

if ((bad)); then
    echo "check_calls: FAILED (one home per helper: tools/check_calls.sh; not folded yet: ${allow_file#"$root/"})"
    exit 1
fi
echo "check_calls: ok"
