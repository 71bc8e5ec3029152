#!/usr/bin/env bash
# The host under valgrind: no leaks, no invalid accesses, across loading
# (with every refused fixture plugin), calls, budget cuts and failures.
set -u
V=$1 FIX=$2 PROF=$3
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install -y valgrind)"; exit 1; }
WS=$(mktemp -d)
trap 'rm -rf "$WS"' EXIT
cd "$WS"
fails=0
# The fixture tools are allowed by a global rule; permissions have tests of their own.
CFG=$(mktemp)
trap 'rm -rf "$WS" "$CFG"' EXIT
printf '[permissions]\nallow = ["fx_echo", "fx_output", "fx_fail", "fx_picky", "fx_gated", "fx_hidden"]\n' > "$CFG"
vg() {
    # Plugins stay mapped so leak reports can name their functions.
    VTHOST_NO_DLCLOSE=1 valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
        "$V" --config "$CFG" --profile "$PROF" --plugin-dir "$FIX" "$@" >/dev/null 2>"$WS/vg.log"
    local rc=$?
    if [ $rc -eq 99 ]; then
        echo "FAIL valgrind: $*"; cat "$WS/vg.log"; fails=$((fails + 1))
    else
        echo "ok   $* (exit $rc)"
    fi
}
vg plugins
vg tools --format mcp
vg call fx_echo '{"text":"hi"}'
vg call fx_output '{"bytes":300000,"max_output_tokens":50}'
vg call fx_output '{"bytes":3000,"plain":true,"max_output_tokens":5}'
vg call fx_fail '{}'
vg call fx_picky '{"word":"no"}'
vg call fx_echo '{"n":"x"}'
vg call no_such_tool '{}'
vg explain fx_echo '{}'
echo "failures: $fails"
[ "$fails" -eq 0 ]
