#!/usr/bin/env python3
"""More escapes, by an attacker who read the sandbox's code:
  - the workspace's filesystem reached through a second mount (a bind
    mount of a parent directory): .git's read-only mount covers one path,
    Landlock follows the inode whatever the path;
  - a host socket reached through a second mount of its directory;
  - the session leader (pid 1 of the session, holding the pipe through
    which the host learns the command's end): forge its report, ptrace
    it, read its descriptors, signal it;
  - the result must come only once nothing of the session is left: a
    background process is gone the moment the call returns.
Every case checks the world afterwards.  The mount cases need root to set
the scene (skipped, and said, otherwise).  Exit 77 without Landlock or
namespaces.

    sandbox_attacks.py path/to/vthost
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import threading

from sbx_common import failures, ok, require_landlock, scratch_dir, tag, trusted_config

V = sys.argv[1]
require_landlock()
TAG = tag()
base = scratch_dir("vthost-attacks-")
WS = os.path.join(base, "ws")
OUT = os.path.join(base, "outside")
os.makedirs(os.path.join(WS, ".git", "hooks"))
os.makedirs(OUT)
GITCFG = b"[core]\n\trepositoryformatversion = 0\n"
with open(os.path.join(WS, ".git", "config"), "wb") as f:
    f.write(GITCFG)
with open(os.path.join(WS, "vtcode.toml"), "w") as f:
    f.write('[permissions]\nallow = ["exec_command"]\n')
mounted = []


def call(cmd, timeout=60):
    args = {"cmd": cmd, "yield_time_ms": 15000}
    p = subprocess.run([V, "--workspace", WS, *trusted_config(WS), "--yes", "call",
                        "exec_command", json.dumps(args)],
                       capture_output=True, text=True, timeout=timeout)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"output": p.stdout + p.stderr}


def py(code):
    return "python3 -c " + "'" + code.replace("'", "'\"'\"'") + "'"


def alive_with(marker):
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(d))
        except OSError:
            pass
    return found


probe = call("true")
if "namespace" in json.dumps(probe.get("warnings", "")):
    print("SKIP: no PID and mount namespaces here")
    sys.exit(77)

try:
    # 1. .git through a second mount of the workspace's filesystem
    if os.geteuid() == 0:
        alias = os.path.join(base, "alias")
        os.makedirs(alias)
        subprocess.run(["mount", "--bind", base, alias], check=True)
        mounted.append(alias)
        via = os.path.join(alias, "ws", ".git")
        r = call("echo '[core]' > %s/config; echo hook > %s/hooks/pre-commit; echo done" %
                 (via, via))
        with open(os.path.join(WS, ".git", "config"), "rb") as f:
            ok(".git/config unchanged through a second mount", f.read() == GITCFG,
               r.get("output", ""))
        ok("no hook planted through a second mount",
           not os.path.exists(os.path.join(WS, ".git", "hooks", "pre-commit")), r.get("output", ""))

        # 2. a host socket through a second mount of its directory
        sock_dir = os.path.join(OUT, "run")
        os.makedirs(sock_dir)
        spath = os.path.join(sock_dir, "host.sock")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(spath)
        srv.listen(4)
        srv.settimeout(0.2)
        hits = []
        stop = threading.Event()

        def accept():
            while not stop.is_set():
                try:
                    c, _ = srv.accept()
                    hits.append(1)
                    c.close()
                except OSError:
                    pass

        t = threading.Thread(target=accept)
        t.start()
        alias_run = os.path.join(base, "alias-run")
        os.makedirs(alias_run)
        subprocess.run(["mount", "--bind", sock_dir, alias_run], check=True)
        mounted.insert(0, alias_run)
        code = ("import socket\n"
                "for p in (%r, %r):\n"
                "    s = socket.socket(socket.AF_UNIX)\n"
                "    try:\n"
                "        s.connect(p); print('connected', p)\n"
                "    except OSError as e:\n"
                "        print('refused', p, e)\n" % (spath, os.path.join(alias_run, "host.sock")))
        r = call(py(code))
        stop.set()
        t.join()
        srv.close()
        o = r.get("output", "")
        ok("the host socket's listener saw no connection (direct or through a second mount)",
           not hits and "connected" not in o, o)
    else:
        print("skip .git and a host socket through a second mount: setting the scene "
              "needs root")

    # 3. the session leader: forge its report, ptrace it, read its fds, signal it
    code = ("import ctypes, os, signal\n"
            "res = []\n"
            "for fd in range(3, 10):\n"
            "    try:\n"
            "        w = os.open('/proc/1/fd/%d' % fd, os.O_WRONLY)\n"
            "        os.write(w, (0).to_bytes(4, 'little')); res.append('forged %d' % fd)\n"
            "    except OSError as e:\n"
            "        res.append('fd%d %s' % (fd, e.errno))\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "res.append('ptrace %d' % libc.ptrace(16, 1, 0, 0))\n"
            "try:\n"
            "    open('/proc/1/mem', 'rb').read(1); res.append('mem read')\n"
            "except OSError as e:\n"
            "    res.append('mem %d' % e.errno)\n"
            "for s in (signal.SIGKILL, signal.SIGSTOP, signal.SIGSEGV, signal.SIGINT):\n"
            "    try:\n"
            "        os.kill(1, s)\n"
            "    except OSError:\n"
            "        pass\n"
            "print(' '.join(res)); print('still here')\n"
            "os._exit(7)\n")
    r = call(py(code))
    o = r.get("output", "")
    ok("the leader's report cannot be forged (no descriptor of pid 1 opened)",
       "forged" not in o and "still here" in o, o)
    ok("the leader cannot be ptraced nor its memory read",
       "ptrace -1" in o and "mem read" not in o, o)
    ok("the real exit code is reported (7) after signals to the leader",
       r.get("exit_code") == 7, json.dumps(r)[:400])

    # 4. the result comes only once nothing of the session is left
    m = "300.%s7" % TAG
    r = call("sleep %s & (setsid sleep %s &) ; echo started" % (m, m))
    left = alive_with(m)
    ok("no process of the session is alive when the call returns", not left,
       "%s %s" % (left, r.get("output", "")))
finally:
    for d in mounted:
        subprocess.run(["umount", "-l", d])
    shutil.rmtree(base, ignore_errors=True)

print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
