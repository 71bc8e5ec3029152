#!/usr/bin/env python3
"""apply_patch cannot leave behind a repository that runs something when
the user later works there, tried for real with git and the built vthost:
a patch plants a bare repository (HEAD, a config with core.worktree and
core.fsmonitor, objects/ and refs/) in a subdirectory or at the workspace
root, in each form git accepts (HEAD "ref:" with or without a space, a
HEAD symlink is out of a patch's reach; a commondir file naming objects
and refs elsewhere with a config.worktree), and the user's own
`git status` there afterwards (outside any sandbox, as the same user)
must run no fsmonitor: a marker file that must not appear.  The
originals are kept (in .vtcode/set-aside/, or beside them when
.vtcode/set-aside is a file or a link, or .vtcode a file: fail closed)
and the call's
warnings name them.  An ordinary patch in a real repository reports
nothing.

    patch_plants_repo.py path/to/vthost
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

V = sys.argv[1]
if not shutil.which("git"):
    print("SKIP: git is not installed")
    sys.exit(77)
TAG = "%d%d" % (os.getpid(), int(time.time()) % 100000)
base = tempfile.mkdtemp(prefix="vthost-patch-repo-", dir="/var/tmp")
MARK = os.path.join(base, "markers")
os.makedirs(MARK)
GIT_ENV = dict((k, v) for k, v in os.environ.items()
               if k not in ("GIT_CEILING_DIRECTORIES", "GIT_DIR", "GIT_WORK_TREE", "GIT_PAGER",
                            "PAGER", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"))
GIT_ENV.update(GIT_CONFIG_NOSYSTEM="1", HOME=base, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@e")
failed = 0


def ok(name, cond, detail=""):
    global failed
    print(("ok   " if cond else "FAIL ") + name + ("" if cond or not detail else ": " + detail))
    failed += 0 if cond else 1


def workspace(name):
    ws = os.path.join(base, name)
    os.makedirs(ws)
    return ws


def marker(name):
    return os.path.join(MARK, "%s-%s" % (name, TAG))


def patch(ws, files):
    """apply_patch adding `files` ({path: text}) in `ws`; the response."""
    lines = ["*** Begin Patch"]
    for path, text in files.items():
        lines.append("*** Add File: " + path)
        lines.extend("+" + line for line in text.split("\n"))
    lines.append("*** End Patch")
    p = subprocess.run([V, "--workspace", ws, "--yes", "call", "apply_patch",
                        json.dumps({"input": "\n".join(lines)})],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                       env=GIT_ENV)
    try:
        r = json.loads(p.stdout)
    except ValueError:
        r = {"error": p.stdout + p.stderr}
    return r


def user_git(cwd, *args):
    """git as the user runs it: outside any sandbox, no ceiling."""
    return subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True, text=True,
                          env=GIT_ENV, timeout=60)


def warnings(r):
    return " ".join(r.get("warnings", []))


def bare(head, worktree, mark, where=""):
    """The files of a bare repository whose fsmonitor touches `mark`."""
    p = where + "/" if where else ""
    return {p + "HEAD": head,
            p + "config": "[core]\n\trepositoryformatversion = 0\n\tworktree = %s\n"
                          "\tfsmonitor = \"touch %s; false\"" % (worktree, mark),
            p + "objects/.keep": "", p + "refs/.keep": ""}


# ---- a bare repository planted in a subdirectory ------------------------------------
for label, head in (("space", "ref: refs/heads/main"), ("no-space", "ref:refs/heads/main")):
    WS = workspace("sub-" + label)
    m = marker("sub-" + label)
    r = patch(WS, bare(head, WS, m, "src"))
    ok("subdirectory (%s): the patch applied" % label, r.get("success") is True,
       json.dumps(r)[:300])
    user_git(os.path.join(WS, "src"), "status")
    ok("subdirectory (%s): the user's git status there runs no fsmonitor" % label,
       not os.path.exists(m), warnings(r)[:300])
    ok("subdirectory (%s): the warnings name the repository and the key" % label,
       "src" in warnings(r) and "core.fsmonitor" in warnings(r), warnings(r)[:300])
    aside = os.path.join(WS, ".vtcode", "set-aside")
    kept = os.listdir(aside) if os.path.isdir(aside) else []
    ok("subdirectory (%s): the original config is kept in .vtcode/set-aside/" % label,
       any(n.endswith("src%config") for n in kept), repr(kept))

# ---- at the workspace root (a workspace without .git) ----------------------------------
WS = workspace("root")
os.makedirs(os.path.join(WS, "lib"))
m = marker("root")
r = patch(WS, bare("ref: refs/heads/main", WS, m))
user_git(os.path.join(WS, "lib"), "status")
user_git(WS, "status")
ok("root: the user's git status in the workspace runs no fsmonitor", not os.path.exists(m),
   warnings(r)[:300])
ok("root: the warnings say so", "core.fsmonitor" in warnings(r), warnings(r)[:300])

# ---- a commondir naming objects and refs elsewhere, with a config.worktree ----------
WS = workspace("commondir")
m = marker("commondir")
r = patch(WS, {"wt/HEAD": "ref: refs/heads/main", "wt/commondir": "../common",
               "wt/config.worktree": "[core]\n\tworktree = %s\n\tfsmonitor = \"touch %s; false\""
                                     % (WS, m),
               "common/config": "[core]\n\trepositoryformatversion = 0\n"
                                "[extensions]\n\tworktreeConfig = true",
               "common/objects/.keep": "", "common/refs/.keep": ""})
user_git(os.path.join(WS, "wt"), "status")
ok("commondir: the user's git status runs no fsmonitor", not os.path.exists(m),
   warnings(r)[:300])
ok("commondir: the warnings name config.worktree", "config.worktree" in warnings(r),
   warnings(r)[:300])

# ---- .vtcode/set-aside is a file, or a link: fail closed -------------------------------
for label in ("set-aside a file", "set-aside a link", ".vtcode a file"):
    WS = workspace("aside-" + label.replace(" ", "-"))
    aside = os.path.join(WS, ".vtcode", "set-aside")
    elsewhere = os.path.join(base, "elsewhere-" + label.replace(" ", "-"))
    os.makedirs(elsewhere)
    if label == "set-aside a file":
        os.makedirs(os.path.join(WS, ".vtcode"))
        with open(aside, "w") as f:
            f.write("shipped by the repository\n")
    elif label == "set-aside a link":
        os.makedirs(os.path.join(WS, ".vtcode"))
        os.symlink(elsewhere, aside)
    else:
        with open(os.path.join(WS, ".vtcode"), "w") as f:
            f.write("shipped by the repository\n")
    m = marker("aside-" + label.replace(" ", "-"))
    r = patch(WS, bare("ref: refs/heads/main", WS, m, "src"))
    user_git(os.path.join(WS, "src"), "status")
    ok("%s: the user's git status runs no fsmonitor" % label, not os.path.exists(m),
       json.dumps(r)[:400])
    ok("%s: the warnings say set-aside cannot be used" % label,
       "set-aside" in warnings(r) and "cannot be used" in warnings(r), warnings(r)[:400])
    kept = [n for n in os.listdir(os.path.join(WS, "src")) if n.startswith("vthost-set-aside-")]
    ok("%s: the original config is kept beside it" % label,
       any(n.endswith("config") for n in kept), repr(os.listdir(os.path.join(WS, "src"))))
    ok("%s: nothing was written through it" % label, os.listdir(elsewhere) == [])

# ---- an ordinary patch in a real repository: nothing to report --------------------------
WS = workspace("own")
user_git(WS, "init", "-q")
user_git(WS, "config", "core.pager", "less -R")
with open(os.path.join(WS, ".git", "config"), "rb") as f:
    own = f.read()
r = patch(WS, {"src/main.c": "int main(void) { return 0; }"})
ok("own: an ordinary patch applies", r.get("success") is True, json.dumps(r)[:300])
ok("own: and reports nothing", not r.get("warnings"), warnings(r)[:300])
with open(os.path.join(WS, ".git", "config"), "rb") as f:
    ok("own: the repository's config keeps its bytes", f.read() == own)

# ---- a patch that arms the user's own repository (its .git/config) ---------------------
m = marker("own-armed")
upd = ("*** Begin Patch\n*** Update File: .git/config\n@@\n+[core]\n"
       "+\tfsmonitor = \"touch %s; false\"\n*** End Patch" % m)
p = subprocess.run([V, "--workspace", WS, "--yes", "call", "apply_patch",
                    json.dumps({"input": upd})], capture_output=True, text=True, timeout=60,
                   stdin=subprocess.DEVNULL, env=GIT_ENV)
r = json.loads(p.stdout) if p.stdout.startswith("{") else {"error": p.stdout + p.stderr}
user_git(WS, "status")
ok("own, armed: a fsmonitor patched into .git/config does not run", not os.path.exists(m),
   json.dumps(r)[:300])
ok("own, armed: the warnings say so", "core.fsmonitor" in warnings(r), warnings(r)[:300])
lg = user_git(WS, "status", "--short")
ok("own, armed: the repository still works", lg.returncode == 0, lg.stderr)

shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failed)
sys.exit(1 if failed else 0)
