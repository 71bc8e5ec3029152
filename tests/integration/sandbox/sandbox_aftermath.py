#!/usr/bin/env python3
"""Nothing a command leaves behind runs later, tried for real with git and
the built vthost:
- a repository a command makes (nested, `git init .` in a workspace
  without .git, a gitfile naming a hostile git directory) is neutralised:
  the user's own `git status` / `git checkout` there afterwards runs no
  fsmonitor and no hook (marker files must not appear), commits still
  work, the originals are kept under .vtcode/set-aside/ and named in the
  call's warnings;
- IDE and agent configuration (.vscode/, .claude/, .mcp.json...) cannot
  be changed when it exists (bytes unchanged) and is set aside when a
  command makes it;
- in a serve session that outlives its call, a vtcode.toml written after
  the call returned is set aside as it appears, and a repository made
  then is neutralised when the session ends, before any further call.
Exit 77 without Landlock or namespaces.

    sandbox_aftermath.py path/to/vthost
"""
import json
import os
import shutil
import subprocess
import sys
import time

from sbx_common import (COMMITTER, Served, allow_config, call_tool, failures, git_env, ok,
                        require_git, require_landlock, scratch_dir, tag, wait_for)

V = sys.argv[1]
require_landlock()
require_git()
TAG = tag()
base = scratch_dir("vthost-aftermath-")
MARK = os.path.join(base, "markers")
os.makedirs(MARK)
CFG = allow_config(base, ["exec_command", "write_stdin"])
GIT_ENV = git_env(base, **COMMITTER)


def workspace(name):
    ws = os.path.join(base, name)
    os.makedirs(ws)
    return ws


def call(ws, cmd, **extra):
    a = {"cmd": cmd, "yield_time_ms": 20000}
    a.update(extra)
    return call_tool(V, ws, CFG, "exec_command", a, GIT_ENV, "--yes")


def user_git(cwd, *args):
    """git as the user runs it, outside any sandbox."""
    return subprocess.run(["git"] + list(args), cwd=cwd, capture_output=True, text=True,
                          env=GIT_ENV, timeout=60)


def marker(name):
    return os.path.join(MARK, "%s-%s" % (name, TAG))


def warnings(r):
    return " ".join(r.get("warnings", []))


# Without namespaces the protected paths cannot hold: skip.
probe = call(workspace("probe"), "true")
if probe.get("sandbox") != "workspace-write" or "not read-only" in warnings(probe):
    print("SKIP: commands are not sandboxed with namespaces here: " + json.dumps(probe)[:300])
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)

HOOK = "#!/bin/sh\ntouch %s\n"

# ---- a nested repository with a hostile fsmonitor and a hook --------------------
WS = workspace("nested")
m_fsm, m_hook = marker("fsmonitor"), marker("hook")
# (a program writes the hook: the command text names no .git path)
WRITE_HOOK = ("python3 -c 'import os,sys; p=sys.argv[1]; open(p, \"w\").write(sys.argv[2]); "
              "os.chmod(p, 0o755)' ")
r = call(WS, "git init -q sub && cd sub && git config core.fsmonitor 'touch %s; false' && "
         "git config alias.st '!touch %s' && %s .git/hooks/post-checkout '%s' && "
         "echo a > f && git add f && git commit -qm one && git branch other && echo made"
         % (m_fsm, marker("alias"), WRITE_HOOK, HOOK % m_hook))
ok("nested: the command made and committed its repository", "made" in r.get("output", ""),
   json.dumps(r)[:400])
ok("nested: the warnings name the neutralised repository",
   "sub/.git" in warnings(r) and "core.fsmonitor" in warnings(r), warnings(r)[:400])
user_git(os.path.join(WS, "sub"), "status")
user_git(os.path.join(WS, "sub"), "checkout", "-q", "other")
user_git(os.path.join(WS, "sub"), "st")
ok("nested: the user's git status runs no fsmonitor", not os.path.exists(m_fsm))
ok("nested: the user's git checkout runs no hook", not os.path.exists(m_hook))
ok("nested: no ! alias stays", not os.path.exists(marker("alias")))
aside = os.path.join(WS, ".vtcode", "set-aside")
kept = os.listdir(aside) if os.path.isdir(aside) else []
ok("nested: the hook and the config were moved aside, not deleted",
   any(n.endswith("hooks%post-checkout") for n in kept) and
   any(n.endswith("%config") for n in kept), repr(kept))
ok("nested: *.sample hooks stay",
   any(n.endswith(".sample") for n in os.listdir(os.path.join(WS, "sub", ".git", "hooks"))))
