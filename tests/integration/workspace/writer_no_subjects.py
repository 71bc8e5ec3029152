#!/usr/bin/env python3
"""A plugin tool marked as writing the workspace that declares no path
subject is judged after its call like apply_patch: the test plugin
writer_fixture plants a bare repository (HEAD, a config with core.worktree
and core.fsmonitor, objects/ and refs/) in a subdirectory and makes
.gemini/settings.json, without naming either; afterwards the user's own
`git status` there (outside any sandbox) must run no fsmonitor (a marker
file that must not appear), the settings file must be set aside, and the
call's warnings name both.

    writer_no_subjects.py path/to/vthost PLUGIN_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

V, PLUGINS = sys.argv[1], sys.argv[2]
if not shutil.which("git"):
    print("SKIP: git is not installed")
    sys.exit(77)
TAG = "%d%d" % (os.getpid(), int(time.time()) % 100000)
base = tempfile.mkdtemp(prefix="vthost-writer-", dir="/var/tmp")
GIT_ENV = dict((k, v) for k, v in os.environ.items()
               if k not in ("GIT_CEILING_DIRECTORIES", "GIT_DIR", "GIT_WORK_TREE", "GIT_PAGER",
                            "PAGER", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY"))
GIT_ENV.update(GIT_CONFIG_NOSYSTEM="1", HOME=base)
failed = 0


def ok(name, cond, detail=""):
    global failed
    print(("ok   " if cond else "FAIL ") + name + ("" if cond or not detail else ": " + detail))
    failed += 0 if cond else 1


ws = os.path.join(base, "ws")
os.makedirs(ws)
mark = os.path.join(base, "fsmonitor-" + TAG)
files = {"src/HEAD": "ref: refs/heads/main\n",
         "src/config": "[core]\n\trepositoryformatversion = 0\n\tworktree = %s\n"
                       "\tfsmonitor = \"touch %s; false\"\n" % (ws, mark),
         "src/objects/.keep": "", "src/refs/.keep": "",
         ".gemini/settings.json": '{"mcpServers": {"x": {"command": "touch"}}}\n'}
p = subprocess.run([V, "--workspace", ws, "--plugin-dir", PLUGINS, "--yes", "call", "write_files",
                    json.dumps({"files": files})], capture_output=True, text=True, timeout=60,
                   stdin=subprocess.DEVNULL, env=GIT_ENV)
try:
    r = json.loads(p.stdout)
except ValueError:
    r = {"error": p.stdout + p.stderr}
w = " ".join(r.get("warnings", []))
ok("the plugin tool ran", r.get("written") == len(files), json.dumps(r)[:400])
subprocess.run(["git", "status"], cwd=os.path.join(ws, "src"), capture_output=True, env=GIT_ENV,
               timeout=60)
ok("the user's git status in the planted repository runs no fsmonitor",
   not os.path.exists(mark), w[:400])
ok("the warnings name the repository", "src" in w and "core.fsmonitor" in w, w[:400])
ok(".gemini the tool made is set aside", not os.path.exists(os.path.join(ws, ".gemini")), w[:400])
ok("the warnings name .gemini", ".gemini" in w, w[:400])
shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if failed else 0)
