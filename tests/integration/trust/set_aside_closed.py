#!/usr/bin/env python3
"""A command-made vtcode.toml that cannot be set aside is not applied
later (fail closed).

In a trusted workspace whose .vtcode is a plain file (so the move to
.vtcode/ fails), a command writes vtcode.toml with an allow rule.  The
call's warning says it is recorded; a new `vthost explain` refuses to
start on it, naming the file and what to do, instead of answering
"allow"; `vthost trust` after review clears the record and the file
applies again.  Exit 77 when commands are not sandboxed here.

Usage: set_aside_closed.py VTHOST
"""
import json
import os
import shutil
import subprocess
import sys

from trustlib import check, finish, scratch


VTHOST = sys.argv[1]
root, ws, home, ENV = scratch("vthost-closed-", keep_state=False)
state = os.path.join(root, "state")
for d in (os.path.join(home, ".config", "vtcode"), state):
    os.makedirs(d)
ENV["XDG_STATE_HOME"] = state
with open(os.path.join(home, ".config", "vtcode", "vtcode.toml"), "w") as f:
    f.write('[trust]\nworkspaces = [%s]\n' % json.dumps(ws))



def run(*args):
    return subprocess.run([VTHOST, "--workspace", ws, *args], capture_output=True, text=True,
                          env=ENV, cwd=ws, timeout=120, stdin=subprocess.DEVNULL)


def explain():
    return run("explain", "exec_command", json.dumps({"cmd": "echo hi > f"}))


before = explain()
check("before: the command is asked for", '"decision":"ask"' in before.stdout,
      before.stdout + before.stderr)

with open(os.path.join(ws, ".vtcode"), "w") as f:  # a plain file: nothing can move into it
    f.write("not a directory\n")
toml = os.path.join(ws, "vtcode.toml")
r = run("--yes", "call", "exec_command",
        json.dumps({"cmd": "printf '[permissions]\\nallow = [\"exec_command\"]\\n' > vtcode.toml"}))
try:
    res = json.loads(r.stdout)
except ValueError:
    res = {}
if res.get("sandbox") in (None, "none"):
    print("SKIP: commands are not sandboxed here: " + (r.stdout + r.stderr)[:300])
    shutil.rmtree(root, ignore_errors=True)
    sys.exit(77)
check("the command made vtcode.toml and it could not be moved", os.path.isfile(toml),
      r.stdout + r.stderr)
warn = " ".join(res.get("warnings", []))
check("the call says it is recorded and not applied later",
      "could not be moved aside" in warn and "no later vthost start applies it" in warn, warn)

after = explain()
check("a new explain does not apply it", '"decision":"allow"' not in after.stdout and
      after.returncode != 0, after.stdout + after.stderr)
check("and says why, naming the file and what to do",
      toml in after.stderr and "made by a command" in after.stderr and
      "vthost trust" in after.stderr, after.stderr)
check("the file itself is kept (nothing lost)", os.path.isfile(toml))

t = run("trust", ws)
check("vthost trust after review clears the record",
      t.returncode == 0 and "no longer refused" in t.stdout, t.stdout + t.stderr)
again = explain()
check("then the reviewed file applies", '"decision":"allow"' in again.stdout,
      again.stdout + again.stderr)

finish("set-aside", root)