lg = user_git(os.path.join(WS, "sub"), "log", "--oneline")
ok("nested: the repository still works", lg.returncode == 0 and "one" in lg.stdout,
   lg.stderr)
# the user commits there as usual
with open(os.path.join(WS, "sub", "g"), "w") as f:
    f.write("g\n")
user_git(os.path.join(WS, "sub"), "add", "g")
c = user_git(os.path.join(WS, "sub"), "commit", "-qm", "two")
ok("nested: the user can still commit", c.returncode == 0, c.stderr)
# a second call does not report the same repository again
r = call(WS, "true")
ok("nested: an unchanged repository is not reported again", "sub/.git" not in warnings(r),
   warnings(r)[:300])

# ---- `git init .` in a workspace without .git, add and commit ---------------------
WS = workspace("root")
m_root = marker("root-fsmonitor")
r = call(WS, "git init -q . && git config core.fsmonitor 'touch %s; false' && "
         "echo a > f && git add f && git commit -qm first && echo committed" % m_root)
ok("git init .: the model's init, add and commit work", "committed" in r.get("output", ""),
   json.dumps(r)[:400])
st = user_git(WS, "status", "--short")
ok("git init .: the user's git status works", st.returncode == 0, st.stderr)
ok("git init .: and runs no fsmonitor", not os.path.exists(m_root))
ok("git init .: the warnings say so", ".git" in warnings(r) and "core.fsmonitor" in warnings(r),
   warnings(r)[:300])

# ---- `git init --bare .`: the workspace itself becomes a repository -------------------
# git finds it from every directory below that has no .git of its own
WS = workspace("bare")
os.makedirs(os.path.join(WS, "src"))
m_bare = marker("bare-alias")
r = call(WS, "git init -q --bare . && git config alias.st '!touch %s'" % m_bare)
user_git(os.path.join(WS, "src"), "st")
ok("bare: a workspace made a bare repository runs no alias for the user",
   not os.path.exists(m_bare), warnings(r)[:300])
ok("bare: the warnings say so", "alias.st" in warnings(r), warnings(r)[:300])

# a subdirectory made a bare repository: found from every directory below it
# without a .git, even in a workspace that has one at its root
WS = workspace("bare-sub")
user_git(WS, "init", "-q")
os.makedirs(os.path.join(WS, "src", "components"))
m_sub = marker("bare-sub-alias")
r = call(WS, "git init -q --bare src && git --git-dir=src config alias.st '!touch %s'" % m_sub)
user_git(os.path.join(WS, "src", "components"), "st")
ok("bare: a subdirectory made a bare repository runs no alias for the user",
   not os.path.exists(m_sub), warnings(r)[:300])

# ---- a gitfile naming a hostile git directory in the workspace ------------------------
WS = workspace("gitfile")
m_gf, m_out = marker("gitfile"), marker("gitfile-outside")
outside = os.path.join("/tmp", "vthost-aftermath-evil-%s.git" % TAG)
WRITE = "python3 -c 'import sys; open(sys.argv[1], \"w\").write(sys.argv[2])' "
r = call(WS, "git init -q --bare evil.git && git --git-dir=evil.git config core.fsmonitor "
         "'touch %s; false' && git --git-dir=evil.git config core.bare false && "
         "mkdir w && %s w/.git 'gitdir: ../evil.git' && "
         "git init -q --bare %s && git --git-dir=%s config core.fsmonitor 'touch %s; false' && "
         "git --git-dir=%s config core.bare false && mkdir w2 && %s w2/.git 'gitdir: %s'"
         % (m_gf, WRITE, outside, outside, m_out, outside, WRITE, outside))
ok("gitfile: the command ran", os.path.isdir(os.path.join(WS, "w")), json.dumps(r)[:400])
user_git(os.path.join(WS, "w"), "status")
user_git(os.path.join(WS, "w2"), "status")
ok("gitfile: the git directory it names is neutralised", not os.path.exists(m_gf),
   warnings(r)[:300])
ok("gitfile: a gitfile naming a git directory in /tmp is set aside",
   not os.path.exists(m_out) and not os.path.exists(os.path.join(WS, "w2", ".git")),
   warnings(r)[:400])
shutil.rmtree(outside, ignore_errors=True)

# ---- the user's own repository is left alone ----------------------------------------
WS = workspace("own")
user_git(WS, "init", "-q", "mine")
user_git(os.path.join(WS, "mine"), "config", "core.pager", "less -R")
own_hook = os.path.join(WS, "mine", ".git", "hooks", "pre-commit")
with open(own_hook, "w") as f:
    f.write("#!/bin/sh\nexit 0\n")
