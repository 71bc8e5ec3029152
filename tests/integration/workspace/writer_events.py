#!/usr/bin/env python3
"""The host's one after-call check covers every writer, and plugins hear
of what happens through host events, tried for real with git and the
built vthost and a third-party-style plugin (tests/plugins/events_fixture):
- a plugin tool marked as writing the workspace that declares no path
  subjects makes sub/.git with a config whose core.fsmonitor runs a
  command; the user's own `git status` in sub afterwards (outside any
  sandbox) must run nothing: a marker file that must not appear; the
  original config is kept under .vtcode/set-aside/ and the call's warnings
  name the repository;
- a plugin subscribed to the host events (VT_EVENTS_SERVICE) hears of the
  calls that ended (writers marked as such), of a sandboxed command
  session that started and ended, and of changes in the workspace while
  serving.

    writer_events.py path/to/vthost FIXTURE_PLUGIN_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

V, FIX = sys.argv[1], sys.argv[2]
if not shutil.which("git"):
    print("SKIP: git is not installed")
    sys.exit(77)
TAG = "%d%d" % (os.getpid(), int(time.time()) % 100000)
base = tempfile.mkdtemp(prefix="vthost-writer-events-", dir="/var/tmp")
CFG = os.path.join(base, "config.toml")
with open(CFG, "w") as f:
    f.write('[permissions]\nallow = ["exec_command", "write_stdin", "fixture_plant_repo", '
            '"fixture_events"]\n')
ENV = dict((k, v) for k, v in os.environ.items()
           if k not in ("GIT_CEILING_DIRECTORIES", "GIT_DIR", "GIT_WORK_TREE", "GIT_PAGER",
                        "PAGER", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"))
ENV.update(GIT_CONFIG_NOSYSTEM="1", HOME=base, XDG_STATE_HOME=os.path.join(base, "state"),
           XDG_CACHE_HOME=os.path.join(base, "cache"))
failed = 0


def ok(name, cond, detail=""):
    global failed
    print(("ok   " if cond else "FAIL ") + name + ("" if cond or not detail else ": " + detail))
    failed += 0 if cond else 1


def workspace(name):
    ws = os.path.join(base, name)
    os.makedirs(ws)
    return ws


# ---- a third-party writer that declares nothing ------------------------------------------
WS = workspace("plant")
mark = os.path.join(base, "fsmonitor-ran-" + TAG)
p = subprocess.run([V, "--workspace", WS, "--plugin-dir", FIX, "--config", CFG, "--yes", "call",
                    "fixture_plant_repo",
                    json.dumps({"dir": "sub", "fsmonitor": "touch %s; false" % mark})],
                   capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, env=ENV)
try:
    r = json.loads(p.stdout)
except ValueError:
    r = {"output": p.stdout}
ok("plant: the call ran", r.get("planted") == "sub", (p.stdout + p.stderr)[:400])
subprocess.run(["git", "status"], cwd=os.path.join(WS, "sub"), capture_output=True, env=ENV,
               timeout=60)
ok("plant: the user's git status in the planted repository runs no fsmonitor",
   not os.path.exists(mark))
w = " ".join(r.get("warnings", []))
ok("plant: the call's warnings name the repository", "sub/.git" in w, w[:400] or p.stdout[:400])
aside = os.path.join(WS, ".vtcode", "set-aside")
kept = os.listdir(aside) if os.path.isdir(aside) else []
ok("plant: the original config is kept in .vtcode/set-aside",
   any(n.endswith("sub%.git%config") for n in kept), repr(kept))


# ---- host events heard by a plugin (serve) -------------------------------------------------
class Serve:
    def __init__(self, ws):
        self.p = subprocess.Popen([V, "--workspace", ws, "--plugin-dir", FIX, "--config", CFG,
                                   "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=ENV)
        self.n = 0
        self.send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "t", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0",
                                       "method": "notifications/initialized"}) + "\n")
        self.p.stdin.flush()

    def send(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                return {}
            m = json.loads(line)
            if m.get("id") == self.n:
                return m

    def tool(self, name, args):
        m = self.send("tools/call", {"name": name, "arguments": args})
        res = m.get("result", {})
        if res.get("structuredContent"):
            return res["structuredContent"]
        try:  # a tool without an output schema answers in text
            return json.loads(res["content"][0]["text"])
        except (KeyError, IndexError, ValueError):
            return res or m

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


WS = workspace("events")
S = Serve(WS)
# a third-party plugin's tools are deferred in serve: found first
S.tool("search_tools", {"query": "how many host events of each kind this plugin received"})
e = S.tool("fixture_events", {})
ok("events: the plugin subscribed through VT_EVENTS_SERVICE", e.get("subscribed") is True,
   json.dumps(e)[:300])
r = S.tool("exec_command", {"cmd": "echo one > one.txt", "yield_time_ms": 20000})
sandboxed = r.get("sandbox") == "workspace-write"
r = S.tool("exec_command", {"cmd": "sleep 0.3; echo two > two.txt", "yield_time_ms": 20000})
end = time.time() + 15
while time.time() < end:
    e = S.tool("fixture_events", {})
    if e.get("workspace_changed", 0) >= 1 or not sandboxed:
        break
    time.sleep(0.2)
ok("events: every call that ended was heard (3 before this one)", e.get("call_ended", 0) >= 3,
   json.dumps(e))
ok("events: the two command calls were heard as writers", e.get("writer_calls", 0) >= 2,
   json.dumps(e))
if sandboxed:
    ok("events: the sandboxed sessions were heard starting and ending",
       e.get("session_started", 0) >= 2 and e.get("session_ended", 0) >= 2, json.dumps(e))
    ok("events: the workspace's changes were heard while serving",
       e.get("workspace_changed", 0) >= 1, json.dumps(e))
else:
    print("skip: commands are not sandboxed here (%s): no session events" % r.get("sandbox"))
S.close()

shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failed)
sys.exit(1 if failed else 0)
