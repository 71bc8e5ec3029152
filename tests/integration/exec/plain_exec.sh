#!/bin/bash
# A command of plain words runs without the shell, and only where the
# shell could not have changed what it does (docs/tools.md, exec_command):
# the shell is a wrapper named bash that leaves a mark whenever it runs.
# Every exclusion must still run it; a plain command must not; a program
# the rules deny stays denied on the direct path (its victim file stays).
# Usage: plain_exec.sh VTHOST
set -u
V=${1:?usage: plain_exec.sh VTHOST}
command -v jq >/dev/null || { echo "SKIP: jq is needed"; exit 77; }
BASH_REAL=$(readlink -f "$(command -v bash)")
DASH_REAL=$(readlink -f "$(command -v dash || command -v sh)")
WS=$(mktemp -d /tmp/vthost-plainexec-XXXXXX)
SH=$(mktemp -d /tmp/vthost-plainexec-sh-XXXXXX)
trap 'rm -rf "$WS" "$SH"' EXIT
chmod 755 "$WS" "$SH"
fails=0
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
ok() { echo "ok: $1"; }
# The wrapper: named bash, so it stands for bash; it appends a line to a
# file outside the workspace the sandbox lets it write (the workspace).
printf '#!%s\necho x >> %s/shell_ran\nexec %s "$@"\n' "$BASH_REAL" "$WS" "$BASH_REAL" > "$SH/bash"
chmod 755 "$SH/bash"
conf() { # extra TOML lines
    printf '[permissions]\nallow = ["exec_command"]\n%s\n' "${1:-}" > "$WS/vtcode.toml"
}
json() { jq -nc --arg c "$1" '{cmd:$c, yield_time_ms:10000}'; }
call() { # shell cmd
    SHELL=$1 "$V" --workspace "$WS" --config "$WS/vtcode.toml" call --yes exec_command "$(json "$2")" 2>&1
}
runs() { if [[ -e $WS/shell_ran ]]; then wc -l < "$WS/shell_ran"; else echo 0; fi; }
conf

# plain words: the shell does not run, the program does
# Before Linux 6.14 a program run from its descriptor is named by the
# descriptor's number (ps, pkill), so vthost keeps the shell there: the
# same texts must then run it.
read -r kmaj kmin _ <<<"$(uname -r | tr '.-' '  ')"
direct=0
((kmaj > 6 || (kmaj == 6 && kmin >= 14))) && direct=1
before=$(runs)
out=$(call "$SH/bash" 'true')
[[ $out == *'"exit_code":0'* ]] || fail "true" "$out"
if ((direct)); then
    [[ $(runs) == "$before" ]] && ok "plain 'true' runs without the shell" ||
        fail "plain 'true'" "the shell ran"
else
    [[ $(runs) -gt $before ]] && ok "before Linux 6.14 plain 'true' runs through the shell" ||
        fail "plain 'true' on Linux $(uname -r)" "the shell did not run"
fi
out=$(call "$SH/bash" 'false')
[[ $out == *'"exit_code":1'* ]] || fail "false keeps its status" "$out"
# the program keeps its own name (ps, pkill), not its descriptor's number
comm=$(call "$DASH_REAL" 'cat /proc/self/comm' | jq -r .output)
[[ $comm == cat ]] && ok "the program is named by its file" || fail "comm" "'$comm'"
# a shell the call names runs as asked
before=$(runs)
out=$(SHELL=$BASH_REAL "$V" --workspace "$WS" --config "$WS/vtcode.toml" call --yes exec_command \
    "$(jq -nc --arg s "$SH/bash" '{cmd:"true", shell:$s}')" 2>&1)
[[ $(runs) -gt $before ]] && ok "the call's own shell runs" || fail "shell argument" "$out"
# under dash (which does not exec its last command) the program's parent
# is the session leader itself
stat=$(call "$DASH_REAL" 'cat /proc/self/stat' | jq -r .output)
ppid=$(sed 's/.*) //' <<<"$stat" | cut -d' ' -f2)
if ((direct)); then
    [[ $ppid == 1 ]] && ok "cat's parent is the session leader" ||
        fail "cat /proc/self/stat under dash" "parent $ppid: $stat"
fi

# anything the shell would treat otherwise goes through it
for cmd in 'true *' 'true ~' "true 'a'" 'true "a"' 'true \a' 'X=1 true' 'echo hi' 'pwd' \
    'cd /' 'true # c' 'true; true' 'true && true' 'true < /dev/null' 'true $HOME' 'true {a,b}' \
    'true [a]' 'true ?' '. /dev/null' ': x' 'command true' 'exec true' 'test -e /' \
    'printf x' 'kill -0 1' 'time true' $'true\ntrue' 'true `x`' 'true | true'; do
    before=$(runs)
    out=$(call "$SH/bash" "$cmd")
    [[ $(runs) -gt $before ]] || fail "shell for: $cmd" "it ran without the shell: $out"
done
ok "shell syntax, builtins and assignments still run the shell"

