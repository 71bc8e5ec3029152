#!/usr/bin/env python3
"""The checks around every call stamp the IDE and agent configuration
table (ws_conftab.h) without a stat where the live workspace index
vouches that a row is still absent (ws_tabview.h).  That must never hide
a change, from a command or from outside, between two calls of the same
`vthost serve`.  Tried for real with the built vthost:
- the cache warmed by two calls, a command makes .mcp.json: set aside;
- the user makes .vscode/settings.json between two calls (from outside):
  the next call keeps it (it was there before the call);
- .cursor is the user's link to a directory outside the workspace (which
  the index does not watch): the user writes .cursor/mcp.json there
  between two calls (no event in the workspace), and the next call keeps
  it: a baseline that took it for still absent would set it aside as
  made by the call; and a command that writes .cursor/mcp.json by the
  link's target path (no event in the workspace either) is caught and
  named (the entry cannot be set aside through the link: the call
  fails saying so);
- lefthook.yml made by the user between calls is kept.
Exit 77 without Landlock or namespaces.

    sandbox_tabview.py path/to/vthost
"""
import json
import os
import shutil
import sys
import tempfile

import subprocess

from sbx_common import (Served, allow_config, failures, no_userns, ok, require_landlock,
                        scratch_dir)

V = sys.argv[1]
require_landlock()
base = scratch_dir("vthost-tabview-")
CFG = allow_config(base, ["exec_command"])
WS = os.path.join(base, "ws")
# in /tmp, which commands may write: through the link it is the workspace's
OUT = tempfile.mkdtemp(prefix="vthost-tabview-out-", dir="/tmp")
os.chmod(OUT, 0o755)
os.makedirs(WS)
os.symlink(OUT, os.path.join(WS, ".cursor"))
ENV = dict(os.environ)
for k in ("CONFIG", "CACHE", "STATE"):
    ENV["XDG_%s_HOME" % k] = os.path.join(base, k.lower())

S = Served(V, WS, config=CFG, env=ENV)


def run(cmd):
    r = S.tool("exec_command", {"cmd": cmd, "yield_time_ms": 20000})
    return r, json.dumps(r.get("warnings") or [])


def here(rel):
    return os.path.lexists(os.path.join(WS, rel))


probe, _ = run("true")
if probe.get("sandbox") != "workspace-write" or "not read-only" in json.dumps(probe):
    print("SKIP: commands are not sandboxed with namespaces here: " + json.dumps(probe)[:300])
    S.close()
    shutil.rmtree(base, ignore_errors=True)
    shutil.rmtree(OUT, ignore_errors=True)
    sys.exit(77)
run("true")

# the name built at run time: the permission engine refuses a command
# that names a protected path, and the table is what catches the rest
r, w = run("n=mcp; echo '{}' > \".$n.json\" && echo made")
ok("a command makes .mcp.json: it ran", "made" in r.get("output", ""), json.dumps(r)[:300])
ok("a command makes .mcp.json: set aside", not here(".mcp.json") and ".mcp.json" in w, w)
run("true")

os.makedirs(os.path.join(WS, ".vscode"))
with open(os.path.join(WS, ".vscode", "settings.json"), "w") as f:
    f.write('{"a": 1}\n')
r, w = run("true")
ok("the user's .vscode/settings.json made between calls: kept",
   here(".vscode/settings.json") and "settings.json" not in w, w)
run("true")
with open(os.path.join(OUT, "mcp.json"), "w") as f:
    f.write("{}\n")
r, w = run("true")
ok("the user's .cursor/mcp.json (through a link, outside) made between calls: kept",
   os.path.exists(os.path.join(OUT, "mcp.json")) and "mcp.json" not in w, w)
run("true")
with open(os.path.join(WS, "lefthook.yml"), "w") as f:
    f.write("pre-commit: {}\n")
r, w = run("true")
ok("the user's lefthook.yml made between calls: kept", here("lefthook.yml") and
   "lefthook" not in w, w)

# a command writes the row through the link, by the outside path: no
# event in any directory the index watches
os.unlink(os.path.join(OUT, "mcp.json"))
run("true")
r, w = run("echo '{}' > %s/mcp.json && echo wrote" % OUT)
ok("a command writes .cursor/mcp.json by the link's target: caught and named",
   ".cursor/mcp.json was made by the call" in json.dumps(r), json.dumps(r)[:300])

S.close()

# ---- a directory the index cannot watch ------------------------------------
WS2 = os.path.join(base, "ws2")
os.makedirs(os.path.join(WS2, ".claude"))
os.chown(os.path.join(WS2, ".claude"), 4321, 4321)
os.chmod(os.path.join(WS2, ".claude"), 0o733)
S = Served(V, WS2, config=CFG, env=ENV, preexec_fn=no_userns, stderr=subprocess.PIPE)
r, _ = run("ls .claude >/dev/null 2>&1 && echo readable || echo unreadable")
if r.get("sandbox") != "workspace-write" or "unreadable" not in r.get("output", ""):
    print("note: no unprivileged host with an unreadable directory here: the unwatched "
          "directory case is not tried (%s)" % json.dumps(r)[:200])
else:
    run("true")
    r, w = run("d=claude; echo '{}' > \".$d/settings.json\" && echo made")
    said = json.dumps(r)
    ok("a command makes .claude/settings.json in a directory inotify cannot watch: caught",
       ".claude/settings.json" in said and ("made by the call" in said or
                                            "appeared" in said), said[:400])
S.close()
shutil.rmtree(base, ignore_errors=True)
shutil.rmtree(OUT, ignore_errors=True)
sys.exit(1 if failures() else 0)
