#!/usr/bin/env python3
"""A command cannot leave behind a repository in a form git accepts and
vthost would not recognise, tried for real with git and the built vthost:
a bare repository whose HEAD reads "ref:refs/heads/main" (no space), one
whose HEAD is a symbolic link to refs/heads/main, and a git directory
whose commondir file names objects and refs elsewhere with a
config.worktree; each with core.worktree and core.fsmonitor set, so that
the user's own `git status` there afterwards (outside any sandbox, as the
same user) would run the payload: a marker file that must not appear.
And a repository that ships .vtcode/set-aside as a plain file no longer
switches the check off: the repository a command makes there is still
neutralised (fail closed), the originals kept beside it, and the
warnings say why.  Exit 77 without Landlock, namespaces or git.

    sandbox_gitdirs.py path/to/vthost
"""
import json
import os
import shutil
import subprocess
import sys

from sbx_common import (COMMITTER, allow_config, failures, git_env, ok, require_git,
                        require_landlock, scratch_dir, tag)

V = sys.argv[1]
require_landlock()
require_git()
TAG = tag()
base = scratch_dir("vthost-gitdirs-")
MARK = os.path.join(base, "markers")
os.makedirs(MARK)
CFG = allow_config(base, ["exec_command", "write_stdin"])
GIT_ENV = git_env(base, **COMMITTER)
# a program writes the files: the command text names no path it checks
WRITE = ("python3 -c 'import os,sys; [open(p, \"w\").write(t) for p, t in "
         "zip(sys.argv[1::2], sys.argv[2::2])]' ")


def workspace(name):
    ws = os.path.join(base, name)
    os.makedirs(ws)
    return ws


def call(ws, cmd):
    p = subprocess.run([V, "--workspace", ws, "--config", CFG, "--yes", "call", "exec_command",
                        json.dumps({"cmd": cmd, "yield_time_ms": 20000})],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                       env=GIT_ENV)
    try:
        r = json.loads(p.stdout)
    except ValueError:
        r = {"output": p.stdout + p.stderr}
    return r


def user_git(cwd, *args):
    """git as the user runs it: outside any sandbox, no ceiling."""
    return subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True, text=True,
                          env=GIT_ENV, timeout=60)


def marker(name):
    return os.path.join(MARK, "%s-%s" % (name, TAG))


def warnings(r):
    return " ".join(r.get("warnings", []))


def payload(ws, mark):
    return "[core]\n\trepositoryformatversion = 0\n\tworktree = %s\n\tfsmonitor = \"touch %s; " \
           "false\"\n" % (ws, mark)


def q(s):
    return "'" + s.replace("'", "'\\''") + "'"


probe = call(workspace("probe"), "true")
if probe.get("sandbox") != "workspace-write" or "not read-only" in warnings(probe):
    print("SKIP: commands are not sandboxed with namespaces here: " + json.dumps(probe)[:300])
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)

# ---- HEAD "ref:refs/heads/main", no space -----------------------------------------------
WS = workspace("nospace")
m = marker("nospace")
r = call(WS, "mkdir -p src/objects src/refs && " + WRITE +
         "src/HEAD 'ref:refs/heads/main\n' src/config " + q(payload(WS, m)) + " && echo made")
ok("no-space HEAD: the command ran", "made" in r.get("output", ""), json.dumps(r)[:300])
user_git(os.path.join(WS, "src"), "status")
ok("no-space HEAD: the user's git status runs no fsmonitor", not os.path.exists(m),
   warnings(r)[:300])
ok("no-space HEAD: the warnings name it", "src" in warnings(r) and "core.fsmonitor" in
   warnings(r), warnings(r)[:300])

# ---- HEAD a symbolic link to refs/heads/main -----------------------------------------------
WS = workspace("symhead")
m = marker("symhead")
r = call(WS, "mkdir -p src/objects src/refs && ln -s refs/heads/main src/HEAD && " + WRITE +
         "src/config " + q(payload(WS, m)) + " && echo made")
ok("symlinked HEAD: the command ran", "made" in r.get("output", ""), json.dumps(r)[:300])
user_git(os.path.join(WS, "src"), "status")
ok("symlinked HEAD: the user's git status runs no fsmonitor", not os.path.exists(m),
   warnings(r)[:300])

# ---- a commondir naming objects and refs elsewhere, with config.worktree ---------------
WS = workspace("commondir")
m = marker("commondir")
wt_cfg = "[core]\n\tworktree = %s\n\tfsmonitor = \"touch %s; false\"\n" % (WS, m)
common_cfg = "[core]\n\trepositoryformatversion = 0\n[extensions]\n\tworktreeConfig = true\n"
r = call(WS, "mkdir -p wt common/objects common/refs && " + WRITE +
         "wt/HEAD 'ref: refs/heads/main\n' wt/commondir '../common\n' wt/config.worktree " +
         q(wt_cfg) + " common/config " + q(common_cfg) + " && echo made")
ok("commondir: the command ran", "made" in r.get("output", ""), json.dumps(r)[:300])
user_git(os.path.join(WS, "wt"), "status")
ok("commondir: the user's git status runs no fsmonitor", not os.path.exists(m),
   warnings(r)[:300])
ok("commondir: the warnings name config.worktree", "config.worktree" in warnings(r),
   warnings(r)[:300])

# ---- .vtcode/set-aside shipped as a plain file or a link: fail closed -------------------
for label in ("file", "link"):
    WS = workspace("aside-" + label)
    os.makedirs(os.path.join(WS, ".vtcode"))
    aside = os.path.join(WS, ".vtcode", "set-aside")
    elsewhere = os.path.join(base, "elsewhere-" + label)
    os.makedirs(elsewhere)
    if label == "file":
        with open(aside, "w") as f:
            f.write("shipped by the repository\n")
    else:
        os.symlink(elsewhere, aside)
    m = marker("aside-" + label)
    r = call(WS, "git init -q --bare src && git --git-dir=src config --unset core.bare && "
             "git --git-dir=src config core.worktree %s && "
             "git --git-dir=src config core.fsmonitor 'touch %s; false' && echo made" % (WS, m))
    ok("set-aside a %s: the command ran" % label, "made" in r.get("output", ""),
       json.dumps(r)[:300])
    user_git(os.path.join(WS, "src"), "status")
    ok("set-aside a %s: the user's git status runs no fsmonitor" % label, not os.path.exists(m),
       warnings(r)[:400])
    ok("set-aside a %s: the warnings say set-aside cannot be used" % label,
       "cannot be used" in warnings(r), warnings(r)[:400])
    kept = [n for n in os.listdir(os.path.join(WS, "src")) if n.startswith("vthost-set-aside-")]
    ok("set-aside a %s: the original config is kept beside it" % label,
       any(n.endswith("config") for n in kept), repr(os.listdir(os.path.join(WS, "src"))))
    ok("set-aside a %s: nothing was written through it" % label, os.listdir(elsewhere) == [])

shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
