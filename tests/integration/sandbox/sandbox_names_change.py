#!/usr/bin/env python3
"""The sandbox's plan keeps which protected names at the workspace root
exist (the policy files, the IDE and agent configuration, made read-only
in every session) while the workspace index logs no change
(plugins/exec/sandbox_names.c).  What the user makes between two calls
of the same `vthost serve` must be read-only in the next one: with the
answer kept (two calls first), the user makes .vscode/settings.json and
.claude/ from outside; the next commands write them by names built at
run time (the permission engine refuses the names written out).  The
writes must fail, the user's file keep its bytes and place, and nothing
appear in .claude/.  Exit 77 without Landlock or namespaces.

    sandbox_names_change.py path/to/vthost
"""
import json
import os
import shutil
import sys

from sbx_common import Served, allow_config, failures, ok, require_landlock, scratch_dir

V = sys.argv[1]
require_landlock()
base = scratch_dir("vthost-names-change-")
CFG = allow_config(base, ["exec_command"])
WS = os.path.join(base, "ws")
os.makedirs(WS)
ENV = dict(os.environ)
for k in ("CONFIG", "CACHE", "STATE"):
    ENV["XDG_%s_HOME" % k] = os.path.join(base, k.lower())
S = Served(V, WS, config=CFG, env=ENV)


def run(cmd):
    return S.tool("exec_command", {"cmd": cmd, "yield_time_ms": 20000})


try:
    r = run("true")
    if r.get("sandbox") != "workspace-write":
        print("SKIP: commands are not sandboxed with namespaces here: %s" % json.dumps(r)[:300])
        sys.exit(77)
    run("true")
    SETTINGS = os.path.join(WS, ".vscode", "settings.json")
    TEXT = b'{"editor.tabSize": 4}\n'
    os.makedirs(os.path.dirname(SETTINGS))
    with open(SETTINGS, "wb") as f:
        f.write(TEXT)
    r = run("d=vscode; echo '{}' >> \".$d/settings.json\" && echo wrote || echo refused")
    out = r.get("output", "") + json.dumps(r.get("warnings") or [])
    ok("the user's .vscode made between calls: the command's write refused",
       "refused" in r.get("output", ""), out[:300])
    kept = os.path.exists(SETTINGS) and open(SETTINGS, "rb").read() == TEXT
    ok("the user's settings.json keeps its bytes and place", kept, out[:300])
    run("true")
    os.makedirs(os.path.join(WS, ".claude"))
    r = run("d=claude; echo '{}' > \".$d/settings.json\" && echo wrote || echo refused")
    ok("the user's .claude made between calls: the command's write refused",
       "refused" in r.get("output", ""), json.dumps(r)[:300])
    ok("nothing appeared in .claude", os.listdir(os.path.join(WS, ".claude")) == [],
       str(os.listdir(os.path.join(WS, ".claude"))))
finally:
    S.close()
    shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if failures() else 0)
