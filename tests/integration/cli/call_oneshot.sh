#!/usr/bin/env bash
# `vthost call` is one-shot: a command runs to its end whatever its
# yield_time_ms; --timeout ends it (exit 124, "timed_out": true); SIGINT
# and SIGTERM to the CLI end it (exit 128+N); no process is left behind;
# write_stdin is refused with a message saying why.
set -u
V=$(realpath "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config"
unset VTHOST_PLUGIN_PATH
mkdir -p "$HOME" "$T/ws"
cd "$T/ws"
printf '[permissions]\nallow = ["exec_command(*)"]\n' > vtcode.toml
fails=0
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh" # check, check_not, check_eq
now_ms() { date +%s%3N; }
# A process whose command line carries MARK, anywhere on the machine (the
# sandbox's PID namespace is visible from here).
alive() { pgrep -f -- "^$1" >/dev/null; }
call() { "$V" --config vtcode.toml "$@"; }

# ---- runs to the end, whatever the yield --------------------------------
t0=$(now_ms)
out=$(call call exec_command '{"cmd":"sleep 2; echo done","yield_time_ms":250}' 2>"$T/err"); rc=$?
el=$(( $(now_ms) - t0 ))
check_eq "long command: exit 0" 0 "$rc"
check "long command: its output" '"output":"done\n"' "$out"
check "long command: exited" '"is_exited":true' "$out"
check_eq "long command: no session id" "" "$(grep -o session_id <<<"$out")"
[[ $el -ge 1900 ]] && echo "ok   long command waited (${el} ms)" ||
    { echo "FAIL long command returned after ${el} ms"; fails=$((fails + 1)); }
out=$(call call exec_command '{"cmd":"exit 3"}' 2>/dev/null); rc=$?
check_eq "a failing command: the tool ran, exit 0" 0 "$rc"
check "a failing command: its exit code" '"exit_code":3' "$out"
out=$(call --format text call exec_command '{"cmd":"exit 3"}' 2>/dev/null); rc=$?
check_eq "a failing command, text format: exits with its status" 3 "$rc"
out=$(call --format text call exec_command '{"cmd":"echo fine"}' 2>/dev/null); rc=$?
check_eq "a command that succeeds, text format: exit 0" 0 "$rc"
t0=$(now_ms)
out=$(call --timeout 10 call exec_command '{"cmd":"echo quick"}' 2>/dev/null); rc=$?
# What a whole quick call costs here (start-up, sandbox; slower under
# sanitizers): the time limits below are that plus the timeout plus 1 s.
base=$(( $(now_ms) - t0 ))
check_eq "--timeout not reached: exit 0" 0 "$rc"
check "--timeout not reached: output" '"output":"quick\n"' "$out"

# ---- --timeout ------------------------------------------------------------
MARK=31.4159
t0=$(now_ms)
out=$(call --timeout 1 call exec_command "{\"cmd\":\"sleep $MARK\"}" 2>"$T/err"); rc=$?
el=$(( $(now_ms) - t0 ))
check_eq "timeout: exit 124" 124 "$rc"
check "timeout: response says so" '"timed_out":true' "$out"
check "timeout: not a success" '"success":false' "$out"
check "timeout: stderr says so" "timed out after 1 s" "$(cat "$T/err")"
[[ $el -lt $((base + 2000)) ]] && echo "ok   timeout ended within ${el} ms (a quick call: ${base} ms)" ||
    { echo "FAIL timeout took ${el} ms (a quick call: ${base} ms)"; fails=$((fails + 1)); }
sleep 0.2
alive "sleep $MARK" && { echo "FAIL timeout: sleep $MARK still runs"; pgrep -af "sleep $MARK";
                         fails=$((fails + 1)); } || echo "ok   timeout: the command is gone"
out=$(call --timeout 0.5 --format text call exec_command '{"cmd":"sleep 7.77"}' 2>&1); rc=$?
check_eq "fractional timeout, text format: exit 124" 124 "$rc"
for bad in 0 -1 abc 1e9 ''; do
    out=$(call --timeout "$bad" call exec_command '{"cmd":"true"}' 2>&1); rc=$?
    check_eq "--timeout '$bad': usage error" 2 "$rc"
done
out=$(call --timeout 5 tools 2>&1); rc=$?
check_eq "--timeout on tools: usage error" 2 "$rc"
check "--timeout on tools: says so" "does not apply to 'tools'" "$out"

# ---- signals to the CLI end the command -------------------------------------
for sig in INT TERM; do
    MARK=$([[ $sig == INT ]] && echo 42.4242 || echo 43.4343)
    # vthost itself in the background (not a function's subshell), so the
    # signal goes to the CLI.
    "$V" --config vtcode.toml call exec_command "{\"cmd\":\"sleep $MARK\"}" >"$T/out" 2>"$T/err" &
    pid=$!
    for _ in $(seq 100); do alive "sleep $MARK" && break; sleep 0.05; done
    alive "sleep $MARK" || { echo "FAIL $sig: the command never started"; fails=$((fails + 1)); }
    t0=$(now_ms)
    kill -"$sig" "$pid"
    wait "$pid"; rc=$?
    el=$(( $(now_ms) - t0 ))
    want=$([[ $sig == INT ]] && echo 130 || echo 143)
    check_eq "SIG$sig: exit $want" "$want" "$rc"
    check "SIG$sig: response says interrupted" '"interrupted":true' "$(cat "$T/out")"
    check "SIG$sig: not a success" '"success":false' "$(cat "$T/out")"
    [[ $el -lt $((base + 1000)) ]] && echo "ok   SIG$sig ended the call within ${el} ms" ||
        { echo "FAIL SIG$sig took ${el} ms"; fails=$((fails + 1)); }
    sleep 0.2
    alive "sleep $MARK" && { echo "FAIL SIG$sig: sleep $MARK still runs"; fails=$((fails + 1)); } ||
        echo "ok   SIG$sig: the command is gone"
done

# ---- write_stdin has no session to write to -------------------------------------
out=$(call call write_stdin '{"session_id":1,"chars":"x"}' 2>&1); rc=$?
check_eq "write_stdin: usage error" 2 "$rc"
check "write_stdin: says why" "sessions live only in \`vthost serve\`" "$out"

echo "$fails failure(s)"
[[ $fails -eq 0 ]]
