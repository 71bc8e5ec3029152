#!/usr/bin/env bash
# What vthost keeps about a workspace never shows in its repository:
# after calls that spool output, count a shell edit and make .vtcode/,
# `git status --porcelain` lists only what the commands themselves made;
# a refused call creates nothing at all; the guard's count lives under
# $XDG_STATE_HOME/vthost/ and a sandboxed command cannot change it, even
# with $XDG_STATE_HOME inside a directory commands may write (/tmp).
# Usage: git_status.sh VTHOST
set -u
vthost=$1
command -v git >/dev/null || { echo "git missing"; exit 77; }
tmp=$(mktemp -d /tmp/vthost-ws-status.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ws=$tmp/ws
mkdir -p "$ws"
export XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
git -C "$ws" init -q && git -C "$ws" -c user.email=t@t -c user.name=t commit -q --allow-empty -m init
pass=0 fail=0
check() { # check NAME STATUS
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1"; fi
}
vt() { "$vthost" --workspace "$ws" "$@" 2>>"$tmp/stderr"; }

# a refused call (no approval possible here) creates nothing
out=$(vt call exec_command '{"cmd":"echo hi > made.txt"}')
check "refused call refused" "$(grep -q '"success":false' <<<"$out"; echo $?)"
check "refused call left the workspace as it was" \
    "$([ "$(ls -A "$ws")" = ".git" ]; echo $?)"

# calls that spool output, make .vtcode/ and count a shell edit
out=$(vt --approval sandboxed call exec_command '{"cmd":"seq 1 200000","max_output_tokens":100}')
check "long output spooled" "$(grep -q '"spool_path"' <<<"$out"; echo $?)"
out=$(vt --approval sandboxed call exec_command '{"cmd":"echo x > edit.txt"}')
check "shell edit ran" "$(grep -q '"success":true' <<<"$out"; echo $?)"
check ".vtcode/ made by vthost" "$([ -d "$ws/.vtcode" ]; echo $?)"
check ".vtcode/.gitignore ignores everything" "$([ "$(cat "$ws/.vtcode/.gitignore")" = "*" ]; echo $?)"
status=$(git -C "$ws" status --porcelain --untracked-files=all)
check "git status shows only the command's file (got: $status)" \
    "$([ "$status" = "?? edit.txt" ]; echo $?)"

# the count is host state, keyed by the workspace, outside the repository
state=$(ls "$XDG_STATE_HOME"/vthost/guard/*.json 2>/dev/null | head -1)
check "guard state under XDG_STATE_HOME" "$([ -n "$state" ]; echo $?)"
check "guard state counts the edit" "$(grep -q '"pending":1' "$state"; echo $?)"
check "guard state names the workspace" "$(grep -qF "\"workspace\":\"$(realpath "$ws")\"" "$state"; echo $?)"
check "no state in the workspace" "$([ ! -e "$ws/.vtcode/state" ]; echo $?)"
before=$(sha256sum "$state")
out=$(vt --approval sandboxed call exec_command \
    "{\"cmd\":\"echo '{\\\"pending\\\":0}' > $state; rm -f $state; ls $XDG_STATE_HOME/vthost/guard\"}")
check "a command cannot reset the count" "$([ "$(sha256sum "$state")" = "$before" ]; echo $?)"
echo "workspace_git_status: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
