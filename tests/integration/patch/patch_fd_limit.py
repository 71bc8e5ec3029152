#!/usr/bin/env python3
"""apply_patch within a low descriptor limit: a patch that replaces,
deletes and adds more files than RLIMIT_NOFILE allows descriptors (some
of them large enough to be held open across their renames) succeeds on
every file, with every byte right and no temporary file left behind.
The descriptors a commit keeps open (staged files, held old files) are
bounded by the limit, not by the size of the patch.

    patch_fd_limit.py path/to/vthost
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

V = sys.argv[1]
PROFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "patch-only.ini")
DIRS = 40
failed = 0


def ok(name, cond, detail=""):
    global failed
    print(("ok   " if cond else "FAIL ") + name + ("" if cond or not detail else ": " + detail))
    failed += 0 if cond else 1


def rel(i):
    return "d%d/f%d.txt" % (i % DIRS, i)


def body(i, large):
    # Large files exceed the size from which replaced files are held.
    return ("line of file %d\n" % i) * (20000 if large else 3)


def run(limit, n, nlarge):
    ws = tempfile.mkdtemp(prefix="vthost-patch-fds-")
    want = {}
    lines = ["*** Begin Patch"]
    for i in range(n):
        os.makedirs(os.path.join(ws, "d%d" % (i % DIRS)), exist_ok=True)
        old = body(i, i < nlarge) + "old %d\n" % i
        with open(os.path.join(ws, rel(i)), "w") as f:
            f.write(old)
        if i % 50 == 7:
            lines.append("*** Delete File: " + rel(i))
            continue
        lines += ["*** Update File: " + rel(i), "@@", "-old %d" % i, "+new %d" % i]
        want[rel(i)] = old.replace("old %d\n" % i, "new %d\n" % i)
    for i in range(n // 10):
        path = "added/a%d.txt" % i
        lines += ["*** Add File: " + path, "+added %d" % i]
        want[path] = "added %d\n" % i
    lines.append("*** End Patch")

    def lower():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    p = subprocess.run([V, "--workspace", ws, "--profile", PROFILE, "--yes", "call",
                        "apply_patch", "-"], input=json.dumps({"input": "\n".join(lines)}),
                       capture_output=True, text=True, timeout=120, preexec_fn=lower,
                       env=dict(os.environ, XDG_STATE_HOME=ws + ".state",
                                XDG_CACHE_HOME=ws + ".cache"))
    tag = "limit %d, %d files (%d large)" % (limit, n, nlarge)
    ok(tag + ": the call succeeds", p.returncode == 0, (p.stdout + p.stderr)[:400])
    wrong = [r for r, t in want.items()
             if not os.path.isfile(os.path.join(ws, r))
             or open(os.path.join(ws, r)).read() != t]
    ok(tag + ": every file holds its new bytes", not wrong, "%d wrong, e.g. %s" % (
        len(wrong), wrong[:3]))
    found = set()
    for d, subdirs, files in os.walk(ws):
        subdirs[:] = [s for s in subdirs if s != ".vtcode"]
        found.update(os.path.relpath(os.path.join(d, f), ws) for f in files)
    extra = sorted(found - set(want))
    ok(tag + ": deleted files gone, no temporary file left", not extra, str(extra[:5]))
    for x in (ws, ws + ".state", ws + ".cache"):
        shutil.rmtree(x, ignore_errors=True)


# 64: fewer descriptors than files staged; 256: fewer than files replaced.
run(64, 300, 40)
run(256, 400, 0)
sys.exit(1 if failed else 0)
