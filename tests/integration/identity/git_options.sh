#!/bin/bash
# git's global options cannot step around `deny git push *`: every option
# git documents that takes a value (--shallow-file, --attr-source, -C,
# ...) is looked through, an option nobody knows makes the rule try each
# later word as the subcommand, and a value holding a blank stays one
# word when the execve is judged.  Each spelling is tried as the command
# text (the call's check) and hidden from it in a script and in
# sh -c "$(... | base64 -d)" (the execve check): a real push to a local bare
# remote, whose ref must not move.  Usage: git_options.sh VTHOST
set -u
V=${1:?usage: git_options.sh VTHOST}
command -v git >/dev/null || { echo "SKIP: git is needed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq is needed"; exit 77; }
WS=$(mktemp -d /tmp/vthost-gitopts-XXXXXX)
# The remote is a writable root of its own: a bare repository inside the
# workspace or below a writable root is read-only to commands (its hooks
# run when the user pushes), so a push there never lands whatever the rules.
R="$WS-remote.git"
trap 'rm -rf "$WS" "$R"' EXIT
fails=0
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t \
    GIT_COMMITTER_EMAIL=t@t
git init -q --bare "$R"
git init -q -b main "$WS/repo"
echo 1 >"$WS/repo/f" && git -C "$WS/repo" add f && git -C "$WS/repo" commit -qm 1
git -C "$WS/repo" remote add origin "$R"
git -C "$WS/repo" push -q origin main
echo 2 >"$WS/repo/f" && git -C "$WS/repo" commit -qam 2
ln -s repo "$WS/w s" # a directory whose name holds a blank
base=$(git --git-dir="$R" rev-parse main)
moved() { [[ $(git --git-dir="$R" rev-parse main) != "$base" ]]; }
reset_remote() { git --git-dir="$R" update-ref refs/heads/main "$base"; }

allow='allow = ["exec_command(git *)", "exec_command(sh *)", "exec_command(printf *)"]'
roots=$(printf '[sandbox]\nwritable_roots = ["%s"]\n' "$R")
printf '%s\n[permissions]\n%s\ndeny = ["exec_command(git push *)"]\n' "$roots" "$allow" >"$WS/deny.toml"
printf '%s\n[permissions]\n%s\n' "$roots" "$allow" >"$WS/open.toml"
json() { jq -nc --arg c "$1" '{cmd:$c, workdir:"repo", yield_time_ms:20000}'; }
decision() { "$V" --workspace "$WS" --config "$WS/deny.toml" explain exec_command "$(json "$1")" | jq -r .decision; }
# --yes: a person approved whatever asks; deny rules must still hold.
call() { "$V" --workspace "$WS" --config "$WS/$1" call --yes exec_command "$(json "$2")" 2>&1; }

# The setup can push: without the rule the push lands.
out=$(call open.toml 'git --shallow-file /dev/null push origin main')
moved || fail "control" "the push did not land without a deny rule: $out"
reset_remote

spellings=('git --shallow-file /dev/null push origin main'
    'git --attr-source=HEAD push origin main'
    'git --attr-source HEAD push origin main'
    'git --bogus-opt value push origin main'
    'git -c a=b --no-pager push origin main'
    "git -C '../w s' push origin main"
    "git -C '../w s' --shallow-file /dev/null push origin main"
    "git --work-tree='../w s' --shallow-file /dev/null push origin main")
i=0
for c in "${spellings[@]}"; do
    i=$((i + 1))
    d=$(decision "$c")
    [[ $d == deny ]] || fail "explain: $c" "decision $d, want deny"
    out=$(call deny.toml "$c")
    moved && { fail "call: $c" "the remote moved: $out"; reset_remote; }
    # out of the call's sight: only the execve check can stop these
    printf '%s\n' "$c" >"$WS/repo/push$i.sh"
    out=$(call deny.toml "sh push$i.sh")
    moved && { fail "script: $c" "the remote moved: $out"; reset_remote; }
    [[ $out == *denied_execs*'git push'* ]] || fail "script: $c" "not refused at its execve: $out"
    rm -f "$WS/repo/push$i.sh"
    hidden="sh -c \"\$(echo $(printf '%s' "$c" | base64 -w0) | base64 -d)\""
    out=$(call deny.toml "$hidden")
    moved && { fail "sh -c \$(...): $c" "the remote moved: $out"; reset_remote; }
    [[ $out == *denied_execs*'git push'* ]] || fail "sh -c \$(...): $c" "not refused: $out"
done

# An unknown option never widens an allow rule.
printf '[permissions]\nallow = ["exec_command(git status *)"]\n' >"$WS/status.toml"
d=$("$V" --workspace "$WS" --config "$WS/status.toml" explain exec_command \
    "$(json 'git --bogus push origin main')" | jq -r .decision)
[[ $d != allow ]] || fail "allow git status *" "allowed git --bogus push"
[[ $fails == 0 ]] && echo "git's global options did not step around the deny rule" && exit 0
exit 1
