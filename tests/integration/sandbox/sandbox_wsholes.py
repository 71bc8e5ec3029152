#!/usr/bin/env python3
"""What starts programs later is set aside whatever wrote it, tried for
real with the built vthost (and git):
- agent configuration from the host's table that a command makes or
  changes (.gemini/settings.json, .roo/mcp.json, opencode.json; also
  settings.json written into a .gemini/ the user already has) is moved to
  .vtcode/set-aside/ and named in the call's warnings, one-shot and
  through write_stdin in a serve session;
- apply_patch adding .roo/mcp.json is refused without an approval (the
  table's names are protected paths);
- the hook directory a repository's core.hooksPath names and the file
  its include.path names are read-only to commands (the hook's bytes
  unchanged), apply_patch adding a hook there is refused, and a hooks
  directory a command makes where core.hooksPath points is set aside;
- a directory link a command makes to a repository outside the
  workspace (`ln -s /tmp/x vendor`, /tmp/x with a core.fsmonitor) is set
  aside: the user's `git -C vendor status` afterwards runs nothing (a
  marker file that must not appear).
Also run as an ordinary user by .ci/run.  Exit 77 without Landlock or
namespaces.

    sandbox_wsholes.py path/to/vthost
"""
import json
import os
import shutil
import subprocess
import sys

from sbx_common import call_tool, failures, ok, require_landlock, scratch_dir, tag

V = sys.argv[1]
require_landlock()
TAG = tag()
base = scratch_dir("vthost-wsholes-")
CFG = os.path.join(base, "config.toml")
with open(CFG, "w") as f:
    f.write('[permissions]\nallow = ["exec_command", "write_stdin", "apply_patch"]\n')
ENV = dict((k, v) for k, v in os.environ.items()
           if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_PAGER", "PAGER", "GIT_CEILING_DIRECTORIES"))
ENV.update(GIT_CONFIG_NOSYSTEM="1", HOME=base)


def workspace(name):
    ws = os.path.join(base, name)
    os.makedirs(ws)
    return ws


def call(ws, tool, args, *opts):
    return call_tool(V, ws, CFG, tool, args, ENV, *opts)


def exec_cmd(ws, cmd):
    return call(ws, "exec_command", {"cmd": cmd, "yield_time_ms": 20000}, "--yes")


def warnings(r):
    return " ".join(r.get("warnings", [])) if isinstance(r.get("warnings"), list) else ""


def aside(ws):
    d = os.path.join(ws, ".vtcode", "set-aside")
    return os.listdir(d) if os.path.isdir(d) else []


probe = exec_cmd(workspace("probe"), "true")
if probe.get("sandbox") != "workspace-write" or "not read-only" in warnings(probe):
    print("SKIP: commands are not sandboxed with namespaces here: " + json.dumps(probe)[:300])
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)

# ---- a command makes agent configuration -----------------------------------------
WS = workspace("command")
r = exec_cmd(WS, "mkdir -p .gemini .roo && echo '{\"mcpServers\":{}}' > .gemini/settings.json && "
                 "echo '{\"mcpServers\":{}}' > .roo/mcp.json && echo '{}' > opencode.json && "
                 "echo made")
ok("command: it ran", "made" in r.get("output", ""), json.dumps(r)[:300])
for name in (".gemini", ".roo", "opencode.json"):
    ok("command: %s is set aside" % name, not os.path.exists(os.path.join(WS, name)),
       warnings(r)[:400])
    ok("command: the warnings name %s" % name, name in warnings(r), warnings(r)[:400])
ok("command: the originals are kept", len(aside(WS)) >= 3, repr(aside(WS)))

# ---- settings written into a .gemini/ the user has ----------------------------------
WS = workspace("existing")
os.makedirs(os.path.join(WS, ".gemini"))
with open(os.path.join(WS, ".gemini", "GEMINI.md"), "w") as f:
    f.write("the user's notes\n")
r = exec_cmd(WS, "python3 -c 'open(\".gemini/settings.json\", \"w\").write(\"{}\")' 2>&1; "
                 "echo ran")
gem = os.path.join(WS, ".gemini")
ok("existing: settings.json the command wrote is not left in place",
   not os.path.exists(os.path.join(gem, "settings.json")), warnings(r)[:400] + r.get("output", ""))
ok("existing: the user's own file stays", os.path.exists(os.path.join(gem, "GEMINI.md")))

# ---- through write_stdin in a serve session -------------------------------------------
WS = workspace("stdin")
S = subprocess.Popen([V, "--workspace", WS, "--config", CFG, "serve"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
n = [0]


def send(method, params, notify=False):
    msg = {"jsonrpc": "2.0", "method": method, "params": params}
    if not notify:
        n[0] += 1
        msg["id"] = n[0]
    S.stdin.write(json.dumps(msg) + "\n")
    S.stdin.flush()
    while not notify:
        line = S.stdout.readline()
        if not line:
            return {}
        m = json.loads(line)
        if m.get("id") == n[0]:
            return m


send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}})
send("notifications/initialized", {}, notify=True)
m = send("tools/call", {"name": "exec_command", "arguments": {"cmd": "sh", "yield_time_ms": 300}})
sid = m.get("result", {}).get("structuredContent", {}).get("session_id")
ok("stdin: the shell session runs", sid is not None, json.dumps(m)[:300])
m = send("tools/call", {"name": "write_stdin", "arguments": {
    "session_id": sid, "chars": "echo '{}' > opencode.json; echo written\n",
    "yield_time_ms": 3000}})
