#!/usr/bin/env bash
# `vthost serve` under valgrind with the default profile's real plugins
# (exec, stdin, patch, search_tools, mcp_providers): one MCP session over
# stdio runs exec_command without and with a tty, write_stdin into both,
# apply_patch that succeeds and one that fails, search_tools, a malformed
# JSON line, a tool call that a deny rule refuses; then `vthost explain` of
# that denied command.  Fails on a definite or indirect leak or an invalid
# access (valgrind's exit code 99).
#
# Sandbox: valgrind (3.19) does not know the Landlock system calls, nor
# seccomp, pidfd_open or openat2: it warns and answers ENOSYS.  Without
# Landlock the approval presets `sandboxed` and `read-only` refuse to start
# and the default `[sandbox] mode` refuses every command, so the session
# runs with the `ask` preset, the tools allowed by the user config's allow
# rules and `[sandbox] mode = "danger-full-access"` (the run-time command
# checks are off too, without seccomp; the sandbox has its own tests).
# The commands' own processes are not traced (no --trace-children).
set -u
V=$(realpath "${1:?usage: valgrind_serve.sh path/to/vthost}")
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install -y valgrind)"; exit 1; }
ROOT=$(mktemp -d /tmp/vthost-vgserve-XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
WS=$ROOT/ws HOME=$ROOT/home
mkdir -p "$WS" "$HOME/.config/vtcode"
export HOME XDG_CONFIG_HOME=$HOME/.config
cat > "$HOME/.config/vtcode/vtcode.toml" <<'EOF'
[permissions]
allow = ["exec_command", "write_stdin", "apply_patch", "search_tools"]
deny = ["exec_command(rm -rf *)"]

[sandbox]
mode = "danger-full-access"
EOF
printf 'one\ntwo\n' > "$WS/kept.txt"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Plugins stay mapped so leak reports can name their functions.  Each
# process writes its own log: the host, and the session supervisors that
# exec forks from it (they run plugin code, then exit without exec).
mkdir "$ROOT/vg"
VG=(env VTHOST_NO_DLCLOSE=1 valgrind -q --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --log-file="$ROOT/vg/%p.log")
# Invalid accesses count in every process.  Leaks count in the host (its
# exit code) but not in the forked supervisors: a fork copies only the
# forking thread, so what the host's other threads held on their stacks at
# that moment (a reply the MCP writer thread is sending, say) is reported
# "definitely lost" in the child although nothing leaked.
ACCESS='Invalid (read|write|free)|Mismatched free|uninitialised|Syscall param|Source and destination overlap|signal 11|signal 6 |Access not within'
check_logs() { # check_logs WHAT MAINPID RC
    local f bad=0
    if [ "$3" -eq 99 ]; then
        fail "valgrind ($1): errors in the host"
        bad=1
    fi
    for f in "$ROOT"/vg/*.log; do
        [ -e "$f" ] || continue
        if [ "$f" = "$ROOT/vg/$2.log" ] && [ $bad -eq 1 ]; then
            grep -v '^--[0-9]*-- ' "$f"
        elif [ "$f" != "$ROOT/vg/$2.log" ] && grep -Eq "$ACCESS" "$f"; then
            fail "valgrind ($1): errors in a forked process"
            grep -v '^--[0-9]*-- ' "$f"
        fi
    done
    rm -f "$ROOT"/vg/*.log
}

coproc SRV { cd "$WS" && exec "${VG[@]}" "$V" --workspace "$WS" serve 2>"$ROOT/serve.err"; }
IN=${SRV[1]} OUT=${SRV[0]} PID=$SRV_PID
LAST=""
# send LINE: one line to the server.  call ID TOOL ARGS: a tools/call whose
# response (the line with that id) lands in $LAST; 120 s per response since
# valgrind is slow and the machine shared.
send() { printf '%s\n' "$1" >&"$IN"; }
await() {
    local line
    while IFS= read -r -t 120 line <&"$OUT"; do
        printf '%s\n' "$line" >>"$ROOT/responses"
        case $line in *"\"id\":$1,"* | *"\"id\":$1}"*)
            LAST=$line
            return 0
            ;;
        esac
    done
    LAST=""
    fail "no response to request $1"
    return 1
}
call() {
    send "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":$3}}"
    await "$1"
}
# The session id inside a tool result (the result text is escaped JSON).
session_of() { printf '%s' "$LAST" | grep -o 'session_id\\*"[: ]*[0-9]*' | grep -o '[0-9]*$' | head -n1; }
expect() { # expect WHAT PATTERN: $LAST holds PATTERN
    case $LAST in *$2*) echo "ok   $1" ;; *) fail "$1: ${LAST:0:400}" ;; esac
}

send '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"valgrind","version":"1"}}}'
await 1 && expect initialize '"serverInfo"'
send '{"jsonrpc":"2.0","method":"notifications/initialized"}'
send '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
await 2 && expect tools/list '"apply_patch"'

call 3 exec_command '{"cmd":"echo pipe-$((6*7))"}' && expect "exec_command (pipe)" 'pipe-42'
call 4 exec_command '{"cmd":"read a; echo got-$a","yield_time_ms":300}'
sid=$(session_of)
if [ -n "$sid" ]; then
    call 5 write_stdin "{\"session_id\":$sid,\"chars\":\"in\\n\",\"yield_time_ms\":5000}" && expect "write_stdin (pipe)" 'got-in'
else
    fail "exec_command (pipe) kept no session: ${LAST:0:400}"
fi
call 6 exec_command '{"cmd":"echo tty-$((6*7)); tty >/dev/null && echo is-a-tty","tty":true}' && expect "exec_command (tty)" 'is-a-tty'
call 7 exec_command '{"cmd":"cat","tty":true,"yield_time_ms":300}'
sid=$(session_of)
if [ -n "$sid" ]; then
    call 8 write_stdin "{\"session_id\":$sid,\"chars\":\"typed\\n\",\"yield_time_ms\":1000}" && expect "write_stdin (tty)" 'typed'
    call 9 write_stdin "{\"session_id\":$sid,\"chars\":\"\\u0004\",\"yield_time_ms\":5000}" && expect "write_stdin (tty, EOF)" 'exit_code'
else
    fail "exec_command (tty) kept no session: ${LAST:0:400}"
fi
# A session still running when the host ends must be freed too.
call 10 exec_command '{"cmd":"sleep 60","yield_time_ms":250}' && expect "exec_command (left running)" 'session_id'

call 11 apply_patch '{"input":"*** Begin Patch\n*** Add File: new.txt\n+added\n*** Update File: kept.txt\n@@\n one\n-two\n+three\n*** End Patch"}'
expect "apply_patch (success)" 'new.txt'
[ "$(cat "$WS/new.txt" 2>/dev/null)" = added ] || fail "apply_patch did not write new.txt"
call 12 apply_patch '{"input":"*** Begin Patch\n*** Update File: kept.txt\n@@\n-not there\n+x\n*** End Patch"}'
expect "apply_patch (failure)" '"isError":true'
[ "$(cat "$WS/kept.txt")" = "$(printf 'one\nthree')" ] || fail "the failed patch changed kept.txt"
call 13 apply_patch '{"input":"*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch"}'
expect "apply_patch (outside the workspace)" '"isError":true'
[ -e "$ROOT/escape.txt" ] && fail "apply_patch wrote outside the workspace"

call 14 search_tools '{"query":"run a shell command","detail_level":"full"}' && expect search_tools 'exec_command'
call 15 exec_command '{"cmd":"rm -rf victim"}' && expect "exec_command (denied)" '"isError":true'

send '{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":'
send '{"jsonrpc":"2.0","id":17,"method":"ping"}'
if await 17; then
    grep -q -- '-32700' "$ROOT/responses" && echo "ok   malformed line: parse error, then the session goes on" ||
        fail "no parse error (-32700) for the malformed line"
fi

# End of input: the host ends its sessions (the sleep) and exits.
exec {IN}>&-
wait "$PID"
rc=$?
echo "ok   serve ended (exit $rc)"
check_logs serve "$PID" $rc

# explain of the denied command, also under valgrind.
(cd "$WS" && exec "${VG[@]}" "$V" --workspace "$WS" explain exec_command '{"cmd":"rm -rf victim"}' \
    >"$ROOT/explain.out" 2>"$ROOT/explain.err") &
PID=$!
wait $PID
rc=$?
grep -q deny "$ROOT/explain.out" && echo "ok   explain of a denied command (exit $rc)" ||
    fail "explain does not say deny: $(head -c 400 "$ROOT/explain.out")"
check_logs explain "$PID" $rc
echo "failures: $fails"
[ "$fails" -eq 0 ]
