#!/usr/bin/env bash
# A host killed while its sessions run leaves no process behind: SIGKILL
# (parent-death signal to the session's supervisor) and SIGTERM (the
# host's own shutdown).  The command forks (a background job and a
# foreground child), so the whole process group must go, not just the
# shell.
set -u
VTHOST=${1:?usage: host_killed.sh path/to/vthost}
WS=$(mktemp -d /tmp/vthost-exec-killed-XXXXXX)
trap 'rm -rf "$WS"' EXIT
printf '[permissions]\nallow = ["exec_command", "write_stdin"]\n' > "$WS/vtcode.toml"
fail=0

count() { pgrep -f "sleep $1" | wc -l; }

for sig in KILL TERM; do
    marker="29$RANDOM.$$"
    for tty in false true; do
        "$VTHOST" ${VTHOST_TEST_PROFILE:+--profile "$VTHOST_TEST_PROFILE"} --workspace "$WS" --config "$WS/vtcode.toml" \
            call exec_command "{\"cmd\":\"sleep $marker & sleep $marker; echo never\",\"tty\":$tty,\"yield_time_ms\":30000}" \
            > "$WS/out" 2>&1 &
        host=$!
        for _ in $(seq 100); do
            [ "$(count "$marker")" -ge 2 ] && break
            sleep 0.05
        done
        if [ "$(count "$marker")" -lt 2 ]; then
            echo "FAIL: the command did not start (signal $sig, tty $tty)"; cat "$WS/out"
            fail=1
        fi
        kill -"$sig" "$host"
        wait "$host" 2>/dev/null
        for _ in $(seq 60); do
            [ "$(count "$marker")" -eq 0 ] && break
            sleep 0.05
        done
        left=$(count "$marker")
        if [ "$left" -ne 0 ]; then
            echo "FAIL: $left process(es) left after SIG$sig (tty $tty)"; pgrep -af "sleep $marker"
            pkill -f "sleep $marker"
            fail=1
        else
            echo "ok: SIG$sig, tty $tty: no process left"
        fi
    done
done
# `vthost serve` holding an idle session (the call already returned its
# session_id): the host's shutdown (SIGTERM) and its death (SIGKILL) both
# end the session's group.
for sig in TERM KILL; do
    marker="28$RANDOM.$$"
    # the last round's output goes first: the background job truncates
    # its file only once it runs, and the wait below must not read the old one
    rm -f "$WS/in" "$WS/serve.out"
    mkfifo "$WS/in"
    "$VTHOST" ${VTHOST_TEST_PROFILE:+--profile "$VTHOST_TEST_PROFILE"} --workspace "$WS" --config "$WS/vtcode.toml" serve \
        < "$WS/in" > "$WS/serve.out" 2>&1 &
    host=$!
    {
        printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
        printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
        printf '%s\n' "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"exec_command\",\"arguments\":{\"cmd\":\"sleep $marker & sleep $marker\",\"yield_time_ms\":250}}}"
        exec sleep 30 # keeps the server's input open
    } > "$WS/in" 2>/dev/null &
    writer=$!
    for _ in $(seq 100); do
        grep -q '"id":2' "$WS/serve.out" 2>/dev/null && break
        sleep 0.05
    done
    if ! grep -q '"session_id"' "$WS/serve.out"; then
        echo "FAIL: serve did not return a session (signal $sig)"; cat "$WS/serve.out"
        fail=1
    fi
    kill -"$sig" "$host"
    for _ in $(seq 60); do
        [ "$(count "$marker")" -eq 0 ] && break
        sleep 0.05
    done
    left=$(count "$marker")
    if [ "$left" -ne 0 ]; then
        echo "FAIL: $left process(es) left after serve got SIG$sig"; pgrep -af "sleep $marker"
        pkill -f "sleep $marker"
        fail=1
    else
        echo "ok: serve, SIG$sig: no process left"
    fi
    kill "$writer" 2>/dev/null
    wait "$host" "$writer" 2>/dev/null
done
exit $fail
