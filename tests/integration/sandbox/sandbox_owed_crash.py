#!/usr/bin/env python3
"""A check owed when vthost is killed is run at its next start, tried for
real: over MCP, a background command session plants a repository with a
hostile core.fsmonitor after its call returned; `vthost serve` is killed
with SIGKILL before the session ends; vthost is started again in that
workspace (serve, and in a second workspace one-shot `vthost call`), and
then the user's own `git status` there (outside any sandbox) must run no
fsmonitor: a marker file that must not appear.  The record of the owed
check is a 0600 file under $XDG_STATE_HOME/vthost/owed/ while the session
runs and is gone after the recovery.  Also run as an ordinary user by
.ci/run.  Exit 77 without Landlock, namespaces or git.

    sandbox_owed_crash.py path/to/vthost
"""
import json
import os
import shutil
import signal
import stat
import subprocess
import sys

from sbx_common import (Served, allow_config, failures, git_env, ok, require_git,
                        require_landlock, scratch_dir, tag, wait_for)

V = sys.argv[1]
require_landlock()
require_git()
TAG = tag()
base = scratch_dir("vthost-owed-")
CFG = allow_config(base, ["exec_command", "write_stdin"])
ENV = git_env(base)
OWED = os.path.join(base, ".local", "state", "vthost", "owed")


def serve(ws):
    return Served(V, ws, CFG, ENV, stderr=subprocess.PIPE)


def descendants(pid):
    """The process ids below `pid` (by /proc's children lists)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for t in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    kids = [int(k) for k in f.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out


def records():
    return os.listdir(OWED) if os.path.isdir(OWED) else []


def plant_and_kill(name):
    """A serve session whose background command plants `name`/planted with
    a hostile fsmonitor after its call returned; vthost is then killed."""
    ws = os.path.join(base, name)
    os.makedirs(ws)
    mark = os.path.join(base, "fsmonitor-%s-%s" % (name, TAG))
    S = serve(ws)
    r = S.tool("exec_command", {
        "cmd": "sleep 1; git init -q planted && git -C planted config core.fsmonitor "
               "'touch %s; false' && touch planted/done; sleep 60" % mark,
        "yield_time_ms": 300})
    ok("%s: the call returns while its session runs" % name, r.get("session_id") is not None,
       json.dumps(r)[:300])
    rec = records()
    ok("%s: an owed check is recorded while it runs" % name, len(rec) == 1, repr(rec))
    if rec:
        st = os.lstat(os.path.join(OWED, rec[0]))
        ok("%s: the record is a 0600 file of the user" % name,
           stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600 and
           st.st_uid == os.geteuid(), oct(st.st_mode))
    planted = wait_for(lambda: os.path.exists(os.path.join(ws, "planted", "done")), 30)
    ok("%s: the session planted its repository after the call returned" % name, planted)
    tree = descendants(S.p.pid)
    os.kill(S.p.pid, signal.SIGKILL)
    S.p.wait(timeout=30)
    for pid in tree:  # whatever of the session outlived vthost
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return ws, mark


def user_git_status(ws):
    subprocess.run(["git", "status"], cwd=os.path.join(ws, "planted"), capture_output=True,
                   env=ENV, timeout=60)


# ---- the next start is `vthost serve` ----------------------------------------------
ws, mark = plant_and_kill("serve")
S = serve(ws)
r = S.tool("exec_command", {"cmd": "true", "yield_time_ms": 5000})
S.p.stdin.close()
S.p.wait(timeout=60)
err = S.p.stderr.read()
user_git_status(ws)
ok("serve: after the restart the user's git status runs no fsmonitor", not os.path.exists(mark),
   err[-400:])
ok("serve: the restart names the repository", "planted" in err or "planted" in json.dumps(r),
   err[-400:] + json.dumps(r)[:300])
ok("serve: the record is gone", not records(), repr(records()))

# ---- the next start is one-shot `vthost call` --------------------------------------
ws, mark = plant_and_kill("oneshot")
p = subprocess.run([V, "--workspace", ws, "--config", CFG, "--yes", "call", "exec_command",
                    json.dumps({"cmd": "true"})], capture_output=True, text=True, timeout=120,
                   stdin=subprocess.DEVNULL, env=ENV)
user_git_status(ws)
ok("one-shot: after the restart the user's git status runs no fsmonitor",
   not os.path.exists(mark), p.stdout[-300:] + p.stderr[-300:])
ok("one-shot: the call's warnings name the repository", "planted" in p.stdout, p.stdout[-400:])
ok("one-shot: the record is gone", not records(), repr(records()))

shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
