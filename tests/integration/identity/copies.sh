#!/bin/bash
# Identity, not spelling: a copy or a hard link of a denied program, under
# another name in the workspace, is judged as that program when it runs.
# The copy and the link are made outside the session (as if shipped in
# the repository), and by the command itself.  Usage: copies.sh VTHOST
set -u
V=${1:?usage: copies.sh VTHOST}
RM=/usr/bin/rm
WS=$(mktemp -d /tmp/vthost-copies-XXXXXX)
trap 'rm -rf "$WS"' EXIT
fails=0
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
cat > "$WS/vtcode.toml" <<'T'
[permissions]
allow = ["exec_command(./notrm *)", "exec_command(./hl *)", "exec_command(./own *)",
         "exec_command(cp *)", "exec_command(ln *)", "exec_command(./ok *)"]
deny = ["exec_command(rm *)"]
T
json() { jq -nc --arg c "$1" '{cmd:$c, yield_time_ms:10000}'; }
call() { "$V" --workspace "$WS" --config "$WS/vtcode.toml" call exec_command "$(json "$1")" 2>&1; }
cp "$RM" "$WS/notrm"
touch "$WS/victim"
out=$(call './notrm -f victim')
[[ -e $WS/victim ]] || { fail "a copy of rm shipped in the workspace" "$out"; touch "$WS/victim"; }
[[ $out == *'rm *'* ]] || fail "the copy is judged as rm" "$out"
if ln "$RM" "$WS/hl" 2>/dev/null; then
    out=$(call './hl -f victim')
    [[ -e $WS/victim ]] || { fail "a hard link of rm in the workspace" "$out"; touch "$WS/victim"; }
else
    echo "note: $RM and $WS are on different filesystems: no hard link to try"
fi
out=$(call 'cp /usr/bin/rm ./own && ./own -f victim')
[[ -e $WS/victim ]] || fail "cp /usr/bin/rm ./own && ./own" "$out"
# a copy of an allowed program still runs
cp /usr/bin/true "$WS/ok"
out=$(call './ok')
[[ $out == *'"exit_code":0'* ]] || fail "a copy of true still runs" "$out"
[[ $fails == 0 ]] && echo "copies and links of rm were judged as rm" && exit 0
exit 1
