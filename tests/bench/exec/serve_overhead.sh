#!/usr/bin/env bash
# Overhead of exec_command through one running `vthost serve` (MCP over
# stdio, one call at a time as a client would send them) against the same
# number of fork/exec of `sh -c true` from a small C driver.
#   tests/bench/exec/serve_overhead.sh build-x [N]
set -eu
BUILD=${1:?usage: serve_overhead.sh BUILD_DIR [N]}
N=${2:-200}
WS=$(mktemp -d /tmp/vthost-exec-serve-XXXXXX)
trap 'rm -rf "$WS"' EXIT
printf '[permissions]\nallow = ["exec_command", "write_stdin"]\n' > "$WS/vtcode.toml"

coproc HOST { "$BUILD/bin/vthost" ${VTHOST_TEST_PROFILE:+--profile "$VTHOST_TEST_PROFILE"} \
                --workspace "$WS" serve 2>/dev/null; }
send() { printf '%s\n' "$1" >&"${HOST[1]}"; }
await() { # read lines until the response with id $1
    local line
    while IFS= read -r line <&"${HOST[0]}"; do
        case $line in *"\"id\":$1,"*) REPLY=$line; return 0;; esac
    done
    return 1
}
send '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
await 0
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
call() {
    send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"exec_command\",\"arguments\":{\"cmd\":\"true\",\"shell\":\"$2\"}}}"
    await "$1"
    case $REPLY in *'"exit_code":0'*) ;; *) echo "call $1 failed: $REPLY" >&2; exit 1;; esac
}
id=1
for shell in /bin/sh /bin/bash; do
    call $((id++)) "$shell" # warm-up
    t0=$(date +%s.%N)
    for _ in $(seq "$N"); do call $((id++)) "$shell"; done
    t1=$(date +%s.%N)
    host=$(echo "$t1 - $t0" | bc -l)
    base=$("$BUILD/tests/exec_bench" forkexec "$N" "$shell")
    printf 'serve overhead %-9s: %d exec_command calls %.3f s (%.2f ms each); %d fork/exec %.3f s (%.2f ms each); ratio %.2fx\n' \
        "$shell" "$N" "$host" "$(echo "$host * 1000 / $N" | bc -l)" "$N" "$base" \
        "$(echo "$base * 1000 / $N" | bc -l)" "$(echo "$host / $base" | bc -l)"
done
exec {HOST[1]}>&-
wait "$HOST_PID" 2>/dev/null || true
