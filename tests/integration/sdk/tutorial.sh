#!/usr/bin/env bash
# docs/sdk.md's tutorial, executed as written: from an empty folder,
# against an installed prefix (cmake --install of this build), every
# ```sh block of its numbered steps is run in order in one shell, and
# every code block announced by a `FILE`: line is written to FILE.  The
# only liberties: a leading "sudo " is dropped (the prefix is ours), and
# PKG_CONFIG_PATH points at the prefix, as the tutorial says to do for a
# prefix other than /usr.  Then an MCP client finds the tool with
# search_tools and calls it through `vthost serve`.
set -u
BUILD=$1 CMAKE=$2 DOC=$3 NODE=${4:-node}
umask 022
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh" # check, check_not, check_eq
die() { echo "FAIL $*"; exit 1; }

"$CMAKE" --install "$BUILD" --prefix "$T/prefix" >"$T/install.log" 2>&1 ||
    { cat "$T/install.log"; die "cmake --install"; }
P=$T/prefix
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
export PATH="$P/bin:$PATH" PKG_CONFIG_PATH="$P/share/pkgconfig"
unset VTHOST_PLUGIN_PATH CMAKE_PREFIX_PATH
mkdir -p "$HOME" "$T/work"

# ---- the tutorial's steps as one script -------------------------------------
# mode: sh (a step to run), file (a file to write), skip (an illustration)
awk '
    /^## Building against the installed SDK/ { exit }
    mode != "" && /^```/ {
        if (mode == "file") print "VTHOST_TUTORIAL_EOF"
        mode = ""; next
    }
    mode == "sh" { sub(/^sudo /, ""); print; next }
    mode == "file" { print; next }
    mode == "skip" { next }
    /^```/ {
        lang = substr($0, 4)
        if (lang == "sh") mode = "sh"
        else if (pending != "") {
            mode = "file"
            printf "mkdir -p \"$(dirname %s)\"\ncat > %s <<'"'"'VTHOST_TUTORIAL_EOF'"'"'\n", pending, pending
        } else mode = "skip"
        pending = ""; next
    }
    /^`[^`]+`:$/ { pending = substr($0, 2, length($0) - 3); next }
    /^[^ ]/ { pending = "" }
' "$DOC" >"$T/steps.sh"
grep -q 'cc -shared' "$T/steps.sh" || die "no build step found in $DOC"
grep -q 'cat > hello.c' "$T/steps.sh" || die "no hello.c found in $DOC"
echo "---- the tutorial's steps, as run ----"
cat "$T/steps.sh"
echo "-------------------------------------"
out=$(cd "$T/work" && bash -e -x "$T/steps.sh" 2>&1); rc=$?
echo "$out" | sed 's/^/     /'
[[ $rc -eq 0 ]] && echo "ok   every step ran" || { echo "FAIL a step failed (exit $rc)"; fails=$((fails + 1)); }

f=$P/lib/vthost/plugins/hello.so
[[ -f "$f" ]] && echo "ok   hello.so installed in the host's plugin directory" ||
    { echo "FAIL hello.so not in $P/lib/vthost/plugins"; fails=$((fails + 1)); }
check "installed 0644" "644" "$(stat -c %a "$f" 2>&1)"
check "vthost plugins: loaded from its own directory" "loaded   hello" "$out"
check "vthost plugins: the tool is deferred" "deferred" "$(grep -E "^ +tool hello +" <<<"$out")"
check "search_tools finds it" '"name":"hello"' "$out"
check "the call greets" '"greeting":"Ada"' "$out"
check "no prompt was needed (the allow rule applies)" '"success":true' "$out"

# ---- the same tool from an agent, over MCP --------------------------------
VTHOST_BIN="$P/bin/vthost" TUTORIAL_DIR="$T/work/hello-plugin" TUTORIAL_HOME="$HOME" \
    "$NODE" "$(dirname "$0")/tutorial_mcp.mjs"; rc=$?
[[ $rc -eq 0 ]] && echo "ok   over MCP: found with search_tools, then called" ||
    { echo "FAIL over MCP (exit $rc)"; fails=$((fails + 1)); }

if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
