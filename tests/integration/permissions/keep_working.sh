#!/bin/bash
# Programs that must keep working under run-time enforcement when rules
# allow them: make building a C project (cc under make), git commit with
# a hook, an npm-test-style script (sh -c chains), find | xargs wc -l and
# a for loop calling an allowed program, a program that runs another from
# a second thread (as Go and cargo do).  Deny rules still hold inside
# them (rm under make is refused).  Usage: keep_working.sh VTHOST PERM_ATTACK
set -u
V=${1:?usage: keep_working.sh VTHOST PERM_ATTACK}
H=$(realpath "${2:?usage: keep_working.sh VTHOST PERM_ATTACK}")
command -v cc >/dev/null && command -v make >/dev/null && command -v git >/dev/null ||
    { echo "SKIP: cc, make and git are needed"; exit 77; }
WS=$(mktemp -d /tmp/vthost-keep-XXXXXX)
trap 'rm -rf "$WS"' EXIT
fails=0
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
# .git must be writable for git commit: this test is about the execve
# checks, not the filesystem sandbox.
cat > "$WS/vtcode.toml" <<'T'
[sandbox]
mode = "danger-full-access"
[permissions]
allow = ["exec_command(make *)", "exec_command(git commit *)", "exec_command(./run-tests *)",
         "exec_command(find *)", "exec_command(xargs *)", "exec_command(wc *)",
         "exec_command(perm_attack *)", "exec_command(PERM_ATTACK *)"]
deny = ["exec_command(rm *)"]
audit_enabled = true
T
sed -i "s|PERM_ATTACK|$H|" "$WS/vtcode.toml"
mkdir -p "$WS/src"
printf 'int add(int a, int b) { return a + b; }\n' > "$WS/src/add.c"
printf 'int add(int, int);\nint main(void) { return add(2, 2) == 4 ? 0 : 1; }\n' > "$WS/src/main.c"
printf 'app: src/add.o src/main.o\n\t$(CC) -o $@ $^\n\nclean-victim:\n\trm -f victim\n' > "$WS/Makefile"
printf '#!/bin/sh\nset -e\nsh -c "make app && ./app && echo tests-passed"\n' > "$WS/run-tests"
chmod +x "$WS/run-tests"
touch "$WS/victim"
git -C "$WS" init -q && git -C "$WS" config user.email t@example.com && git -C "$WS" config user.name t
printf '#!/bin/sh\necho hook-ran > .hook-ran\n' > "$WS/.git/hooks/pre-commit"
chmod +x "$WS/.git/hooks/pre-commit"
git -C "$WS" add src Makefile run-tests

# The workspace is not trusted: its vtcode.toml (rules and [sandbox]) applies
# only when named explicitly with --config.
call() { "$V" --workspace "$WS" --config "$WS/vtcode.toml" call exec_command "$(printf '{"cmd":%s,"yield_time_ms":20000}' "$1")" 2>&1; }
out=$(call '"make app"')
[[ $out == *'"exit_code":0'* && -x $WS/app ]] && "$WS/app" || fail "make builds a C project" "$out"
out=$(call '"git commit -qm first"')
[[ $out == *'"exit_code":0'* && -f $WS/.hook-ran ]] && git -C "$WS" log --oneline | grep -q first ||
    fail "git commit with a pre-commit hook" "$out"
rm -f "$WS/app" "$WS"/src/*.o
out=$(call '"./run-tests"')
[[ $out == *tests-passed* ]] || fail "npm-test-style script (sh -c chain)" "$out"
out=$(call "\"find . -name '*.c' | xargs wc -l\"")
[[ $out == *total* ]] || fail "find | xargs wc -l" "$out"
out=$(call '"for f in src/*.c; do wc -l \"$f\"; done"')
[[ $out == *src/add.c* && $out == *src/main.c* ]] || fail "a for loop calling an allowed program" "$out"
out=$(call "\"$H threadok marker\"")
[[ -e $WS/marker.ok ]] || fail "a program running another from a second thread" "$out"
out=$(call '"make clean-victim"')
[[ -e $WS/victim && $out == *denied_execs* ]] || fail "rm under make is still refused" "$out"
grep '"event":"execve"' "$WS/.vtcode/audit/permissions.jsonl" 2>/dev/null | grep -q '"argv":\["rm","-f","victim"\]' ||
    fail "the refused execve is in the audit log" "$(cat "$WS/.vtcode/audit/permissions.jsonl" 2>&1 | tail -3)"
[[ $fails == 0 ]] && echo "all programs kept working" && exit 0
exit 1
