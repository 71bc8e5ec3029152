#!/usr/bin/env python3
"""A command session that outlives its call and then CHANGES what the
user already has, tried for real over MCP (`vthost serve` on stdio):
an existing `.vscode/tasks.json` gets a payload task, the workspace's own
`.git/config` gets a core.fsmonitor, and a hook in the core.hooksPath
directory gets a payload line, all after the call that started the
session returned.  The host must judge it when the session ends (the
report in the next call's result), or at the next call while the session
still runs (a table entry as soon as the workspace index sees it): the
tasks.json is set aside and named, the hook is set aside,
and the user's own `git status` afterwards (outside any sandbox) runs no
fsmonitor (a marker file that must not appear).  All is checked before
vthost exits (its exit runs a check of its own).

With mount namespaces these entries are read-only to commands; where the
machine refuses unprivileged user namespaces the sandbox is Landlock alone
and they are writable, which is what this test makes (a user namespace
whose limit of nested ones is 0).  Also run as an ordinary user by
.ci/run.  Exit 77 without Landlock or git.

    sandbox_session_change.py path/to/vthost
"""
import json
import os
import shutil
import subprocess
import sys
import time

from sbx_common import (Served, allow_config, failures, git_env, no_userns, ok, require_git,
                        require_landlock, scratch_dir, tag, wait_for)

V = sys.argv[1]
require_landlock()
require_git()
TAG = tag()
base = scratch_dir("vthost-sesschange-")
CFG = allow_config(base, ["exec_command", "write_stdin"])
ENV = git_env(base)
TASKS = b'{"version": "2.0.0", "tasks": [{"label": "the user\'s build", "command": "make"}]}\n'
HOOK = b"#!/bin/sh\necho the user's hook\n"


def serve(ws):
    """serve as a machine without unprivileged user namespaces has it."""
    return Served(V, ws, CFG, ENV, preexec_fn=no_userns, stderr=subprocess.PIPE)


def git(ws, *args):
    subprocess.run(["git", "-C", ws, *args], check=True, capture_output=True, env=ENV)


def workspace(name):
    """A repository of the user's with VS Code tasks and a hooks directory
    named by core.hooksPath."""
    ws = os.path.join(base, name)
    os.makedirs(os.path.join(ws, ".vscode"))
    os.makedirs(os.path.join(ws, ".githooks"))
    with open(os.path.join(ws, ".vscode", "tasks.json"), "wb") as f:
        f.write(TASKS)
    with open(os.path.join(ws, ".githooks", "pre-commit"), "wb") as f:
        f.write(HOOK)
    os.chmod(os.path.join(ws, ".githooks", "pre-commit"), 0o755)
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", ".githooks")
    return ws


def attack(ws, mark, tail):
    """A script (as a model could have written it in an earlier call: the
    command text names no protected path) that sleeps past the call, then
    changes the three entries in place."""
    with open(os.path.join(ws, "attack.sh"), "w") as f:
        f.write("sleep 2\n"
                "printf '%%s\\n' '{\"tasks\":[{\"label\":\"x\",\"command\":\"touch %s\","
                "\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' >> .vscode/tasks.json\n"
                "git config core.fsmonitor 'touch %s; false'\n"
                "echo 'touch %s' >> .githooks/pre-commit\n"
                "touch .changed\n%s\n" % (mark, mark, mark, tail))
    return "sh attack.sh"


def probe():
    """The sandbox is Landlock alone here, and the entries are writable
    to a command in it (else there is nothing to show)."""
    ws = workspace("probe")
    S = serve(ws)
    with open(os.path.join(ws, "probe.sh"), "w") as f:
        f.write("echo >> .vscode/tasks.json && echo writable\n")
    r = S.tool("exec_command", {"cmd": "sh probe.sh",
                                "yield_time_ms": 10000})
    S.close()
    if "writable" not in r.get("output", "") or r.get("sandbox") != "workspace-write":
        print("SKIP: no Landlock-only sandbox with writable entries here: " + json.dumps(r)[:300])
        shutil.rmtree(base, ignore_errors=True)
        sys.exit(77)


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def judge(name, ws, mark, text):
    tasks = read(os.path.join(ws, ".vscode", "tasks.json"))
    ok("%s: the payload task is not left in .vscode/tasks.json" % name, mark.encode() not in tasks,
       tasks[:200].decode(errors="replace"))
    ok("%s: the result names .vscode/tasks.json as set aside" % name,
       ".vscode/tasks.json" in text and "not applied" in text, text[:600])
    body = read(os.path.join(ws, ".githooks", "pre-commit"))
    ok("%s: the payload is not left in the hook" % name, mark.encode() not in body,
       body[:200].decode(errors="replace"))
    subprocess.run(["git", "status"], cwd=ws, capture_output=True, env=ENV, timeout=60)
    ok("%s: the user's git status runs no fsmonitor" % name, not os.path.exists(mark), text[:600])
    kept = os.path.join(ws, ".vtcode", "set-aside")
    ok("%s: the originals are kept in .vtcode/set-aside/" % name,
       os.path.isdir(kept) and len(os.listdir(kept)) >= 1, text[:300])


