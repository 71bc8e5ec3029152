#!/usr/bin/env python3
"""A tool that makes its own repository is told about it once: the host
looks twice after a writing call (the check of what the call's subjects
name, ws_after, and the check of what sessions left, ws_check), and the
new repository they both see must appear once in the call's warnings,
not twice.  Tried for real with the built vthost and git:
- one-shot exec_command `git init sub && git -C sub config core.fsmonitor
  ...`, and apply_patch adding sub/.git with such a config;
- under serve, the same command finishing inside its call, and a
  background session that makes the repository after its call returned:
  named once over the calls that follow;
- afterwards the user's `git status` in sub runs no fsmonitor (a marker
  that must not appear).
Exit 77 without Landlock, namespaces or git.

    sandbox_report_once.py path/to/vthost
"""
import json
import os
import shutil
import subprocess
import sys
import time

from sbx_common import (Served, allow_config, failures, git_env, ok, require_git,
                        require_landlock, scratch_dir, tag)

V = sys.argv[1]
require_landlock()
require_git()
TAG = tag()
base = scratch_dir("vthost-report-once-")
CFG = allow_config(base, ["exec_command", "write_stdin", "apply_patch"])
ENV = git_env(base)
MARK = os.path.join(base, "fsmonitor-ran-%s" % TAG)
PLANT = ("git init -q sub && git -C sub config core.fsmonitor 'touch %s' && echo planted"
         % MARK)
SAID = "sub/.git neutralised"


def workspace(name):
    ws = os.path.join(base, name)
    os.makedirs(ws)
    return ws


def call(ws, tool, args):
    p = subprocess.run([V, "--workspace", ws, "--config", CFG, "--yes", "call", tool,
                        json.dumps(args)], capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL, env=ENV)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"output": p.stdout}


def told(result):
    """How many of the result's warnings name the new repository."""
    w = result.get("warnings")
    return sum(SAID in x for x in w) if isinstance(w, list) else 0


def user_git_status(ws):
    subprocess.run(["git", "-C", os.path.join(ws, "sub"), "status"], env=ENV,
                   capture_output=True, timeout=60)
    return not os.path.exists(MARK)


probe = call(workspace("probe"), "exec_command", {"cmd": "true"})
if probe.get("sandbox") != "workspace-write" or "not read-only" in json.dumps(probe):
    print("SKIP: commands are not sandboxed with namespaces here: " + json.dumps(probe)[:300])
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)

# ---- one-shot ------------------------------------------------------------------
WS = workspace("oneshot")
r = call(WS, "exec_command", {"cmd": PLANT, "yield_time_ms": 20000})
ok("one-shot exec: it ran", "planted" in r.get("output", ""), json.dumps(r)[:300])
ok("one-shot exec: named once", told(r) == 1, json.dumps(r.get("warnings"))[:600])
ok("one-shot exec: the user's git status runs nothing", user_git_status(WS))

WS = workspace("patch")
patch = ("*** Begin Patch\n*** Add File: sub/.git/HEAD\n+ref: refs/heads/main\n"
         "*** Add File: sub/.git/config\n+[core]\n+\tfsmonitor = touch %s\n"
         "*** Add File: sub/.git/objects/info/keep\n+x\n"
         "*** Add File: sub/.git/refs/heads/keep\n+x\n*** End Patch" % MARK)
r = call(WS, "apply_patch", {"input": patch})
ok("apply_patch: it applied", r.get("success") is True, json.dumps(r)[:300])
ok("apply_patch: named once", told(r) == 1, json.dumps(r.get("warnings"))[:600])
ok("apply_patch: the user's git status runs nothing", user_git_status(WS))

# ---- serve -----------------------------------------------------------------------
WS = workspace("serve")
S = Served(V, WS, config=CFG, env=ENV)
r = S.tool("exec_command", {"cmd": PLANT, "yield_time_ms": 20000})
ok("serve: it ran", "planted" in r.get("output", ""), json.dumps(r)[:300])
ok("serve: named once", told(r) == 1, json.dumps(r.get("warnings"))[:600])
r2 = S.tool("exec_command", {"cmd": "true", "yield_time_ms": 20000})
ok("serve: not named again by the next call", told(r2) == 0, json.dumps(r2.get("warnings")))

# a background session makes its repository after its call returned
shutil.rmtree(os.path.join(WS, "sub"))
r = S.tool("exec_command", {"cmd": "sleep 1; " + PLANT, "yield_time_ms": 100})
total = told(r)
for _ in range(6):
    time.sleep(1)
    total += told(S.tool("exec_command", {"cmd": "true", "yield_time_ms": 20000}))
ok("serve, background: named once over the calls", total == 1, "named %d times" % total)
S.close()
ok("serve: the user's git status runs nothing", user_git_status(WS))

shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if failures() else 0)
