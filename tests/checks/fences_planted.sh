#!/usr/bin/env bash
# Each fence refuses a planted violation: upward and cross-plugin includes
# (tools/check_layers.sh, on a scratch copy of host/, plugins/ and the SDK
# headers), and upward, plugin-to-host and cross-plugin uses through
# hand-written prototypes or linked-in sources (tools/check_symbols.sh, on
# a scratch copy of the built layer libraries and plugin modules).  Each
# copy first passes unchanged, so a refusal is the plant's doing.
#
# Usage: fences_planted.sh SOURCE_ROOT BUILD_DIR
set -euo pipefail
src=$(cd "${1:?usage: fences_planted.sh SOURCE_ROOT BUILD_DIR}" && pwd)
build=$(cd "${2:?usage: fences_planted.sh SOURCE_ROOT BUILD_DIR}" && pwd)
layers="$src/tools/check_layers.sh"
symbols="$src/tools/check_symbols.sh"
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect_refused WHAT PATTERN CMD...: CMD exits 1 and prints PATTERN.
expect_refused() {
    local what=$1 pattern=$2 rc=0
    shift 2
    "$@" > "$tmp/out" 2>&1 || rc=$?
    if [[ $rc -eq 1 ]] && grep -qF -- "$pattern" "$tmp/out"; then
        echo "ok: refused: $what"
    else
        echo "FAIL: not refused ($rc): $what; expected: $pattern"
        sed 's/^/  | /' "$tmp/out"
        failures=$((failures + 1))
    fi
}
expect_passes() { # expect_passes WHAT CMD...
    local what=$1
    shift
    if "$@" > "$tmp/out" 2>&1; then
        echo "ok: passes: $what"
    else
        echo "FAIL: $what does not pass"
        sed 's/^/  | /' "$tmp/out"
        exit 1
    fi
}

# --- includes -----------------------------------------------------------
s="$tmp/src"
mkdir -p "$s/sdk" "$s/tools"
cp -a "$src/host" "$src/plugins" "$s/"
cp -a "$src/sdk/include" "$s/sdk/"
expect_passes "the unchanged copy of the sources" "$layers" "$s"

# plant_include FILE LINE: append LINE to FILE of the copy, run the check,
# put FILE back.
plant_include() {
    local file=$1 line=$2 what=$3 pattern=$4
    cp "$s/$file" "$tmp/saved"
    printf '%s\n' "$line" >> "$s/$file"
    expect_refused "$what" "$pattern" "$layers" "$s"
    cp "$tmp/saved" "$s/$file"
}
plant_include plugins/stdin/stdin_plugin.c '#include "../../host/call/pipeline.h"' \
    "a plugin includes a host header by relative path" \
    'plugins/stdin/stdin_plugin.c:'
plant_include plugins/stdin/stdin_plugin.c '#include "../../host/call/pipeline.h"' \
    "(its message)" 'includes "../../host/call/pipeline.h": a plugin includes only its own folder'
plant_include plugins/stdin/stdin_plugin.c '#include <pipeline.h>' \
    "a plugin includes a host header as <...>" 'includes <pipeline.h>, a header of host/call/'
plant_include plugins/stdin/stdin_plugin.c '#include <call/pipeline.h>' \
    "a plugin includes a host header as <layer/name.h>" 'includes <call/pipeline.h>: a project header by path'
plant_include plugins/stdin/stdin_plugin.c '#include "splitter.h"' \
    "a plugin includes another plugin's header by name" 'includes "splitter.h" of plugins/exec/'
plant_include plugins/stdin/stdin_plugin.c '#include <vthost/no_such_contract.h>' \
    "a plugin includes an SDK header that does not exist" 'no such SDK header'
plant_include host/util/strutil.c '#include "pipeline.h"' \
    "util includes a header of call (upward)" 'includes "pipeline.h" from host/call/: util may use only the layers below it'
plant_include host/util/strutil.c '#include <host.h>' \
    "util includes a header of core as <...>" 'includes <host.h>, a header of host/core/'
plant_include host/util/strutil.c '#include "no_such_header.h"' \
    "host code includes a quoted name that is nowhere in host/" 'includes "no_such_header.h": no header of that name in host/'
plant_include host/core/host.c '#include "sandbox.h"' \
    "host code includes a plugin header by name" 'host code never includes plugin sources'
# The workspace fence: the host's ws layer owns the workspace; a plugin
# reaches it only through the workspace service and the host events.
plant_include plugins/stdin/stdin_plugin.c '#include "ws_check.h"' \
    "a plugin includes a header of host/ws" 'includes "ws_check.h" of host/ws/'
plant_include plugins/stdin/stdin_plugin.c '#include <sys/inotify.h>' \
    "a plugin includes the inotify header" 'stdin_plugin.c:'
plant_include plugins/stdin/stdin_plugin.c 'static int planted_watch(void) { return inotify_init1(0); }' \
    "a plugin starts a watcher of its own" 'watches the workspace with inotify'
plant_include plugins/stdin/stdin_plugin.c 'static const char planted_aside[] = "%s/.vtcode/set-aside";' \
    "a plugin names the .vtcode layout" 'names the workspace'"'"'s .vtcode layout'
plant_include plugins/exec/session.c '    const char *planted = sb_fmt("%s/.vtcode", ws);' \
    "the exec plugin builds a .vtcode path again" 'plugins/exec/session.c:'