# what bash would read at start or import sends it through bash too
cat > "$WS/rc" <<EOF
echo sourced >> "$WS/rc_ran"
EOF
conf "[sandbox.env]
set = { BASH_ENV = \"$WS/rc\" }"
out=$(call "$BASH_REAL" 'true')
[[ -e $WS/rc_ran ]] && ok "BASH_ENV is still sourced" || fail "BASH_ENV" "not sourced: $out"
conf "[sandbox.env]
set = { SHELLOPTS = \"xtrace\" }"
out=$(call "$BASH_REAL" 'true')
[[ $out == *'+ true'* ]] && ok "SHELLOPTS=xtrace still traces" || fail "SHELLOPTS" "$out"
conf
out=$(env 'BASH_FUNC_true%%=() { echo function-won; }' SHELL="$BASH_REAL" "$V" --workspace "$WS" \
    --config "$WS/vtcode.toml" call exec_command "$(json true)" 2>&1)
[[ $out == *function-won* ]] && ok "an exported function named like the program wins" ||
    fail "exported function" "$out"

# not found: the shell's own message and 127, byte for byte
for sh in "$BASH_REAL" "$DASH_REAL"; do
    want=$("$sh" -c nosuch_program_x 2>&1)
    out=$(call "$sh" nosuch_program_x)
    [[ $(jq -r .output <<<"$out") == "$want" && $out == *'"exit_code":127'* ]] &&
        ok "not found under $(basename "$sh") as the shell says it" ||
        fail "not found under $sh" "want '$want', got $out"
done

# the environment the program sees is the one bash and dash give it
for sh in "$BASH_REAL" "$DASH_REAL"; do
    direct=$(call "$sh" env | jq -r .output | grep -v '^_=' | sort)
    shelled=$(call "$sh" 'env;' | jq -r .output | grep -v '^_=' | sort)
    [[ $direct == "$shelled" ]] && ok "env under $(basename "$sh") is the same" ||
        fail "env under $sh" "$(diff <(echo "$shelled") <(echo "$direct"))"
done
u=$(call "$BASH_REAL" env | jq -r .output | grep '^_=')
[[ $u == "_=$(command -v env)" || $u == "_=$(type -P env)" || $u == _=*/env ]] &&
    ok "bash's _ names the program" || fail "bash's _" "$u"

# denied programs stay denied on the direct path (the run-time checks
# judge the program the leader found, by its file)
conf 'deny = ["exec_command(rm *)"]'
cp "$(readlink -f "$(command -v rm)")" "$WS/notrm"
ln -s "$(readlink -f "$(command -v rm)")" "$WS/lnrm"
touch "$WS/victim"
for prog in ./notrm ./lnrm "$WS/notrm"; do
    out=$(call "$BASH_REAL" "$prog -f victim")
    [[ -e $WS/victim ]] && ok "$prog (rm by identity) is denied" ||
        { fail "$prog -f victim" "it ran: $out"; touch "$WS/victim"; }
done
# the same without the sandbox (the supervisor, not a session leader,
# runs the program)
conf 'deny = ["exec_command(rm *)"]
[sandbox]
mode = "danger-full-access"'
out=$(call "$BASH_REAL" './notrm -f victim')
[[ -e $WS/victim ]] && ok "./notrm is denied without the sandbox" ||
    { fail "./notrm -f victim, danger-full-access" "it ran: $out"; touch "$WS/victim"; }
conf 'deny = ["exec_command(rm *)"]'
# a refusal reads as the shell's would have
for sh in "$BASH_REAL" "$DASH_REAL"; do
    [[ $sh == "$BASH_REAL" ]] && want="$sh: line 1: ./notrm: Operation not permitted" ||
        want="$sh: 1: ./notrm: Operation not permitted"
    out=$(call "$sh" './notrm -f victim')
    [[ $(jq -r .output <<<"$out") == "$want" && $out == *'"exit_code":126'* ]] &&
        ok "a refusal under $(basename "$sh") in the shell's words" ||
        fail "refusal under $sh" "want '$want', got $out"
done
# a program on PATH in a directory the command can write, by a copy's name
mkdir -p "$WS/bin"
cp "$(readlink -f "$(command -v rm)")" "$WS/bin/zap"
conf "deny = [\"exec_command(rm *)\"]
[sandbox.env]
set = { PATH = \"$WS/bin:/usr/bin:/bin\" }"
out=$(call "$BASH_REAL" 'zap -f victim')
[[ -e $WS/victim ]] && ok "a copy of rm found on PATH is denied" ||
    fail "zap -f victim" "it ran: $out"
[[ $out == *denied_execs* ]] || fail "zap -f victim" "the refusal is not reported: $out"
# a program in a directory the session masks (vthost's own state) is not
# found there: the leader searches the session's view of the files
conf
ST=$(mktemp -d /tmp/vthost-plainexec-st-XXXXXX)
mkdir -p "$ST/vthost"
cp "$(readlink -f "$(command -v touch)")" "$ST/vthost/evil"
out=$(XDG_STATE_HOME=$ST SHELL=$BASH_REAL "$V" --workspace "$WS" --config "$WS/vtcode.toml" \
    call --yes exec_command "$(json "$ST/vthost/evil $WS/masked_ran")" 2>&1)
rm -rf "$ST"
[[ ! -e $WS/masked_ran ]] && ok "a program in a masked directory does not run" ||
    fail "a program in vthost's masked state directory" "it ran: $out"
exit $((fails > 0))
