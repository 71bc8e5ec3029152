#!/usr/bin/env python3
"""A file's new content is never readable by more users than the file
itself: the temporary file it is staged in has the file's permission
bits from its creation, before any byte of the content is written.  An
LD_PRELOAD shim (fsync_fail.c, VTPATCH_STAGED_MODES) records the
temporary's mode at every write to it; a private file (0600), a
group-readable one (0640), an executable (0755) and a setuid one
(4755, whose setuid bit must come only once the content is whole) are
updated, and an update under a umask that narrows the file's mode (0666
under 022) must still end with the file's own mode.

    patch_staged_mode.py path/to/vthost path/to/fsync_fail.so
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


for mode in (0o600, 0o640, 0o755, 0o4755, 0o666):
    ws = tempfile.mkdtemp(prefix="vthost-patch-mode-")
    path = os.path.join(ws, "secret.txt")
    with open(path, "w") as f:
        f.write("token\nold\n")
    os.chmod(path, mode)
    modes = ws + ".modes"
    env = dict(os.environ, XDG_STATE_HOME=ws + ".state", XDG_CACHE_HOME=ws + ".cache",
               LD_PRELOAD=SHIM, VTPATCH_STAGED_MODES=modes)
    patch = "*** Begin Patch\n*** Update File: secret.txt\n@@\n-old\n+new\n*** End Patch\n"
    p = subprocess.Popen([V, "--workspace", ws, "--profile", PROFILE, "--yes", "call",
                          "apply_patch", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env,
                         preexec_fn=lambda: os.umask(0o022))
    out, err = p.communicate(json.dumps({"input": patch}), timeout=60)
    tag = "a %04o file" % mode
    ok(tag + ": the patch applies", p.returncode == 0, (out + err)[:300])
    with open(path) as f:
        ok(tag + ": new content", f.read() == "token\nnew\n")
    ok(tag + ": its mode kept", os.stat(path).st_mode & 0o7777 == mode,
       "%o" % (os.stat(path).st_mode & 0o7777))
    seen = []
    if os.path.exists(modes):
        with open(modes) as f:
            seen = [int(x, 8) for x in f.read().split()]
    ok(tag + ": the content was written to the temporary", len(seen) > 0,
       "the shim saw no write (did it take?)")
    # only the narrowing umask case may be set after the content: 0666
    # under 022 is created 0644, narrower than the file, never wider
    wider = [m for m in seen if m & ~mode]
    ok(tag + ": the temporary was never more open than the file", not wider,
       "staged as %s" % " ".join("%04o" % m for m in seen))
    ok(tag + ": no setuid, setgid or sticky bit while the content is written",
       not [m for m in seen if m & 0o7000], "staged as %s" % " ".join("%04o" % m for m in seen))
    for x in (ws, ws + ".state", ws + ".cache", modes):
        if os.path.isdir(x):
            shutil.rmtree(x, ignore_errors=True)
        elif os.path.exists(x):
            os.unlink(x)
sys.exit(1 if failed else 0)