# --- symbols ------------------------------------------------------------
b="$tmp/build"
mkdir -p "$b/host" "$b/lib/vthost" "$b/plugins"
cp -a "$build"/host/libvthost_*.a "$b/host/"
cp -a "$build/lib/vthost/plugins" "$b/lib/vthost/"
grep '^CMAKE_HOME_DIRECTORY:INTERNAL=' "$build/CMakeCache.txt" > "$b/CMakeCache.txt"
cmake_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$b/CMakeCache.txt")
allow="$tmp/allow.txt" # no accepted uses: every plant must be refused
: > "$allow"
expect_passes "the unchanged copy of the build" "$symbols" "$b" "$allow"

# An upward call through a hand-written prototype, in util: it compiles
# (no header needed) and the executable, which links every layer, links it.
cat > "$tmp/planted_up.c" << 'C'
int host_open(); /* core's, declared by hand */
int planted_upward(void) { return host_open(); }
C
"$cc" -c -fPIC "$tmp/planted_up.c" -o "$tmp/planted_up.c.o"
cp "$b/host/libvthost_util.a" "$tmp/util.a"
ar q "$b/host/libvthost_util.a" "$tmp/planted_up.c.o"
expect_refused "util calls core's host_open through a hand-written prototype" \
    'host/util (planted_up.c): uses host_open, defined in host/core/' "$symbols" "$b" "$allow"
cp "$tmp/util.a" "$b/host/libvthost_util.a"

# A sibling call: cli calls a function of the MCP engine (mcp's first
# global function, whatever it is called today).
side=$(nm --defined-only "$b/host/libvthost_mcp.a" 2> /dev/null | awk '$2 == "T" && !f {print $3; f = 1}')
if [[ -z $side ]]; then
    echo "FAIL: libvthost_mcp.a defines no function to call"
    exit 1
fi
printf 'int %s(); /* mcp'"'"'s, declared by hand */\nint planted_sideways(void) { return %s(); }\n' \
    "$side" "$side" > "$tmp/planted_side.c"
"$cc" -c -fPIC "$tmp/planted_side.c" -o "$tmp/planted_side.c.o"
cp "$b/host/libvthost_cli.a" "$tmp/cli.a"
ar q "$b/host/libvthost_cli.a" "$tmp/planted_side.c.o"
expect_refused "cli calls mcp's $side (a sibling) through a hand-written prototype" \
    "host/cli (planted_side.c): uses $side, defined in host/mcp/" "$symbols" "$b" "$allow"
cp "$tmp/cli.a" "$b/host/libvthost_cli.a"

mods="$b/lib/vthost/plugins"
cp "$mods/stdin.so" "$tmp/stdin.so"
# A plugin calls the host through a hand-written prototype instead of vt_host_api.
cat > "$tmp/planted_plugin_up.c" << 'C'
int pipeline_call(); /* call's, declared by hand */
int planted_plugin_upward(void) { return pipeline_call(); }
C
"$cc" -shared -fPIC "$tmp/planted_plugin_up.c" -o "$mods/stdin.so"
expect_refused "a plugin calls the host's pipeline_call through a hand-written prototype" \
    'plugins/stdin (lib/vthost/plugins/stdin.so): uses pipeline_call, defined in host/call/' \
    "$symbols" "$b" "$allow"

# A plugin calls a function another plugin exports.
cat > "$tmp/planted_a.c" << 'C'
int planted_exported(void) { return 1; }
C
cat > "$tmp/planted_b.c" << 'C'
int planted_exported(void); /* plugin planted_a's, declared by hand */
int planted_cross(void) { return planted_exported(); }
C
"$cc" -shared -fPIC "$tmp/planted_a.c" -o "$mods/planted_a.so"
"$cc" -shared -fPIC "$tmp/planted_b.c" -o "$mods/stdin.so"
expect_refused "a plugin calls a function another plugin exports" \
    'plugins/stdin (lib/vthost/plugins/stdin.so): uses planted_exported, exported by plugins/planted_a' \
    "$symbols" "$b" "$allow"
rm -f "$mods/planted_a.so"

# A plugin compiles another plugin's source in (exec's splitter.c).
cat > "$tmp/planted_c.c" << 'C'
int planted_own(void) { return 0; }
C
"$cc" -shared -fPIC -g -D_GNU_SOURCE -I"$cmake_src/sdk/include" \
    "$cmake_src/plugins/exec/splitter.c" "$tmp/planted_c.c" -o "$mods/stdin.so"
expect_refused "a plugin links another plugin's source file in" \
    'plugins/stdin (lib/vthost/plugins/stdin.so): contains code of plugins/exec/splitter.c' \
    "$symbols" "$b" "$allow"
cp "$tmp/stdin.so" "$mods/stdin.so"

# An accepted use is let through by the allow-list, and only that one.
ar q "$b/host/libvthost_util.a" "$tmp/planted_up.c.o"
echo "host/util host_open  # planted: the allow-list is honoured" > "$allow"
expect_passes "an allow-listed upward use" "$symbols" "$b" "$allow"

if ((failures)); then
    echo "fences_planted: $failures plant(s) not refused"
    exit 1
fi
echo "fences_planted: every plant refused"
