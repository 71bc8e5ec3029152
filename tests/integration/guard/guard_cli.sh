#!/usr/bin/env bash
# Anti-blind-editing across separate `vthost call` processes: each run
# reads and updates the workspace's one counter ($XDG_STATE_HOME), so shell
# edits made by earlier runs block later ones, `make --version` does not
# verify while `make` does, and of six patches started at once at the
# threshold exactly one applies.
# Usage: guard_cli.sh VTHOST
set -u
vthost=$1
ws=$(mktemp -d /tmp/vthost-guard-cli.XXXXXX)
trap 'rm -rf "$ws" "$ws.stderr"' EXIT
cat >"$ws/vtcode.toml" <<'TOML'
[permissions]
allow = ["exec_command", "apply_patch"]
TOML
printf 'all:\n\t@echo built > out.o\n' >"$ws/Makefile"
pass=0 fail=0
check() { # check NAME CONDITION-STATUS
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1"; fi
}
errs=$ws.stderr
vt() { "$vthost" --workspace "$ws" --config "$ws/vtcode.toml" call "$@" 2>>"$errs"; }
run() { vt exec_command "{\"cmd\":\"$1\",\"yield_time_ms\":10000}"; }
add() { vt apply_patch "{\"input\":\"*** Begin Patch\\n*** Add File: $1\\n+x\\n*** End Patch\\n\"}"; }
blocked() { grep -q '"failure_kind":"anti_blind_editing_verification_required"' <<<"$1"; }

for n in 1 2 3 4; do
    out=$(run "echo $n >> f.txt"); check "shell edit $n runs" $?
done
check "four edits landed" "$([ "$(cat "$ws/f.txt")" = "$(printf '1\n2\n3\n4')" ]; echo $?)"
for n in 5 6; do
    out=$(run "echo $n >> f.txt"); st=$?
    check "shell edit $n refused (exit 1)" "$([ $st -eq 1 ]; echo $?)"
    blocked "$out"; check "shell edit $n refused by the guard" $?
done
out=$(add g.txt); blocked "$out"; check "patch blocked by earlier runs' shell edits" $?
[ ! -e "$ws/g.txt" ]; check "blocked patch wrote nothing" $?
sum=$(sha256sum "$ws/f.txt")
for cmd in "sed -i s/1/X/ f.txt" "cp f.txt h.txt" "rm -f f.txt" "touch t.txt" "echo x > f.txt"; do
    out=$(run "$cmd"); blocked "$out"; check "refused: $cmd" $?
done
check "f.txt unchanged" "$([ "$(sha256sum "$ws/f.txt")" = "$sum" ]; echo $?)"
[ ! -e "$ws/h.txt" ] && [ ! -e "$ws/t.txt" ]; check "no file made" $?
out=$(run "make --version"); check "make --version runs" $?
out=$(add g.txt); blocked "$out"; check "make --version does not verify" $?
out=$(run "make"); check "make runs" $?
out=$(add g.txt); grep -q '"success":true' <<<"$out"; check "make verified" $?

# g.txt and two more edits, then six patches at once: one takes the last slot.
for n in 1 2; do out=$(add "pre$n.txt"); done
pids=()
for i in 0 1 2 3 4 5; do
    add "race$i.txt" >"$ws.out$i" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
ok=$(cat "$ws".out* | grep -c '"success":true')
blk=$(cat "$ws".out* | grep -c 'anti_blind_editing_verification_required')
rm -f "$ws".out*
check "exactly one racing patch applied (got $ok)" "$([ "$ok" -eq 1 ]; echo $?)"
check "the other five were blocked (got $blk)" "$([ "$blk" -eq 5 ]; echo $?)"
files=$(ls "$ws"/race*.txt 2>/dev/null | wc -l)
check "one race file on disk (got $files)" "$([ "$files" -eq 1 ]; echo $?)"

! grep -qE 'Sanitizer|runtime error:' "$errs"; check "no sanitizer report" $?
grep -E 'Sanitizer|runtime error:' -A20 "$errs" | head -40
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