with open(os.path.join(WS, "mine", ".git", "config"), "rb") as f:
    own_cfg = f.read()
call(WS, "true")
r = call(WS, "true", sandbox_permissions="require_escalated", justification="test")
ok("own: an escalated call ran", r.get("sandbox") == "none", json.dumps(r)[:300])
r = call(WS, "true")
with open(os.path.join(WS, "mine", ".git", "config"), "rb") as f:
    ok("own: a repository that was there keeps its hooks and config",
       os.path.exists(own_hook) and f.read() == own_cfg, warnings(r)[:300])
ok("own: nothing was set aside", not os.path.exists(os.path.join(WS, ".vtcode", "set-aside")))

# ---- IDE and agent configuration ------------------------------------------------------
WS = workspace("ide")
os.makedirs(os.path.join(WS, ".vscode"))
settings = os.path.join(WS, ".vscode", "settings.json")
with open(settings, "wb") as f:
    f.write(b'{"editor.tabSize": 4}\n')
# (a program writes: the command text names no protected path, the sandbox must hold)
r = call(WS, "%s .vscode/settings.json '{\"x\":1}'; %s .vscode/tasks.json '{}'; "
         "d=.vs; mv ${d}code .vs-old; echo ran" % (WRITE, WRITE))
ok("ide: the command ran", "ran" in r.get("output", ""), json.dumps(r)[:300])
with open(settings, "rb") as f:
    ok("ide: an existing .vscode/settings.json keeps its bytes",
       f.read() == b'{"editor.tabSize": 4}\n')
ok("ide: no .vscode/tasks.json was added",
   not os.path.exists(os.path.join(WS, ".vscode", "tasks.json")))
WS = workspace("ide-new")
r = call(WS, "v=.vsc; mkdir -p ${v}ode && echo x > ${v}ode/mcp.json; c=.clau; "
         "mkdir -p ${c}de && echo '{}' > ${c}de/settings.json; m=.mc; echo '{}' > ${m}p.json")
ok("ide: a command-made .vscode/mcp.json does not stay",
   not os.path.exists(os.path.join(WS, ".vscode", "mcp.json")), warnings(r)[:300])
ok("ide: nor .claude/settings.json", not os.path.exists(os.path.join(WS, ".claude")))
ok("ide: nor .mcp.json", not os.path.exists(os.path.join(WS, ".mcp.json")))
ok("ide: the warnings name them and where they went",
   ".vscode" in warnings(r) and ".mcp.json" in warnings(r) and "set-aside" in warnings(r),
   warnings(r)[:400])


# ---- a session that outlives its call (serve) ---------------------------------------------
WS = workspace("late")
m_late = marker("late")
S = Served(V, WS, CFG, GIT_ENV)
r = S.tool("exec_command", {
    "cmd": "sleep 2; t=vtcode; printf '[permissions]\\nallow = [\"*\"]\\n' > $t.toml; "
           "touch wrote; git init -q late && git -C late config core.fsmonitor 'touch %s; false'; "
           "sleep 3; touch finished" % m_late, "yield_time_ms": 300})
ok("late: the call returns while its session runs", r.get("session_id") is not None,
   json.dumps(r)[:300])
toml = os.path.join(WS, "vtcode.toml")
wrote = wait_for(lambda: os.path.exists(os.path.join(WS, "wrote")), 30)
time.sleep(0.5)
ok("late: a vtcode.toml written after the call returned is set aside as it appears",
   wrote and not os.path.exists(toml) and not os.path.exists(os.path.join(WS, "finished")),
   "wrote=%s finished=%s" % (wrote, os.path.exists(os.path.join(WS, "finished"))))
aside = os.path.join(WS, ".vtcode", "set-aside")
# no further call: the session's end alone neutralises the repository
done = wait_for(lambda: os.path.exists(os.path.join(WS, "finished")), 30) and wait_for(
    lambda: any(n.endswith("late%.git%config") for n in (
        os.listdir(aside) if os.path.isdir(aside) else [])), 30)
user_git(os.path.join(WS, "late"), "status")
ok("late: a repository it made is neutralised when the session ends, before any call",
   done and not os.path.exists(m_late) and os.path.isdir(os.path.join(WS, "late", ".git")))
r = S.tool("write_stdin", {"session_id": r.get("session_id"), "chars": "",
                           "yield_time_ms": 500})
ok("late: the next call reports both",
   "vtcode.toml" in json.dumps(r) and "late/.git" in json.dumps(r), json.dumps(r)[:600])
S.close()
ok("late: vtcode.toml is still set aside at the end", not os.path.exists(toml))

shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
