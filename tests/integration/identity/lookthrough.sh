#!/bin/bash
# Deny rules hold for the program however the command line spells it:
# global options before a subcommand (git -C . push), wrappers that run
# another program or a command string (su -c, runuser, chroot, flock,
# setpriv, ...), Claude Code's Bash(rm:*) form.  Static decisions through
# `explain`, then real calls: the victim file must survive.
# Usage: lookthrough.sh VTHOST
set -u
V=${1:?usage: lookthrough.sh VTHOST}
WS=$(mktemp -d /tmp/vthost-look-XXXXXX)
trap 'rm -rf "$WS"' EXIT
fails=0
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
cat > "$WS/vtcode.toml" <<'T'
[permissions]
allow = ["exec_command(git *)", "exec_command(su *)", "exec_command(runuser *)",
         "exec_command(chroot *)", "exec_command(flock *)", "exec_command(setpriv *)",
         "exec_command(unshare *)", "exec_command(nsenter *)", "exec_command(chrt *)",
         "exec_command(taskset *)", "exec_command(ionice *)", "exec_command(stdbuf *)",
         "exec_command(setsid *)", "exec_command(nohup *)", "exec_command(time *)",
         "exec_command(watch *)", "exec_command(sudo *)", "exec_command(doas *)",
         "exec_command(ls *)", "exec_command(echo *)", "exec_command(mywrap *)"]
deny = ["exec_command(git push *)", "Bash(rm:*)"]
wrappers = ["mywrap -x --with"]
T
json() { jq -nc --arg c "$1" '{cmd:$c, yield_time_ms:10000}'; }
decision() { "$V" --workspace "$WS" --config "$WS/vtcode.toml" explain exec_command "$(json "$1")" | jq -r .decision; }
call() { "$V" --workspace "$WS" --config "$WS/vtcode.toml" call exec_command "$(json "$1")" 2>&1; }

for c in 'git -C . push origin main' 'git -c k=v push' 'git --no-pager push' \
         'git --git-dir=.git --work-tree . push' 'git -C . -c a=b --no-pager push --force' \
         "su -c 'rm -f victim'" "su root -c 'ls; rm -f victim'" 'runuser -u root -- rm victim' \
         'chroot / rm victim' "flock /tmp/l -c 'rm victim'" 'flock /tmp/l rm victim' \
         'setpriv --reuid 0 rm victim' 'unshare -r rm victim' 'nsenter -t 1 -m rm victim' \
         'chrt 1 rm victim' 'taskset 0x1 rm victim' 'ionice -c 3 rm victim' \
         'stdbuf -o0 rm victim' 'setsid rm victim' 'nohup rm victim' 'time rm victim' \
         'watch -n 1 rm victim' 'sudo -u root rm victim' 'doas rm victim' "env -S 'rm victim'" \
         'rm -f victim' 'mywrap -x arg --with v rm victim' 'mywrap rm victim'; do
    d=$(decision "$c")
    [[ $d == deny ]] || fail "explain: $c" "decision $d, want deny"
done
# what still must run
for c in 'git status' 'ls -la' 'echo rm' 'mywrap -x rm'; do
    d=$(decision "$c")
    [[ $d == allow ]] || fail "explain: $c" "decision $d, want allow"
done

# Real calls: refused, and the victim survives.
touch "$WS/victim"
for c in "su -c 'rm -f victim'" 'runuser -u root -- rm victim' 'chroot / rm victim' \
         'setsid rm -f victim' 'nohup rm -f victim'; do
    out=$(call "$c")
    [[ -e $WS/victim ]] || { fail "call: $c" "victim deleted: $out"; touch "$WS/victim"; }
    [[ $out == *deny* ]] || fail "call: $c" "not refused: $out"
done
git -C "$WS" init -q
out=$(call 'git -C . push origin main')
[[ $out == *deny* && $out == *'git push'* ]] || fail "call: git -C . push" "$out"
[[ $fails == 0 ]] && echo "deny rules held through every spelling" && exit 0
exit 1
