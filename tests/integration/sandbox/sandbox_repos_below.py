#!/usr/bin/env python3
"""Repositories below the writable directories are read-only to sandboxed
commands, tried for real with the built vthost (and git), in the
workspace and in a `[sandbox] writable_roots` directory outside it:
- a repository made by `git init`, a git directory planted by hand
  (HEAD "ref:refs/heads/main" without a space, objects/, refs/), and a
  bare repository planted the same way in a directory not named .git
  (git finds it from every directory below it), nested two levels down;
- a command that writes into its hooks/ and appends to its config fails:
  no hook appears and the config's bytes are unchanged, while the same
  command can write a plain file beside the repository (the directory is
  writable, the repository is not);
- a bare repository a command makes (`git init --bare`, then
  core.fsmonitor) is neutralised after the call and named in the
  warnings, in the workspace and below the extra root.
Exit 77 without Landlock, namespaces or git.

    sandbox_repos_below.py path/to/vthost
"""
import json
import os
import shutil
import subprocess
import sys

from sbx_common import (allow_config, failures, git_env, ok, require_git, require_landlock,
                        scratch_dir, tag)

V = sys.argv[1]
require_landlock()
require_git()
TAG = tag()
base = scratch_dir("vthost-repos-below-")
WS = os.path.join(base, "ws")
EXTRA = os.path.join(base, "extra")  # outside the workspace, not under /tmp
os.makedirs(WS)
os.makedirs(EXTRA)
CFG = allow_config(base, ["exec_command"], '[sandbox]\nwritable_roots = ["%s"]\n' % EXTRA)
ENV = git_env(base)


def exec_cmd(cmd):
    p = subprocess.run([V, "--workspace", WS, "--config", CFG, "--yes", "call", "exec_command",
                        json.dumps({"cmd": cmd, "yield_time_ms": 20000})],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                       env=ENV)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"output": p.stdout, "_stderr": p.stderr}


def plant(root):
    """Two repositories below `root`, two levels down; their git dirs."""
    real = os.path.join(root, "a", "b", "real")
    os.makedirs(real)
    subprocess.run(["git", "init", "-q", real], check=True, env=ENV)
    hand = os.path.join(root, "c", "d", "hand", ".git")
    for sub in ("objects", "refs/heads", "hooks"):
        os.makedirs(os.path.join(hand, sub))
    with open(os.path.join(hand, "HEAD"), "w") as f:
        f.write("ref:refs/heads/main\n")
    with open(os.path.join(hand, "config"), "w") as f:
        f.write("[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
    os.makedirs(os.path.join(real, ".git", "hooks"), exist_ok=True)
    bare = os.path.join(root, "e", "f", "vendor.git")
    for sub in ("objects", "refs/heads", "hooks"):
        os.makedirs(os.path.join(bare, sub))
    with open(os.path.join(bare, "HEAD"), "w") as f:
        f.write("ref:refs/heads/main\n")
    with open(os.path.join(bare, "config"), "w") as f:
        f.write("[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
    return [os.path.join(real, ".git"), hand, bare]


probe = exec_cmd("true")
if probe.get("sandbox") != "workspace-write" or "not read-only" in json.dumps(probe):
    print("SKIP: commands are not sandboxed with namespaces here: " + json.dumps(probe)[:300])
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)

for where, root in (("workspace", WS), ("extra root", EXTRA)):
    for gitdir in plant(root):
        name = "%s %s" % (where, os.path.relpath(gitdir, root))
        config = os.path.join(gitdir, "config")
        with open(config, "rb") as f:
            before = f.read()
        hook = os.path.join(gitdir, "hooks", "post-checkout")
        beside = os.path.join(os.path.dirname(os.path.dirname(gitdir)), "plain-%s" % TAG)
        r = exec_cmd("printf '#!/bin/sh\\ntouch /tmp/hook-%s\\n' > '%s'; "
                     "printf '[core]\\n\\tfsmonitor = touch /tmp/fsm-%s\\n' >> '%s'; "
                     "echo beside > '%s'; echo done" % (TAG, hook, TAG, config, beside))
        out = r.get("output", "")
        ok(name + ": the command ran", "done" in out, json.dumps(r)[:300])
        ok(name + ": the directory beside it is writable", os.path.exists(beside), out[:300])
        ok(name + ": no hook was written", not os.path.exists(hook), out[:300])
        with open(config, "rb") as f:
            ok(name + ": config bytes unchanged", f.read() == before, out[:300])

# A bare repository a command makes below the extra root, with a
# core.fsmonitor, is neutralised after the call like one in the workspace.
for where, root in (("workspace", WS), ("extra root", EXTRA)):
    made = os.path.join(root, "made-%s.git" % TAG)
    r = exec_cmd("git init -q --bare '%s' && git -C '%s' config core.fsmonitor "
                 "'touch /tmp/fsm-made-%s' && echo made" % (made, made, TAG))
    ok("%s: a command made a bare repository" % where, "made" in r.get("output", ""),
       json.dumps(r)[:300])
    p = subprocess.run(["git", "config", "--file", os.path.join(made, "config"),
                        "core.fsmonitor"], capture_output=True, text=True, env=ENV)
    ok("%s: its fsmonitor is gone after the call" % where, p.stdout.strip() == "",
       p.stdout + json.dumps(r.get("warnings"))[:300])
    ok("%s: the warnings name it" % where, "made-%s.git" % TAG in json.dumps(r.get("warnings")),
       json.dumps(r.get("warnings"))[:300])

shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if failures() else 0)