text = json.dumps(m)
ok("stdin: opencode.json written through write_stdin is set aside",
   not os.path.exists(os.path.join(WS, "opencode.json")), text[:400])
ok("stdin: the result names it", "opencode.json" in text, text[:400])
send("tools/call", {"name": "write_stdin", "arguments": {"session_id": sid, "chars": "exit\n",
                                                          "yield_time_ms": 1000}})
S.stdin.close()
S.wait(timeout=60)

# ---- apply_patch adding a table entry ----------------------------------------------------
WS = workspace("patch")
r = call(WS, "apply_patch", {"input": "*** Begin Patch\n*** Add File: .roo/mcp.json\n+{}\n"
                                      "*** End Patch"})
ok("patch: adding .roo/mcp.json is refused though apply_patch is allowed (protected path)",
   not os.path.exists(os.path.join(WS, ".roo", "mcp.json")), json.dumps(r)[:300])
r = call(WS, "apply_patch", {"input": "*** Begin Patch\n*** Add File: notes.txt\n+hi\n"
                                      "*** End Patch"})
ok("patch: an ordinary file is added", os.path.exists(os.path.join(WS, "notes.txt")),
   json.dumps(r)[:300])

# ---- a directory link into a repository outside the workspace ----------------------------
if shutil.which("git"):
    WS = workspace("link")
    outside = "/tmp/vthost-wsholes-%s" % TAG
    mark = os.path.join(base, "fsmonitor-" + TAG)
    r = exec_cmd(WS, "git init -q %s && git -C %s config core.fsmonitor 'touch %s; false' && "
                     "ln -s %s vendor && echo linked" % (outside, outside, mark, outside))
    ok("link: the command made its repository and link", "linked" in r.get("output", ""),
       json.dumps(r)[:300])
    subprocess.run(["git", "-C", "vendor", "status"], cwd=WS, capture_output=True, env=ENV,
                   timeout=60)
    ok("link: the user's git -C vendor status runs no fsmonitor", not os.path.exists(mark),
       warnings(r)[:400])
    ok("link: the link is set aside and named",
       not os.path.lexists(os.path.join(WS, "vendor")) and "vendor" in warnings(r),
       warnings(r)[:400])
    shutil.rmtree(outside, ignore_errors=True)

# ---- core.hooksPath and include targets of a protected repository ----------------------
if shutil.which("git"):
    WS = workspace("hookspath")
    hooks = os.path.join(WS, ".githooks")
    os.makedirs(hooks)
    HOOK = b"#!/bin/sh\necho the user's hook\n"
    with open(os.path.join(hooks, "pre-commit"), "wb") as f:
        f.write(HOOK)
    with open(os.path.join(WS, "shared.gitconfig"), "w") as f:
        f.write("[user]\n\tname = t\n")
    subprocess.run(["git", "init", "-q", WS], check=True, env=ENV)
    subprocess.run(["git", "-C", WS, "config", "core.hooksPath", ".githooks"], check=True, env=ENV)
    subprocess.run(["git", "-C", WS, "config", "include.path", "../shared.gitconfig"], check=True,
                   env=ENV)
    # (a program writes: the command text names no protected path)
    r = exec_cmd(WS, "python3 -c 'import sys\nfor p in sys.argv[1:]:\n  try:\n    open(p, \"a\")"
                     ".write(\"evil\")\n    print(\"wrote\", p)\n  except OSError as e:\n"
                     "    print(\"refused\", p, e.strerror)' .githooks/pre-commit "
                     ".githooks/post-checkout shared.gitconfig")
    out = r.get("output", "")
    with open(os.path.join(hooks, "pre-commit"), "rb") as f:
        ok("hooksPath: writing the hook is refused and its bytes are unchanged",
           "refused .githooks/pre-commit" in out and f.read() == HOOK, out[:400])
    ok("hooksPath: a new hook in that directory is refused",
       "refused .githooks/post-checkout" in out and
       not os.path.exists(os.path.join(hooks, "post-checkout")), out[:400])
    with open(os.path.join(WS, "shared.gitconfig")) as f:
        ok("include.path: the included file is read-only",
           "refused shared.gitconfig" in out and "evil" not in f.read(), out[:400])
    r = call(WS, "apply_patch", {"input": "*** Begin Patch\n*** Add File: .githooks/pre-push\n"
                                          "+#!/bin/sh\n+touch x\n*** End Patch"})
    ok("hooksPath: apply_patch adding a hook there is refused or set aside",
       not os.path.exists(os.path.join(hooks, "pre-push")), json.dumps(r)[:300])
    # a hooksPath that does not exist yet: what a command makes there is set aside
    WS = workspace("hookspath-missing")
    subprocess.run(["git", "init", "-q", WS], check=True, env=ENV)
    subprocess.run(["git", "-C", WS, "config", "core.hooksPath", "hooks"], check=True, env=ENV)
    r = exec_cmd(WS, "mkdir hooks && printf '#!/bin/sh\\ntouch x\\n' > hooks/pre-commit && "
                     "chmod +x hooks/pre-commit && echo made")
    ok("hooksPath missing: the directory a command makes there is set aside and named",
       "made" in r.get("output", "") and not os.path.exists(os.path.join(WS, "hooks")) and
       "hooks" in warnings(r), json.dumps(r)[:400])

shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
