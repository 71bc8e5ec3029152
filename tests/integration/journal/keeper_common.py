"""What the keeper's tests share: a scratch home and cache, a configuration
that starts a keeper at 1,000 directories, a big workspace, a one-shot
call, and how to find the keeper (its socket, lock and pid) and tell
whether a call was vouched for.  Imported with the built vthost as
sys.argv[1]; exits 77 without Landlock or git.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sandbox"))
from sbx_common import (failures, git_env, ok, require_git, require_landlock, scratch_dir,  # noqa
                        wait_for)

__all__ = ["V", "HOME", "CACHE", "ENV", "CFG", "CFG_NOW", "attempt", "base", "call", "failures",
           "keeper_files", "keeper_up", "ok", "outside_repo", "pending", "vouched", "wait_for",
           "workspace"]

V = os.path.abspath(sys.argv[1])
require_landlock()
require_git()

base = scratch_dir("vthost-journal-")
HOME = os.path.join(base, "home")
CACHE = os.path.join(base, "cache")
os.makedirs(HOME)
ENV = git_env(HOME, XDG_CACHE_HOME=CACHE, XDG_STATE_HOME=os.path.join(base, "state"),
              XDG_CONFIG_HOME=os.path.join(base, "config"))
CFG = os.path.join(base, "config.toml")
with open(CFG, "w") as f:
    f.write('[sandbox]\nmode = "workspace-write"\n[permissions]\napproval = "sandboxed"\n'
            '[workspace]\nkeeper_min_dirs = 1000\nkeeper_idle_seconds = 120\n')


def workspace(name, dirs=3000):
    ws = os.path.join(base, name)
    for d in range(dirs):
        p = os.path.join(ws, "d%d" % (d // 100), "d%d" % d)
        os.makedirs(p)
        open(os.path.join(p, "f.c"), "w").close()
    subprocess.run(["git", "init", "-q", ws], check=True, env=ENV)
    return ws


CFG_NOW = [CFG]


def call(ws, cmd, cfg=None):
    cfg = cfg or CFG_NOW[0]
    p = subprocess.run([V, "-v", "--workspace", ws, "--config", cfg, "--yes", "call",
                        "exec_command", json.dumps({"cmd": cmd, "yield_time_ms": 20000})],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                       env=ENV)
    return p.stdout, p.stderr


def vouched(err):
    return "vouched for by the workspace keeper" in err


def pending():
    """The guard's count of unverified changes (state/vthost/guard)."""
    d = os.path.join(base, "state", "vthost", "guard")
    try:
        return sum(json.load(open(os.path.join(d, n)))["pending"] for n in os.listdir(d)
                   if n.endswith(".json"))
    except (OSError, ValueError, KeyError):
        return 0


def keeper_files(ws):
    """The keeper's socket and lock for ws (as vthost names them)."""
    d = os.path.join(CACHE, "vthost", "keeper")
    for n in os.listdir(d) if os.path.isdir(d) else []:
        if n.endswith("-2.lock"):
            stem = os.path.join(d, n[:-len(".lock")])
            pid = open(stem + ".lock").read().strip()
            if pid and os.path.exists("/proc/%s/cmdline" % pid):
                argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
                if len(argv) > 2 and argv[2].decode() == ws:
                    return stem + ".sock", stem + ".lock", int(pid)
    return None


def keeper_up(ws):
    """Wait until a call is vouched for (the keeper built its index)."""
    return wait_for(lambda: keeper_files(ws) is not None and vouched(call(ws, "true")[1]), 60)


def attempt(ws, rel):
    """A command writes a hook into `rel` (a .git/hooks); True when the
    file is there afterwards (the protection failed)."""
    call(ws, "echo evil > %s/pre-commit" % rel)
    return os.path.exists(os.path.join(ws, rel, "pre-commit"))


def outside_repo(ws, rel):
    os.makedirs(os.path.join(ws, rel, ".git", "hooks"))
    return os.path.join(rel, ".git", "hooks")

