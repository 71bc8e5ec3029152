#!/usr/bin/env python3
"""A failed fsync of a staged file fails the whole patch and leaves the
tree as it was: every file old, byte for byte, no temporary file, no
directory the patch would have created.  An LD_PRELOAD shim
(fsync_fail.c) makes the Nth fsync of one of apply_patch's temporaries
fail with EIO, for every N the patch reaches: the syncs run several at
once, so the one that fails may come before, between or after the
others.

    patch_sync_failure.py path/to/vthost path/to/fsync_fail.so
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

V, SHIM = sys.argv[1], sys.argv[2]
PROFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "patch-only.ini")
failed = 0


def ok(name, cond, detail=""):
    global failed
    print(("ok   " if cond else "FAIL ") + name + ("" if cond or not detail else ": " + detail))
    failed += 0 if cond else 1


# Updates (one large enough to be held open across its rename), a
# delete, a move into a new directory and an add into another.
FILES = {
    "a.txt": "alpha\nold a\nomega\n",
    "sub/c.txt": "one\nold c\nthree\n",
    "big.txt": "filler line\n" * 30000 + "old big\n",
    "del.txt": "to be deleted\n",
    "mv.txt": "moving\nold mv\n",
}
PATCH = "\n".join([
    "*** Begin Patch",
    "*** Update File: a.txt", "@@", "-old a", "+new a",
    "*** Update File: sub/c.txt", "@@", "-old c", "+new c",
    "*** Update File: big.txt", "@@", "-old big", "+new big",
    "*** Delete File: del.txt",
    "*** Update File: mv.txt", "*** Move to: moved/m.txt", "@@", "-old mv", "+new mv",
    "*** Add File: added/n.txt", "+fresh",
    "*** End Patch"])


def snapshot(ws):
    """Every file and directory under ws (but .vtcode) with its bytes."""
    seen = {}
    for d, subdirs, files in os.walk(ws):
        subdirs[:] = [s for s in subdirs if s != ".vtcode"]
        for s in subdirs:
            seen[os.path.relpath(os.path.join(d, s), ws) + "/"] = None
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                seen[os.path.relpath(p, ws)] = fh.read()
    return seen


def call(fail_at, parent):
    ws = tempfile.mkdtemp(prefix="vthost-patch-sync-", dir=parent)
    for rel, text in FILES.items():
        os.makedirs(os.path.dirname(os.path.join(ws, rel)), exist_ok=True)
        with open(os.path.join(ws, rel), "w") as f:
            f.write(text)
    before = snapshot(ws)
    count = ws + ".count"
    env = dict(os.environ, XDG_STATE_HOME=ws + ".state", XDG_CACHE_HOME=ws + ".cache",
               LD_PRELOAD=SHIM, VTPATCH_FSYNC_COUNT=count,
               VTPATCH_FSYNC_FAIL_AT=str(fail_at))
    p = subprocess.run([V, "--workspace", ws, "--profile", PROFILE, "--yes", "call",
                        "apply_patch", "-"], input=json.dumps({"input": PATCH}),
                       capture_output=True, text=True, timeout=60, env=env)
    after = snapshot(ws)
    n = 0
    if os.path.exists(count):
        with open(count) as f:
            n = len(f.readlines())
    for x in (ws, ws + ".state", ws + ".cache", count):
        if os.path.isdir(x):
            shutil.rmtree(x, ignore_errors=True)
        elif os.path.exists(x):
            os.unlink(x)
    return p, before, after, n


# A run where nothing fails counts the syncs the patch makes.  A
# filesystem kept in memory (a tmpfs /tmp) syncs nothing: then the build
# directory (where ctest runs) or the home directory serves.
parent = None
for parent in (tempfile.gettempdir(), os.getcwd(), os.path.expanduser("~")):
    p, before, after, total = call(0, parent)
    ok("without a failure the patch applies (%s)" % parent, p.returncode == 0,
       (p.stdout + p.stderr)[:400])
    ok("without a failure the files are new",
       after.get("a.txt") == b"alpha\nnew a\nomega\n" and "del.txt" not in after
       and after.get("moved/m.txt") == b"moving\nnew mv\n"
       and after.get("added/n.txt") == b"fresh\n")
    if total:
        break
if total == 0:
    print("skip: no staged file was synced in %s (a filesystem in memory, or the shim did not"
          " take)" % parent)
    sys.exit(77)

for k in range(1, total + 1):
    p, before, after, n = call(k, parent)
    tag = "fsync %d of %d fails" % (k, total)
    out = p.stdout + p.stderr
    ok(tag + ": the call fails", p.returncode != 0, out[:300])
    ok(tag + ": the error names the sync and says nothing changed",
       "Cannot sync" in out and "no file was changed" in out, out[:400])
    changed = sorted(r for r in set(before) | set(after) if before.get(r) != after.get(r))
    ok(tag + ": every file and directory as before, no temporary left", not changed,
       str(changed[:5]))
sys.exit(1 if failed else 0)
