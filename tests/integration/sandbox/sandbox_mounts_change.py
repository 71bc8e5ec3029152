#!/usr/bin/env python3
"""The sandbox's plan keeps the host's mount table between calls and
reads it again only when poll(2) on /proc/self/mountinfo says it changed
(plugins/exec/sandbox_mounts.c).  A mount made between two calls of the
same `vthost serve` must be in the second call's plan: with the table
kept (two calls first), the workspace's parent is bind-mounted elsewhere
from outside, and the next command writes .git/config and plants a hook
through that second mount (Landlock follows the inode, so only the
read-only mounts the plan adds over the other paths stop it).  The bytes
of .git/config must not change and no hook may appear; the same after
the mount is gone and made again.  Needs root to set the scene (exit 77
otherwise), and Landlock and namespaces.

    sandbox_mounts_change.py path/to/vthost
"""
import os
import shutil
import subprocess
import sys

from sbx_common import Served, failures, ok, require_landlock, scratch_dir

V = sys.argv[1]
require_landlock()
if os.geteuid() != 0:
    print("SKIP: mounting a second path to the workspace needs root")
    sys.exit(77)
base = scratch_dir("vthost-mounts-change-")
WS = os.path.join(base, "ws")
os.makedirs(os.path.join(WS, ".git", "hooks"))
GITCFG = b"[core]\n\trepositoryformatversion = 0\n"
with open(os.path.join(WS, ".git", "config"), "wb") as f:
    f.write(GITCFG)
with open(os.path.join(WS, "vtcode.toml"), "w") as f:
    f.write('[permissions]\nallow = ["exec_command"]\n')
ALIAS = os.path.join(base, "alias")
os.makedirs(ALIAS)
S = Served(V, WS)


def run(cmd):
    return S.tool("exec_command", {"cmd": cmd, "yield_time_ms": 20000})


def untouched():
    with open(os.path.join(WS, ".git", "config"), "rb") as f:
        same = f.read() == GITCFG
    return same and not os.path.exists(os.path.join(WS, ".git", "hooks", "pre-commit"))


VIA = os.path.join(ALIAS, "ws", ".git")
PLANT = "echo '[core]' > %s/config; echo hook > %s/hooks/pre-commit; echo tried" % (VIA, VIA)
mounted = False
try:
    r = run("true")
    if r.get("sandbox") != "workspace-write":
        print("SKIP: commands are not sandboxed with namespaces here: %s" % str(r)[:300])
        sys.exit(77)
    run("true")
    for round_ in ("a mount made between calls", "the mount made again after it was gone"):
        subprocess.run(["mount", "--bind", base, ALIAS], check=True)
        mounted = True
        r = run(PLANT)
        ok("%s: the command ran" % round_, "tried" in r.get("output", ""), str(r)[:300])
        ok("%s: .git/config unchanged and no hook planted through it" % round_, untouched(),
           r.get("output", ""))
        subprocess.run(["umount", ALIAS], check=True)
        mounted = False
        run("true")
finally:
    if mounted:
        subprocess.run(["umount", "-l", ALIAS])
    S.close()
    shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if failures() else 0)
