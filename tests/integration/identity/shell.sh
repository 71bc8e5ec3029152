#!/bin/bash
# The shell is a program: the exec tool's `shell` argument meets deny
# rules by its base name, and the file it really is meets them at its
# execve (a link to a denied program); a shell reading program text it
# was not given literally (| bash, bash -c "$x", eval) needs a rule of
# its own.  Usage: shell.sh VTHOST
set -u
V=${1:?usage: shell.sh VTHOST}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 77; }
WS=$(mktemp -d /tmp/vthost-shell-XXXXXX)
trap 'rm -rf "$WS"' EXIT
fails=0
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
cat > "$WS/vtcode.toml" <<'T'
[permissions]
allow = ["exec_command(ls *)", "exec_command(echo *)", "exec_command(shell:*)",
         "exec_command(open*)"]
deny = ["exec_command(python3 *)", "exec_command(rm *)"]
T
json() { jq -nc --arg c "$1" --arg s "$2" 'if $s == "" then {cmd:$c} else {cmd:$c, shell:$s} end'; }
decision() { "$V" --workspace "$WS" --config "$WS/vtcode.toml" explain exec_command "$(json "$1" "$2")" | jq -r .decision; }
# --yes: a person approved whatever asks; deny rules still hold.
call() { "$V" --workspace "$WS" --config "$WS/vtcode.toml" call --yes exec_command "$(json "$1" "$2")" 2>&1; }

[[ $(decision "open('m1','w')" python3) == deny ]] || fail "shell python3" "not denied"
[[ $(decision "open('m1','w')" /usr/bin/python3) == deny ]] || fail "shell /usr/bin/python3" "not denied"
[[ $(decision victim rm) == deny ]] || fail "shell rm" "not denied"
[[ $(decision ls bash) == allow ]] || fail "shell bash" "the profile's shell must still run"

# the first execve is judged: a link to python3 under another name
ln -s "$(command -v python3)" "$WS/notpy"
out=$(call "open('marker','w')" "$WS/notpy")
[[ ! -e $WS/marker ]] || fail "a link to python3 as the shell" "it ran: $out"
[[ $out == *denied_execs* ]] || fail "a link to python3 as the shell" "not reported: $out"
rm -f "$WS/marker"
# a copy of python3 under another name: the same bytes (an unprivileged
# host cannot read the supervisor's memory: the file it runs is judged)
cp "$(readlink -f "$(command -v python3)")" "$WS/cpy"
out=$(call "open('marker','w')" "$WS/cpy")
[[ ! -e $WS/marker ]] || fail "a copy of python3 as the shell" "it ran: $out"
[[ $out == *denied_execs* ]] || fail "a copy of python3 as the shell" "not reported: $out"
rm -f "$WS/marker"
# a script as the shell runs (its interpreter reads it from the judged file)
printf '#!/bin/sh\nexec /bin/sh "$@"\n' >"$WS/mysh" && chmod +x "$WS/mysh"
out=$(call "echo ok > scripted" "$WS/mysh")
[[ -e $WS/scripted ]] || fail "a script as the shell" "did not run: $out"
out=$(call "open('marker','w')" python3)
[[ ! -e $WS/marker ]] || fail "shell python3 (call)" "it ran: $out"

# The versioned file python3 links to, named by its own path, by a link
# of the command's and by a copy: inside the session that path is the
# mask already, so what is judged must be the descriptor that runs.
real=$(readlink -f /usr/bin/python3 2>/dev/null)
if [[ -x $real && $real != /usr/bin/python3 ]]; then
    ln -s "$real" "$WS/pyver-link"
    cp "$real" "$WS/pyver-copy"
    for s in "$real" "${real##*/}" "$WS/pyver-link" "$WS/pyver-copy"; do
        out=$(call "open('marker','w')" "$s")
        [[ ! -e $WS/marker ]] || fail "shell $s" "it ran: $out"
        rm -f "$WS/marker"
    done
    # A script whose "#!" names that file runs it as its interpreter; with
    # no session to mask it in, only its identity can tell.
    { printf '[sandbox]\nmode = "danger-full-access"\n'; cat "$WS/vtcode.toml"; } >"$WS/full.toml"
    printf '#!%s\nopen("marker", "w")\n' "$real" >"$WS/pyscript" && chmod +x "$WS/pyscript"
    full() { "$V" --workspace "$WS" --config "$WS/full.toml" call --yes exec_command "$(json "$1" "$2")" 2>&1; }
    out=$(full ./pyscript "")
    [[ ! -e $WS/marker ]] || fail "a script run by $real, unsandboxed" "it ran: $out"
    rm -f "$WS/marker"
    out=$(full x "$WS/pyscript")
    [[ ! -e $WS/marker ]] || fail "a script run by $real as the shell, unsandboxed" "it ran: $out"
    rm -f "$WS/marker"
fi

# program text out of sight: only `ls` and `echo` are allowed
for c in 'ls | bash' 'ls | sh' 'ls; bash -c "$x"' 'ls; eval "$x"' 'echo ls | dash'; do
    d=$(decision "$c" "")
    [[ $d != allow ]] || fail "$c" "allowed with only ls and echo allowed"
done
[[ $(decision 'ls | cat' "") != allow ]] || fail "ls | cat" "cat is not allowed"
[[ $(decision 'ls; echo hi' "") == allow ]] || fail "ls; echo hi" "must stay allowed"
out=$("$V" --workspace "$WS" --config "$WS/vtcode.toml" call exec_command "$(json 'echo touch piped | bash' "")" 2>&1)
[[ ! -e $WS/piped ]] || fail "echo ... | bash (call)" "it ran: $out"
[[ $fails == 0 ]] && echo "the shell met the rules" && exit 0
exit 1