probe()

# ---- the session ends; the next call carries the report -----------------------------
ws = workspace("ended")
mark = os.path.join(base, "marker-ended-" + TAG)
S = serve(ws)
r = S.tool("exec_command", {"cmd": attack(ws, mark, "exit 0"), "yield_time_ms": 300})
ok("ended: the call returns while its session runs", r.get("session_id") is not None,
   json.dumps(r)[:300])
ok("ended: the session changed the entries after its call returned",
   wait_for(lambda: os.path.exists(os.path.join(ws, ".changed")), 30))
time.sleep(1.5)  # the session's end is noticed by the host on its own
r2 = S.tool("exec_command", {"cmd": "true", "yield_time_ms": 5000})
# judged before vthost exits: its exit runs a check of its own
judge("ended", ws, mark, json.dumps(r2))
S.close()

# ---- the session still runs at the next call --------------------------------------------
ws = workspace("running")
mark = os.path.join(base, "marker-running-" + TAG)
S = serve(ws)
r = S.tool("exec_command", {"cmd": attack(ws, mark, "sleep 60"), "yield_time_ms": 300})
sid = r.get("session_id")
ok("running: the call returns while its session runs", sid is not None, json.dumps(r)[:300])
ok("running: the session changed the entries after its call returned",
   wait_for(lambda: os.path.exists(os.path.join(ws, ".changed")), 30))
ok("running: the changed tasks.json is set aside as the index sees it, before any call",
   wait_for(lambda: mark.encode() not in read(os.path.join(ws, ".vscode", "tasks.json")), 10))
r2 = S.tool("exec_command", {"cmd": "true", "yield_time_ms": 5000})
text = json.dumps(r2)
judge("running", ws, mark, text)
print("  (the result's warnings: %s)" % json.dumps(r2.get("warnings"))[:900])
ok("running: its session still runs", sid is not None and
   S.tool("write_stdin", {"session_id": sid, "chars": "", "yield_time_ms": 100}).get(
       "session_id") is not None)
S.close()

# ---- in the call itself; git's own writes left alone -------------------------------------------
ws = workspace("incall")
mark = os.path.join(base, "marker-incall-" + TAG)
S = serve(ws)
with open(os.path.join(ws, "arm.sh"), "w") as f:
    f.write("git config core.fsmonitor 'touch %s; false' && echo armed\n" % mark)
r = S.tool("exec_command", {"cmd": "sh arm.sh", "yield_time_ms": 10000})
subprocess.run(["git", "status"], cwd=ws, capture_output=True, env=ENV, timeout=60)
ok("in-call: the command armed the repository", "armed" in r.get("output", ""),
   json.dumps(r)[:300])
ok("in-call: the user's git status runs no fsmonitor", not os.path.exists(mark),
   json.dumps(r)[:600])
ok("in-call: the result names the repository", ".git" in json.dumps(r.get("warnings")),
   json.dumps(r)[:600])
S.close()
# a session setting an upstream and a remote (git writes config, names no program)
ws = workspace("tracking")
S = serve(ws)
with open(os.path.join(ws, "track.sh"), "w") as f:
    f.write("sleep 1\ngit config branch.main.remote origin\n"
            "git config remote.origin.url https://example.invalid/x.git\ntouch .tracked\n")
r = S.tool("exec_command", {"cmd": "sh track.sh", "yield_time_ms": 200})
wait_for(lambda: os.path.exists(os.path.join(ws, ".tracked")), 30)
time.sleep(1.5)
r = S.tool("exec_command", {"cmd": "true", "yield_time_ms": 5000})
hp = subprocess.run(["git", "-C", ws, "config", "core.hooksPath"], capture_output=True,
                    text=True, env=ENV).stdout.strip()
ok("git's own writes: the user's core.hooksPath stays", hp == ".githooks",
   json.dumps(r)[:600])
ok("git's own writes: the upstream is kept", subprocess.run(
    ["git", "-C", ws, "config", "branch.main.remote"], capture_output=True, text=True,
    env=ENV).stdout.strip() == "origin")
S.close()

shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
