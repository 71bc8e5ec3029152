#!/bin/bash
# Denied programs are masked in the session: with `allow python3 *` and
# `deny rm *`, race.py flips an execve path between /usr/bin/true and
# /usr/bin/rm while it is checked, TRIES times (default 1000); the victim
# file must survive every try.  Inside the session rm's files are
# character devices, and a copy of rm is empty.
# Usage: mask_race.sh VTHOST [TRIES]
set -u
V=${1:?usage: mask_race.sh VTHOST [TRIES]}
TRIES=${2:-1000}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 77; }
[[ -x /usr/bin/rm && -x /usr/bin/true ]] || { echo "SKIP: /usr/bin/rm and /usr/bin/true are needed"; exit 77; }
WS=$(mktemp -d /tmp/vthost-mask-XXXXXX)
trap 'rm -rf "$WS"' EXIT
fails=0
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
cat > "$WS/vtcode.toml" <<'T'
[permissions]
allow = ["exec_command(python3 *)", "exec_command(stat *)", "exec_command(cp *)",
         "exec_command(wc *)"]
deny = ["exec_command(rm *)", "exec_command(stat -rf *)", "exec_command(python3 -X *)"]
T
cp "$HERE/race.py" "$WS/race.py"
json() { jq -nc --arg c "$1" '{cmd:$c, yield_time_ms:280000}'; }
call() { "$V" --workspace "$WS" --config "$WS/vtcode.toml" call exec_command "$(json "$1")" 2>&1; }

out=$(call 'stat -L -c %F /usr/bin/rm /bin/rm')
if [[ $out == *'"sandbox":"none"'* || $out == *"cannot create PID and mount namespaces"* ]]; then
    echo "SKIP: no mount namespace for sessions here: $out"; exit 77
fi
[[ $(jq -r .output <<<"$out") == $'character special file\ncharacter special file'* ]] ||
    fail "rm is masked in the session" "$out"
# an argument-level deny masks nothing: python3 and stat still run
out=$(call 'stat -L -c %F /usr/bin/stat')
[[ $(jq -r .output <<<"$out") == 'regular file'* ]] || fail "stat -rf * masks nothing" "$out"
out=$(call 'cp /usr/bin/rm ./copy; wc -c < ./copy')
[[ $(jq -r .output <<<"$out") == 0* ]] || fail "a copy of a masked rm is empty" "$out"

touch "$WS/victim"
out=$(call "python3 race.py $TRIES victim")
[[ -e $WS/victim ]] || fail "the execve race ($TRIES tries)" "victim deleted: $(jq -c '{output,exit_code}' <<<"$out")"
[[ $(jq -r .output <<<"$out") == *"victim survived $TRIES tries"* ]] ||
    fail "the race ran to its end" "$out"
[[ $fails == 0 ]] && echo "rm stayed masked through $TRIES racing tries" && exit 0
exit 1
