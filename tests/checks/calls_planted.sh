#!/usr/bin/env bash
# tools/check_calls.sh refuses a second home for a helper: a private
# clock, XDG reader, mkdir -p, realloc growth, libcrypto opening or a
# command-ran note sent as JSON text planted
# in a scratch copy of host/, plugins/ and the SDK headers is refused with
# the file, the line and the helper to use; the copy first passes
# unchanged, so each refusal is the plant's doing.  A stale line of the
# allow-list (a file that no longer makes the call) is refused too.
#
# Usage: calls_planted.sh SOURCE_ROOT
set -euo pipefail
src=$(cd "${1:?usage: calls_planted.sh SOURCE_ROOT}" && pwd)
check="$src/tools/check_calls.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
s="$tmp/src"
mkdir -p "$s/sdk" "$s/tools"
cp -a "$src/host" "$src/plugins" "$s/"
cp -a "$src/sdk/include" "$s/sdk/"
cp "$src/tools/calls-allow.txt" "$s/tools/"

expect_refused() { # expect_refused WHAT PATTERN
    local rc=0
    "$check" "$s" > "$tmp/out" 2>&1 || rc=$?
    if [[ $rc -eq 1 ]] && grep -qF -- "$2" "$tmp/out"; then
        echo "ok: refused: $1"
    else
        echo "FAIL: not refused ($rc): $1; expected: $2"
        sed 's/^/  | /' "$tmp/out"
        failures=$((failures + 1))
    fi
}
if ! "$check" "$s" > "$tmp/out" 2>&1; then
    echo "FAIL: the unchanged copy does not pass"
    sed 's/^/  | /' "$tmp/out"
    exit 1
fi
echo "ok: passes: the unchanged copy of the sources"

# plant FILE TEXT WHAT PATTERN: append TEXT to FILE of the copy, run the
# check, put FILE back.
plant() {
    local file=$1 text=$2
    cp "$s/$file" "$tmp/saved"
    printf '%s\n' "$text" >> "$s/$file"
    expect_refused "$3" "$4"
    cp "$tmp/saved" "$s/$file"
}
n=$(($(wc -l < "$s/host/perm/perm_review.c") + 2))
plant host/perm/perm_review.c $'\nstatic long planted_clock(void)\n{\n    struct timespec t;\n    clock_gettime(CLOCK_MONOTONIC, &t);\n    return t.tv_sec;\n}' \
    "a second clock in the host" \
    "host/perm/perm_review.c:$((n + 3)): clock: allowed only in host/util/monotime.c, sdk/include/vthost/clock.h"
plant plugins/stdin/stdin_plugin.c $'static void planted(struct timespec *t) { clock_gettime(CLOCK_REALTIME, t); }' \
    "a private clock in a plugin" "plugins/stdin/stdin_plugin.c:"
plant host/core/host.c $'static const char *planted(void) { return getenv("XDG_CONFIG_HOME"); }' \
    "a private reader of XDG_CONFIG_HOME" "host/core/host.c:"
plant host/core/host.c $'static const char *planted(void) { return getenv("XDG_CONFIG_HOME"); }' \
    "(its message)" "xdg: allowed only in host/util/paths.c"
plant host/cli/cli.c $'static int planted_mkdirs(const char *dir)\n{\n    return mkdir(dir, 0700);\n}' \
    "a private mkdir -p" "host/cli/cli.c:"
plant host/call/pipeline.c $'static void *planted(void *p, size_t n) { return realloc(p, n); }' \
    "a hand-grown array" "realloc: allowed only in sdk/include/vthost/grow.h, host/util/strbuf.c"
plant host/mcp/mcp_server.c $'static const char *planted = "libcrypto.so.3";' \
    "libcrypto opened in a second place" "libcrypto: allowed only in host/util/crypto_lib.c"
plant host/util/log.c $'static int planted(char **s, const char *f, va_list ap) { return vasprintf(s, f, ap); }' \
    "a second vasprintf" "vasprintf: allowed only in host/util/strutil.c"
plant plugins/exec/session.c $'static void planted(vt_call *c) { api->note(c, VT_NOTE_COMMAND_RAN, "{\\"command\\":\\"make\\"}", 0); }' \
    "the command-ran note sent as JSON text" "jsonnote: allowed only in host/call/guard.c"
plant plugins/stdin/stdin_plugin.c $'static void planted(vt_call *c) { api->note(c, 3, "{}", 0); }' \
    "the JSON note sent by its number" "plugins/stdin/stdin_plugin.c:"
plant plugins/mcp_providers/cache.c $'static const char *planted(void) { return cJSON_GetErrorPtr(); }' \
    "cJSON's process-wide parse error read" "cjson_error_ptr: not to be used in this tree"
# a commented-out call is not a call
cp "$s/host/core/host.c" "$tmp/saved"
printf '%s\n' '/* clock_gettime(CLOCK_MONOTONIC, &t) is monotime.c'"'"'s job */' >> "$s/host/core/host.c"
if "$check" "$s" > "$tmp/out" 2>&1; then
    echo "ok: passes: a call named in a comment"
else
    echo "FAIL: a call named in a comment is refused"
    sed 's/^/  | /' "$tmp/out"
    failures=$((failures + 1))
fi
cp "$tmp/saved" "$s/host/core/host.c"
# a stale allow-list line
echo "clock      host/core/host.c" >> "$s/tools/calls-allow.txt"
expect_refused "an allow-list line for a file that makes no such call" \
    '"clock host/core/host.c" is listed but makes no such call any more'

if ((failures)); then
    echo "calls_planted: $failures plant(s) not refused"
    exit 1
fi
echo "calls_planted: every plant refused"
