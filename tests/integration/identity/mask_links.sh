#!/bin/bash
# Masks follow a denied name's links and hard links, and spare multi-call
# binaries.  In a root-owned scratch directory placed first on PATH:
#   solo -> single     (a name linked to a one-program file): the target
#                      is masked, under both names;
#   denyme, keep1, keep2, keep3 -> mc  (a multi-call file): not masked,
#                      keep1 runs, denyme is refused by the execve check;
#   zap, a hard link to /usr/bin/rm: masked like rm, the victim survives;
# and python3 when it links to another name (python3 -> python3.11).
# Usage: mask_links.sh VTHOST
set -u
V=${1:?usage: mask_links.sh VTHOST}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (a root-owned directory on PATH)"; exit 77; }
WS=$(mktemp -d /tmp/vthost-mlinks-XXXXXX)
S=$(mktemp -d /var/tmp/vthost-bin-XXXXXX)
trap 'rm -rf "$WS" "$S"' EXIT
chmod 755 "$S"
fails=0
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
printf '#!/bin/sh\necho ran > "$1"\n' >"$S/single"
printf '#!/bin/sh\necho "${0##*/}" > "$1"\n' >"$S/mc"
chmod 755 "$S/single" "$S/mc"
ln -s single "$S/solo"
for n in denyme keep1 keep2 keep3; do ln -s mc "$S/$n"; done
zap=0
ln /usr/bin/rm "$S/zap" 2>/dev/null && zap=1
cat > "$WS/vtcode.toml" <<'T'
[permissions]
allow = ["exec_command(stat *)"]
deny = ["exec_command(solo *)", "exec_command(denyme *)", "exec_command(rm *)",
        "exec_command(python3 *)"]
T
json() { jq -nc --arg c "$1" '{cmd:$c}'; }
# --yes: a person approved whatever asks; deny rules still hold.
call() { PATH="$S:$PATH" "$V" --workspace "$WS" --config "$WS/vtcode.toml" call --yes exec_command "$(json "$1")" 2>&1; }
kind() { jq -r .output <<<"$(call "stat -L -c %F $*")"; }

out=$(call 'stat -L -c %F /usr/bin/rm')
if [[ $out == *'"sandbox":"none"'* || $out == *"cannot create PID and mount namespaces"* ]]; then
    echo "SKIP: no mount namespace for sessions here: $out"; exit 77
fi
[[ $(kind "$S/single" "$S/solo") == $'character special file\ncharacter special file' ]] ||
    fail "a name linked to a one-program file masks the file" "$(kind "$S/single" "$S/solo")"
out=$(call "X=single; \$X $WS/m1; Y=solo; \$Y $WS/m2")
[[ ! -e $WS/m1 && ! -e $WS/m2 ]] || fail "the masked file ran" "$out"

[[ $(kind "$S/mc") == 'regular file' ]] || fail "a multi-call file is not masked" "$(kind "$S/mc")"
out=$(call "X=keep1; \$X $WS/k1")
[[ $(cat "$WS/k1" 2>/dev/null) == keep1 ]] || fail "another program of the multi-call file runs" "$out"
out=$(call "X=denyme; \$X $WS/d1")
[[ ! -e $WS/d1 ]] || fail "the denied name of a multi-call file ran" "$out"
[[ $out == *denied_execs* ]] || fail "the denied name of a multi-call file" "not reported: $out"

if [[ $zap == 1 ]]; then
    [[ $(kind "$S/zap") == 'character special file' ]] || fail "a hard link to rm on PATH is masked" "$(kind "$S/zap")"
    touch "$WS/victim"
    out=$(call "X=zap; \$X -f $WS/victim; $S/zap -f $WS/victim")
    [[ -e $WS/victim ]] || fail "a hard link to rm on PATH ran" "$out"
else
    echo "note: $S and /usr/bin are on different filesystems: no hard link to test"
fi

real=$(readlink -f /usr/bin/python3 2>/dev/null || true)
if [[ -x /usr/bin/python3 && -n $real && ${real##*/} != python3 ]]; then
    [[ $(kind "$real") == 'character special file' ]] || fail "python3 -> ${real##*/} masks the file" "$(kind "$real")"
fi
[[ $fails == 0 ]] && echo "links and hard links masked, the multi-call file spared" && exit 0
exit 1
