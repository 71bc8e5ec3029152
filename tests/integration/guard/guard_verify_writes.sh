#!/usr/bin/env bash
# A verification run that rewrites the project's sources made blind edits
# of its own: `make` whose Makefile writes eight src*.c files (or a
# .gitignore that ignores everything, then a source) does not reset the
# anti-blind-editing count, and the next edit is still refused; a build
# that leaves only build output (build/, an ignored directory, object
# files in the tree) still verifies.
# Usage: guard_verify_writes.sh VTHOST
set -u
vthost=$1
top=$(mktemp -d /tmp/vthost-guard-vw.XXXXXX)
trap 'rm -rf "$top"' EXIT
export XDG_STATE_HOME=$top/state XDG_CACHE_HOME=$top/cache
pass=0 fail=0
check() { # check NAME CONDITION-STATUS
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1"; fi
}
errs=$top/stderr
newws() { # newws NAME MAKEFILE-TEXT
    ws=$top/$1
    mkdir -p "$ws"
    cat >"$ws/vtcode.toml" <<'TOML'
[permissions]
allow = ["exec_command", "apply_patch"]
[tools.anti_blind_editing]
max_unverified_mutations = 2
TOML
    printf '%b' "$2" >"$ws/Makefile"
}
vt() { "$vthost" --workspace "$ws" --config "$ws/vtcode.toml" call "$@" 2>>"$errs"; }
run() { vt exec_command "{\"cmd\":\"$1\",\"yield_time_ms\":20000}"; }
add() { vt apply_patch "{\"input\":\"*** Begin Patch\\n*** Add File: $1\\n+x\\n*** End Patch\\n\"}"; }
blocked() { grep -q '"failure_kind":"anti_blind_editing_verification_required"' <<<"$1"; }
ok() { grep -q '"success":true' <<<"$1"; }
fill() { # two edits: the limit; a third is refused
    out=$(add e1.txt); ok "$out"; check "$1: edit 1" $?
    out=$(add e2.txt); ok "$out"; check "$1: edit 2" $?
    out=$(add e3.txt); blocked "$out"; check "$1: edit 3 refused before make" $?
}

# 1. The default target writes eight sources: not a verification.
newws blind 'all:\n\t@for i in 0 1 2 3 4 5 6 7; do echo "int blind$$i;" > src$$i.c; done\n'
fill blind
out=$(run make); ok "$out"; check "blind: make runs" $?
n=$(ls "$ws"/src*.c 2>/dev/null | wc -l)
check "blind: make wrote 8 sources (got $n)" "$([ "$n" -eq 8 ]; echo $?)"
grep -q 'changed source files itself' <<<"$out"; check "blind: the result says why" $?
out=$(add e3.txt); blocked "$out"; check "blind: the next edit is still refused" $?
[ ! -e "$ws/e3.txt" ]; check "blind: the refused edit wrote nothing" $?

# 2. A run that makes a .gitignore ignoring everything, then a source.
newws ignoreall 'all:\n\t@echo "*" > .gitignore; echo "int x;" > src.c\n'
fill ignoreall
out=$(run make); ok "$out"; check "ignoreall: make runs" $?
out=$(add e3.txt); blocked "$out"; check "ignoreall: the next edit is still refused" $?

# 3. Sources in a directory that is ignored only by a .gitignore the run
#    left as it was, tracked outside: still excused (build output).  And a
#    normal build: build/ (a build directory), an ignored out/ directory,
#    object files and a program in the tree.
newws normal 'all:\n\tmkdir -p build out\n\techo "int gen;" > out/gen.c\n\tcc -c -o main.o main.c\n\tcc -o prog main.o\n\tcp prog build/prog\n'
printf 'out/\nprog\n' >"$ws/.gitignore"
printf 'int main(void) { return 0; }\n' >"$ws/main.c"
fill normal
out=$(run make); ok "$out"; check "normal: make runs" $?
[ -x "$ws/prog" ] && [ -e "$ws/out/gen.c" ] && [ -e "$ws/main.o" ]
check "normal: the build made its output" $?
out=$(add e3.txt); ok "$out"; check "normal: make verified, the next edit applies" $?

! grep -qE 'Sanitizer|runtime error:' "$errs"; check "no sanitizer report" $?
grep -E 'Sanitizer|runtime error:' -A20 "$errs" | head -40
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
