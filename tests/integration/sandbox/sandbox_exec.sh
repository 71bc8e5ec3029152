#!/usr/bin/env bash
# exec_command under the sandbox, end to end through the built vthost:
# where a command may write, whether it reaches the network, the modes,
# escalation through a prompt, and denial hints.
set -u
V=$1
landlock=$(python3 - <<'PY'
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.syscall(444, None, 0, 1))  # landlock_create_ruleset(NULL, 0, VERSION)
PY
)
if [ "${landlock:-0}" -le 0 ]; then
    echo "SKIP: this kernel offers no Landlock (landlock_create_ruleset returned $landlock)"
    exit 77
fi
base=$(mktemp -d /var/tmp/vthost-sandbox-XXXXXX)
WS=$base/ws SIB=$base/sibling
mkdir -p "$WS/.git" "$SIB"
printf '[core]\n' > "$WS/.git/config"
port_file=$base/port
python3 - "$port_file" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept(); c.close()
PY
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$base" "$HOME/vthost-sandbox-escape-$$"' EXIT
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
PORT=$(cat "$port_file")
fails=0
check() { if [[ "$3" == *"$2"* ]]; then echo "ok   $1"; else echo "FAIL $1: expected [$2] in [$3]"; fails=$((fails+1)); fi; }
absent() { if [[ "$3" != *"$2"* ]]; then echo "ok   $1"; else echo "FAIL $1: unexpected [$2] in [$3]"; fails=$((fails+1)); fi; }
config() { printf '[permissions]\nallow = ["exec_command"]\n%s\n' "$1" > "$WS/vtcode.toml"; }
run() { "$V" --workspace "$WS" --config "$WS/vtcode.toml" "$@" 2>/dev/null; }
ex() { run call exec_command "$(python3 -c 'import json,sys; print(json.dumps({"cmd": sys.argv[1]}))' "$1")"; }

config ''
out=$(ex 'echo inside > in.txt && cat in.txt')
check "workspace write" '"exit_code":0' "$out"
check "sandbox reported" '"sandbox":"workspace-write"' "$out"
out=$(ex "echo x > \"\$HOME/vthost-sandbox-escape-$$\"")
check "home write refused" '"sandbox_denied":true' "$out"
[ ! -e "$HOME/vthost-sandbox-escape-$$" ] && echo "ok   home untouched" || { echo "FAIL home file written"; fails=$((fails+1)); }
out=$(ex 'echo x > /etc/vthost-sandbox-escape')
check "/etc write refused" 'Permission denied' "$out"
out=$(ex "echo x > '$SIB/escape.txt'")
check "sibling write refused" '"sandbox_denied":true' "$out"
[ ! -e "$SIB/escape.txt" ] && echo "ok   sibling untouched" || { echo "FAIL sibling written"; fails=$((fails+1)); }
out=$(ex 'f=$(mktemp /tmp/vthost-sbx-XXXXXX) && echo x > "$f" && rm "$f" && echo tmp-ok')
check "/tmp write" 'tmp-ok' "$out"
out=$(ex 'echo "[evil]" | tee -a .git/config')
check ".git/config refused" '"sandbox_denied":true' "$out"
grep -q evil "$WS/.git/config" && { echo "FAIL .git/config changed"; fails=$((fails+1)); } || echo "ok   .git/config unchanged"
out=$(ex "bash -c 'exec 3<>/dev/tcp/127.0.0.1/$PORT && echo connected'")
check "network off refuses TCP" 'Operation not permitted' "$out"
absent "network off: no connection" 'connected' "$out"
check "network refusal hinted" '"sandbox_denied":true' "$out"

config $'[sandbox]\nnetwork_access = true'
out=$(ex "bash -c 'exec 3<>/dev/tcp/127.0.0.1/$PORT && echo connected'")
check "network on connects" 'connected' "$out"

config $'[sandbox]\nmode = "read-only"'
out=$(ex 'echo x > ro.txt')
check "read-only refuses workspace write" '"sandbox_denied":true' "$out"
[ ! -e "$WS/ro.txt" ] && echo "ok   read-only: no file" || { echo "FAIL read-only wrote"; fails=$((fails+1)); }
out=$(ex 'cat in.txt')
check "read-only reads" 'inside' "$out"

config $'[sandbox]\nmode = "danger-full-access"'
out=$(ex "echo x > '$SIB/full.txt' && echo full-ok")
check "danger-full-access unsandboxed" 'full-ok' "$out"
check "danger-full-access reported" '"sandbox":"none"' "$out"

config $'[sandbox]\nmode = "sideways"'
out=$("$V" --workspace "$WS" --config "$WS/vtcode.toml" call exec_command '{"cmd":"true"}' 2>&1)
check "bad mode names the key" "sandbox.mode" "$out"

# escalation: justification required, always asked, runs unsandboxed once approved
config ''
out=$("$V" --workspace "$WS" --config "$WS/vtcode.toml" call exec_command '{"cmd":"true","sandbox_permissions":"require_escalated"}' 2>&1); rc=$?
check "escalation needs justification" "justification" "$out"
[ $rc -eq 2 ] && echo "ok   escalation without justification is invalid (exit 2)" || { echo "FAIL exit $rc"; fails=$((fails+1)); }
esc=$(python3 -c 'import json,sys; print(json.dumps({"cmd": "echo x > " + sys.argv[1] + "/esc.txt && echo esc-ok", "sandbox_permissions": "require_escalated", "justification": "write the sibling"}))' "$SIB")
out=$("$V" --workspace "$WS" --config "$WS/vtcode.toml" explain exec_command "$esc" 2>&1)
check "escalation asks despite allow rule" '"decision":"ask"' "$out"
out=$("$V" --workspace "$WS" --config "$WS/vtcode.toml" --no call exec_command "$esc" 2>&1)
check "escalation refused when the user says no" 'denied' "$out"
[ ! -e "$SIB/esc.txt" ] && echo "ok   no write without approval" || { echo "FAIL escalated ran without approval"; fails=$((fails+1)); }
out=$("$V" --workspace "$WS" --config "$WS/vtcode.toml" call exec_command "$esc" 2>&1 </dev/null)
check "escalation not approved non-interactively" 'denied' "$out"
out=$("$V" --workspace "$WS" --config "$WS/vtcode.toml" --yes call exec_command "$esc" 2>&1)
check "approved escalation runs unsandboxed" 'esc-ok' "$out"
check "approved escalation reported" '"sandbox":"none"' "$out"

echo "failures: $fails"
[ "$fails" -eq 0 ]
