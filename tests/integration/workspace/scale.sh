#!/usr/bin/env bash
# The workspace index at 100,000 files (10,000 directories, made in a
# temporary directory): one-shot calls and `vthost serve` count a shell
# edit deep in the tree and in a directory made during the call, keep a
# nested .git read-only, and keep a .git made by one call read-only to
# the next; with a forced watch limit and a forced event-queue overflow
# every call still counts and protects (it walks, and says so).
# Usage: scale.sh VTHOST
set -u
vthost=$1
tmp=$(mktemp -d /tmp/vthost-ws-scale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ws=$tmp/ws
export XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache
mkdir -p "$ws"
python3 - "$ws" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(10000):
    p = os.path.join(root, f"d{d // 100}", f"d{d}")
    os.makedirs(p)
    for f in range(10):
        open(os.path.join(p, f"f{f}.c"), "w").close()
os.makedirs(os.path.join(root, "d77", "d7777", ".git", "hooks"))
PY
files=$(find "$ws" -type f | wc -l)
printf '[sandbox]\nmode = "workspace-write"\n[permissions]\napproval = "sandboxed"\n' >"$tmp/c.toml"
# (max_snapshot_entries: the watch-limit fallback compares snapshots of
# the whole tree)
printf '[tools.anti_blind_editing]\nmax_unverified_mutations = 1000\nmax_snapshot_entries = 400000\n' \
    >>"$tmp/c.toml"
pass=0 fail=0
check() { # check NAME STATUS
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1"; fi
}
check "100,000 files made ($files)" "$([ "$files" -ge 100000 ]; echo $?)"
run() { # run CMD: one-shot exec_command, the response on stdout
    "$vthost" --workspace "$ws" --config "$tmp/c.toml" call exec_command \
        "$(python3 -c 'import json,sys; print(json.dumps({"cmd": sys.argv[1]}))' "$1")" \
        2>>"$tmp/stderr"
}
pending() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pending"])' \
    "$XDG_STATE_HOME"/vthost/guard/*.json 2>/dev/null || echo 0; }

scenario() { # scenario LABEL: count, protect, a new .git protected next call
    local label=$1 p0 out
    p0=$(pending)
    out=$(run "echo x >> d99/d9999/f3.c")
    check "$label: deep edit ran" "$(grep -q '"success":true' <<<"$out"; echo $?)"
    check "$label: deep edit counted" "$([ "$(pending)" -eq $((p0 + 1)) ]; echo $?)"
    out=$(run "mkdir -p new$label/a/b && echo y > new$label/a/b/made.c")
    check "$label: edit in a new directory counted" "$([ "$(pending)" -eq $((p0 + 2)) ]; echo $?)"
    out=$(run "touch d77/d7777/.git/hooks/pre-commit; echo rc=\$?")
    check "$label: nested .git read-only" "$([ ! -e "$ws/d77/d7777/.git/hooks/pre-commit" ]; echo $?)"
    run "mkdir -p late$label/x/y/.git/hooks" >/dev/null
    out=$(run "echo evil > late$label/x/y/.git/hooks/post-checkout")
    check "$label: a .git made by one call is read-only to the next" \
        "$([ ! -e "$ws/late$label/x/y/.git/hooks/post-checkout" ]; echo $?)"
    # a command that changes nothing is not counted
    p0=$(pending)
    run "ls d5 > /dev/null" >/dev/null
    check "$label: a read counts nothing" "$([ "$(pending)" -eq "$p0" ]; echo $?)"
}

scenario cold    # no cache: built
scenario cached  # from the cache, validated by mtimes

export VTHOST_TEST_WSINDEX_MAX_WATCHES=500
out=$(run "true")
check "watch limit: the call says it walked" "$(grep -q 'watch limit' <<<"$out"; echo $?)"
scenario limit
unset VTHOST_TEST_WSINDEX_MAX_WATCHES

export VTHOST_TEST_WSINDEX_MAX_QUEUED=20
p0=$(pending)
out=$(run "for i in \$(seq 1 100); do echo \$i > d1/d100/f\$i.tmp; done; mkdir -p over/.git")
check "overflow: the call says events were lost" "$(grep -q 'overflowed' <<<"$out"; echo $?)"
check "overflow: still counted" "$([ "$(pending)" -eq $((p0 + 1)) ]; echo $?)"
out=$(run "echo evil > over/.git/config")
check "overflow: the .git it made is read-only to the next call" \
    "$([ ! -e "$ws/over/.git/config" ]; echo $?)"
unset VTHOST_TEST_WSINDEX_MAX_QUEUED

# serve: events, one server for several calls
out=$(python3 - "$vthost" "$ws" "$tmp/c.toml" <<'PY'
import json, subprocess, sys
p = subprocess.Popen([sys.argv[1], "--workspace", sys.argv[2], "--config", sys.argv[3], "serve"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                     text=True)
def rpc(i, method, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            return m
rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "t", "version": "1"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
for i, cmd in enumerate(["true", "mkdir -p srv/q/.git/hooks && echo z > srv/q/z.c",
                         "echo evil > srv/q/.git/hooks/pre-push; echo done"], 1):
    r = rpc(i, "tools/call", {"name": "exec_command", "arguments": {"cmd": cmd}})
    print(json.dumps(r.get("result", {}).get("structuredContent", {})))
p.stdin.close()
p.wait()
PY
)
check "serve: three calls answered" "$([ "$(wc -l <<<"$out")" -eq 3 ]; echo $?)"
check "serve: a .git made by one call is read-only to the next" \
    "$([ ! -e "$ws/srv/q/.git/hooks/pre-push" ]; echo $?)"
echo "workspace_scale: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
