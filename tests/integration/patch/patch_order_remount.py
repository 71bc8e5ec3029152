#!/usr/bin/env python3
"""apply_patch in one `vthost serve` sees a remount between two calls.

A replaced file is not fsync'ed before its rename only on ext4 with a
journal, data=ordered and auto_da_alloc (the filesystem then commits the
rename after the data; docs/tools.md).  serve keeps that judgement per
filesystem until the mount table changes.  Tried for real on a loop
mounted ext4 in a private mount namespace, the server traced for fsync:
the first update is not synced; after `mount -o remount,noauto_da_alloc`
(no such ordering any more) the next update of the same serve must be;
after remounting with auto_da_alloc again it is not.  A cache that
missed the remount would leave the second file unsynced: old-or-new
broken after a crash.  77: not root, or no unshare, mkfs.ext4, loop
device or strace.

    patch_order_remount.py path/to/vthost
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

V = os.path.abspath(sys.argv[1])
PROFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "patch-only.ini")
if os.geteuid() != 0 or not all(shutil.which(t) for t in ("unshare", "mkfs.ext4", "strace")) \
        or not os.path.exists("/dev/loop-control"):
    print("SKIP: needs root, unshare, mkfs.ext4, strace and loop devices")
    sys.exit(77)
if os.environ.get("PATCH_REMOUNT_NS") != "1":
    # The mounts stay in a mount namespace of this test's own.
    env = dict(os.environ, PATCH_REMOUNT_NS="1")
    sys.exit(subprocess.call(["unshare", "-m", "--propagation", "private", sys.executable,
                              os.path.abspath(__file__)] + sys.argv[1:], env=env))

failed = 0


def ok(name, cond, detail=""):
    global failed
    print(("ok   " if cond else "FAIL ") + name + ("" if cond or not detail else ": " + detail))
    failed += 0 if cond else 1


base = tempfile.mkdtemp(prefix="vthost-patch-remount-", dir="/var/tmp")
img, mnt = os.path.join(base, "img"), os.path.join(base, "mnt")
os.makedirs(mnt)
with open(img, "wb") as f:
    f.truncate(64 << 20)
if subprocess.run(["mkfs.ext4", "-q", "-F", img]).returncode != 0 or \
        subprocess.run(["mount", "-o", "loop", img, mnt]).returncode != 0:
    print("SKIP: cannot make or mount a loop ext4")
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)
ws = os.path.join(mnt, "ws")
os.makedirs(ws)
with open(os.path.join(ws, "a.txt"), "w") as f:
    f.write("v0\n")
conf = os.path.join(base, "vtcode.toml")
with open(conf, "w") as f:
    f.write('[permissions]\nallow = ["apply_patch"]\n')
log = os.path.join(base, "strace.log")
env = dict(os.environ, XDG_STATE_HOME=os.path.join(base, "state"),
           XDG_CACHE_HOME=os.path.join(base, "cache"))
srv = subprocess.Popen(["strace", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-o", log,
                        V, "--workspace", ws, "--config", conf, "--profile", PROFILE, "serve"],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
next_id = [0]


def rpc(method, params):
    next_id[0] += 1
    srv.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method,
                                "params": params}) + "\n")
    srv.stdin.flush()
    while True:
        msg = json.loads(srv.stdout.readline())
        if msg.get("id") == next_id[0]:
            return msg


def synced_lines():
    with open(log) as f:
        return [l for l in f if ws + "/" in l and "fsync" in l]


def update(n, expect_sync, why):
    before = len(synced_lines())
    patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-v%d\n+v%d\n*** End Patch\n" % (n - 1, n)
    r = rpc("tools/call", {"name": "apply_patch", "arguments": {"input": patch}})
    ok("update %d applied" % n, "result" in r and not r["result"].get("isError"), str(r)[:300])
    with open(os.path.join(ws, "a.txt")) as f:
        ok("update %d: new content" % n, f.read() == "v%d\n" % n)
    got = synced_lines()[before:]
    ok("update %d %s (%s)" % (n, "synced" if expect_sync else "not synced", why),
       bool(got) == expect_sync, "".join(got) or "no fsync under the workspace")


try:
    rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "remount-test", "version": "1"}})
    srv.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    srv.stdin.flush()
    update(1, False, "journaled ext4, data=ordered, auto_da_alloc")
    subprocess.run(["mount", "-o", "remount,noauto_da_alloc", mnt], check=True)
    update(2, True, "remounted noauto_da_alloc in the same serve")
    subprocess.run(["mount", "-o", "remount,auto_da_alloc", mnt], check=True)
    update(3, False, "remounted auto_da_alloc again")
finally:
    srv.stdin.close()
    srv.wait(timeout=30)
    subprocess.run(["umount", mnt])
    shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if failed else 0)
