#!/usr/bin/env bash
# A command that outlives its call (a session still running when
# exec_command returns) is counted for what it changes afterwards: the
# workspace index's events after the call are counted at the next call,
# with a warning naming the file.  (Snapshots taken around each call
# never saw such writes.)
# Usage: background.sh VTHOST
set -u
vthost=$1
tmp=$(mktemp -d /tmp/vthost-ws-bg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ws=$tmp/ws
mkdir -p "$ws"
export XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
printf '[sandbox]\nmode = "workspace-write"\n[permissions]\napproval = "sandboxed"\n' >"$tmp/c.toml"
out=$(python3 - "$vthost" "$ws" "$tmp/c.toml" <<'PY'
import json, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "--workspace", sys.argv[2], "--config", sys.argv[3], "serve"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                     text=True)
def rpc(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m.get("result", {}).get("structuredContent", {})
rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "t", "version": "1"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
r1 = rpc(1, "tools/call", {"name": "exec_command", "arguments": {
    "cmd": "sleep 1; echo late > late.txt; sleep 30", "yield_time_ms": 200}})
print("session" if "session_id" in r1 else "no-session " + json.dumps(r1)[:300])
time.sleep(2.5)
r2 = rpc(2, "tools/call", {"name": "exec_command", "arguments": {"cmd": "true"}})
print(json.dumps(r2.get("warnings", [])))
p.stdin.close()
p.wait(timeout=60)
PY
)
pass=0 fail=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1"; fi; }
check "the first call left a session running ($out)" "$(head -1 <<<"$out" | grep -qx session; echo $?)"
check "the late write happened" "$([ -e "$ws/late.txt" ]; echo $?)"
check "the next call names the late write" "$(tail -1 <<<"$out" | grep -q 'late.txt'; echo $?)"
check "the late write is counted" \
    "$(grep -q '"pending":1' "$XDG_STATE_HOME"/vthost/guard/*.json; echo $?)"
echo "workspace_background: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
