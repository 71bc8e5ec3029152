#!/usr/bin/env python3
"""Hook managers' configuration that a command plants or changes does not
run at the user's next commit, tried for real with the built vthost and
git.  The repository has a pre-commit hook installed the way lefthook and
pre-commit install theirs: a stub that, at every commit, reads the
manager's configuration from the work tree and runs the commands it
names (a stand-in for `lefthook run pre-commit` / `pre-commit run`,
reading `run:` and `entry:` lines).  A command (a script: its text names
no protected path)
- writes a new lefthook.yml, .lefthook.toml, .config/lefthook.yml and
  .pre-commit-config.yaml with a payload: each is set aside and named in
  the call's warnings;
- appends a payload to the lefthook.yml the user already has: refused
  (read-only), its bytes unchanged;
then the user's own `git commit` runs no payload (a marker file that must
not appear).  apply_patch adding lefthook.yml is refused without an
approval (a protected path).  And the files a repository's includeIf
names are read-only to a command whatever the condition (gitdir: that
matches and one that does not, onbranch: of the current branch and of
another, a "~user/" path into the workspace): git would read them when
the condition holds.  Also run as an ordinary user by .ci/run.
Exit 77 without Landlock, namespaces or git.

    sandbox_hookmanagers.py path/to/vthost
"""
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

from sbx_common import (COMMITTER, allow_config, call_tool, failures, git_env, ok, require_git,
                        require_landlock, scratch_dir, tag)

V = sys.argv[1]
require_landlock()
require_git()
TAG = tag()
base = scratch_dir("vthost-hookmgr-")
CFG = allow_config(base, ["exec_command", "apply_patch"])
ENV = git_env(base, **COMMITTER)
CONFIGS = ["lefthook.yml", ".lefthook.toml", ".config/lefthook.yml", ".pre-commit-config.yaml"]
# The installed hook: every `run:` / `run =` / `entry:` line of the
# managers' files in the work tree is run, as lefthook and pre-commit do.
STUB = """#!/usr/bin/env python3
import os, re, subprocess
for name in %r:
    try:
        text = open(name).read()
    except OSError:
        continue
    for m in re.finditer(r'^\\s*(?:-\\s*)?(?:run|entry)\\s*[:=]\\s*"?([^"\\n]+)"?', text, re.M):
        subprocess.run(["sh", "-c", m.group(1)])
""" % CONFIGS


def call(ws, tool, args, *opts):
    return call_tool(V, ws, CFG, tool, args, ENV, *opts)


def warnings(r):
    return " ".join(r.get("warnings", [])) if isinstance(r.get("warnings"), list) else ""


def repository(name, lefthook=None):
    ws = os.path.join(base, name)
    os.makedirs(ws)
    subprocess.run(["git", "init", "-q", ws], check=True, env=ENV)
    hook = os.path.join(ws, ".git", "hooks", "pre-commit")
    with open(hook, "w") as f:
        f.write(STUB)
    os.chmod(hook, 0o755)
    if lefthook is not None:
        with open(os.path.join(ws, "lefthook.yml"), "wb") as f:
            f.write(lefthook)
    with open(os.path.join(ws, "README"), "w") as f:
        f.write("hello\n")
    return ws


def commit(ws):
    """The user's own commit, outside any sandbox."""
    subprocess.run(["git", "add", "-A"], cwd=ws, capture_output=True, env=ENV, timeout=60)
    return subprocess.run(["git", "commit", "-q", "-m", "work"], cwd=ws, capture_output=True,
                          text=True, env=ENV, timeout=60)


def script(ws, text):
    with open(os.path.join(ws, "plant.sh"), "w") as f:
        f.write(text)
    return call(ws, "exec_command", {"cmd": "sh plant.sh", "yield_time_ms": 20000}, "--yes")


probe = call(repository("probe"), "exec_command", {"cmd": "true"}, "--yes")
if probe.get("sandbox") != "workspace-write" or "not read-only" in warnings(probe):
    print("SKIP: commands are not sandboxed with namespaces here: " + json.dumps(probe)[:300])
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)

# ---- a command writes the managers' configuration -----------------------------------
ws = repository("planted")
mark = os.path.join(base, "marker-planted-" + TAG)
r = script(ws, "mkdir -p .config\n"
               "printf 'pre-commit:\\n  commands:\\n    x:\\n      run: touch %s\\n' > lefthook.yml\n"
               "printf '[pre-commit.commands.x]\\nrun = \"touch %s\"\\n' > .lefthook.toml\n"
               "cp lefthook.yml .config/lefthook.yml\n"
               "printf 'repos:\\n- repo: local\\n  hooks:\\n  - id: x\\n    name: x\\n"
               "    entry: touch %s\\n    language: system\\n' > .pre-commit-config.yaml\n"
               "echo planted\n" % (mark, mark, mark))
ok("planted: the command ran", "planted" in r.get("output", ""), json.dumps(r)[:300])
for name in CONFIGS:
    ok("planted: %s is set aside" % name, not os.path.exists(os.path.join(ws, name)),
       warnings(r)[:600])
    ok("planted: the warnings name %s" % name, name in warnings(r), warnings(r)[:600])
c = commit(ws)
ok("planted: the user's commit works", c.returncode == 0, c.stderr[-300:])
ok("planted: the user's commit runs no payload", not os.path.exists(mark), warnings(r)[:600])

# ---- a command changes the lefthook.yml the user has -----------------------------------
USER = b"pre-commit:\n  commands:\n    lint:\n      run: true\n"
ws = repository("changed", lefthook=USER)
mark = os.path.join(base, "marker-changed-" + TAG)
r = script(ws, "printf '    x:\\n      run: touch %s\\n' >> lefthook.yml 2>/dev/null "
               "&& echo wrote || echo refused\n" % mark)
with open(os.path.join(ws, "lefthook.yml"), "rb") as f:
    body = f.read()
ok("changed: the user's lefthook.yml keeps its bytes", body == USER,
   body.decode(errors="replace")[:200] + r.get("output", ""))
commit(ws)
ok("changed: the user's commit runs no payload", not os.path.exists(mark), json.dumps(r)[:400])

# ---- apply_patch ------------------------------------------------------------------------
ws = repository("patch")
r = call(ws, "apply_patch", {"input": "*** Begin Patch\n*** Add File: lefthook.yml\n"
                                      "+pre-commit:\n+  commands:\n+    x:\n+      run: touch x\n"
                                      "*** End Patch"})
ok("patch: adding lefthook.yml is refused though apply_patch is allowed (protected path)",
   not os.path.exists(os.path.join(ws, "lefthook.yml")), json.dumps(r)[:300])

# ---- conditional includes: every target protected, condition or not ---------------------
home = pwd.getpwuid(os.geteuid())
USERHOME = None
if home.pw_dir.startswith("/") and os.path.isdir(home.pw_dir) and os.access(home.pw_dir, os.W_OK):
    # git expands "~user/" from the password database, not $HOME
    USERHOME = tempfile.mkdtemp(prefix="vthost-incl-", dir=home.pw_dir)
ws = repository("includeif") if USERHOME is None else os.path.join(USERHOME, "ws")
if USERHOME is not None:
    os.makedirs(ws)
    subprocess.run(["git", "init", "-q", ws], check=True, env=ENV)
# the branch the onbranch: conditions name (whatever init.defaultBranch is)
subprocess.run(["git", "-C", ws, "symbolic-ref", "HEAD", "refs/heads/main"], check=True, env=ENV)
INCLUDES = {"inc-gitdir.cfg": ("includeIf.gitdir:%s/.path" % ws, "../inc-gitdir.cfg"),
            "inc-elsewhere.cfg": ("includeIf.gitdir:/nowhere/.path", "../inc-elsewhere.cfg"),
            "inc-branch.cfg": ("includeIf.onbranch:main.path", "../inc-branch.cfg"),
            "inc-feature.cfg": ("includeIf.onbranch:feature/**.path", "../inc-feature.cfg")}
if USERHOME is not None:
    INCLUDES["inc-user.cfg"] = ("includeIf.onbranch:main.path", "~%s/%s/inc-user.cfg" % (
        home.pw_name, os.path.relpath(ws, home.pw_dir)))
BENIGN = b"[user]\n\tname = u\n"
for name, (key, value) in INCLUDES.items():
    with open(os.path.join(ws, name), "wb") as f:
        f.write(BENIGN)
    subprocess.run(["git", "-C", ws, "config", "--add", key, value], check=True, env=ENV)
mark = os.path.join(base, "marker-include-" + TAG)
prog = "import sys\nfor p in sys.argv[1:]:\n  try:\n    open(p, 'a').write('[core]\\n\\tfsmonitor = " \
       "touch %s; false\\n')\n    print('wrote', p)\n  except OSError as e:\n" \
       "    print('refused', p, e.strerror)\n" % mark
with open(os.path.join(ws, "inc.py"), "w") as f:
    f.write(prog)
r = call(ws, "exec_command", {"cmd": "python3 inc.py " + " ".join(sorted(INCLUDES)),
                              "yield_time_ms": 20000}, "--yes")
out = r.get("output", "")
for name in sorted(INCLUDES):
    with open(os.path.join(ws, name), "rb") as f:
        ok("includeIf %s: read-only to a command, its bytes unchanged" % name,
           "refused " + name in out and f.read() == BENIGN, out[:400])
subprocess.run(["git", "status"], cwd=ws, capture_output=True, env=ENV, timeout=60)
ok("includeIf: the user's git status runs no fsmonitor", not os.path.exists(mark), out[:400])
if USERHOME is not None:
    shutil.rmtree(USERHOME, ignore_errors=True)
else:
    print("note: no writable home directory: the ~user/ include is not tried")

shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
