#!/usr/bin/env python3
"""Escapes from exec_command's sandbox, tried for real through the built
vthost (`call` and `serve`), one case per escape class.  Every case
checks the world outside afterwards: protected files' bytes, marker files
that must not appear, a victim process that must survive, a victim
terminal whose input must stay empty, socket listeners that must see no
connection, processes that must be gone.  Runs as root and as an
ordinary user (the user-namespace path).  Exit 77 when the kernel lacks
Landlock or namespaces are unavailable here.

    sandbox_escape.py path/to/vthost
"""
import hashlib
import json
import os
import pty
import select
import shutil
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
import tty

from sbx_common import Served, failures, ok, require_landlock, scratch_dir, tag, trusted_config


V = sys.argv[1]
require_landlock()
TAG = tag()
base = scratch_dir("vthost-escape-")
WS = os.path.join(base, "ws")
OUT = os.path.join(base, "outside")
os.makedirs(os.path.join(WS, ".git", "hooks"))
os.makedirs(os.path.join(WS, ".vtcode"))
os.makedirs(os.path.join(WS, "vendor", "x", ".git", "hooks"))
os.makedirs(OUT)
GITCFG = b"[core]\n\trepositoryformatversion = 0\n"
for p in (".git/config", "vendor/x/.git/config"):
    with open(os.path.join(WS, p), "wb") as f:
        f.write(GITCFG)


def config(extra=""):
    with open(os.path.join(WS, "vtcode.toml"), "w") as f:
        f.write('[permissions]\nallow = ["exec_command", "write_stdin"]\n' + extra)


def digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def call(cmd, workdir=None, timeout=60, **extra):
    args = {"cmd": cmd, "yield_time_ms": 15000}
    if workdir:
        args["workdir"] = workdir
    args.update(extra)
    p = subprocess.run([V, "--workspace", WS, *trusted_config(WS), "--yes", "call", "exec_command", json.dumps(args)],
                       capture_output=True, text=True, timeout=timeout)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"output": p.stdout + p.stderr}


def py(code):
    """A python3 command line for `code` (the splitter sees only python3)."""
    return "python3 -c " + "'" + code.replace("'", "'\"'\"'") + "'"


def alive_with(marker):
    """Host pids of live processes with `marker` as an argument."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                args = f.read().split(b"\0")
            with open("/proc/%s/stat" % d) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in args and state != "Z":
            found.append(int(d))
    return found


def wait_gone(marker, seconds=3.0):
    end = time.time() + seconds
    while alive_with(marker) and time.time() < end:
        time.sleep(0.05)
    return not alive_with(marker)


config()
probe = call("grep -E 'Cap(Eff|Bnd)' /proc/self/status; echo pid=$$")
out = probe.get("output", "")
if "sandbox" not in probe or "namespaces" in json.dumps(probe.get("warnings", "")):
    print("SKIP: no sandbox here: " + json.dumps(probe))
    shutil.rmtree(base, ignore_errors=True)
    sys.exit(77)

# 1. capabilities: none, whoever runs vthost
ok("CapEff is zero", "CapEff:\t0000000000000000" in out, out)
ok("CapBnd is zero", "CapBnd:\t0000000000000000" in out, out)
ok("own PID namespace (the shell is pid 2)", "pid=2" in out, out)

# 2. workdir inside .git / .git/hooks / .vtcode: relative writes fail
for wd in (".git", ".git/hooks", ".vtcode"):
    r = call("echo '#!/bin/sh' > pre-commit; echo x > planted; ls >/dev/null && echo read-ok", workdir=wd)
    ok("workdir %s readable" % wd, "read-ok" in r.get("output", ""), json.dumps(r))
    ok("workdir %s not writable" % wd,
       not os.path.exists(os.path.join(WS, wd, "pre-commit")) and
       not os.path.exists(os.path.join(WS, wd, "planted")))

# 3. mount_setattr / remount / umount / rename of the read-only mounts
before = digest(os.path.join(WS, ".git/config"))
attack = py(
    "import ctypes, os\n"
    "l = ctypes.CDLL(None, use_errno=True)\n"
    "attr = (ctypes.c_uint64 * 4)(0, 1, 0, 0)\n"  # attr_clr = MOUNT_ATTR_RDONLY
    "r = l.syscall(442, -100, b'.git', 0x8000, attr, 32)\n"
    "print('mount_setattr', r, ctypes.get_errno())\n"
    "print('remount', l.mount(None, b'.git', None, 32 | 4096, None), ctypes.get_errno())\n"
    "print('umount', l.umount2(b'.git', 2), ctypes.get_errno())\n"
    "print('open_tree', l.syscall(428, -100, b'.git', 1), ctypes.get_errno())\n"
    "print('unshare', l.unshare(0x10020000), ctypes.get_errno())\n"
    "print('chroot', l.chroot(b'.'), ctypes.get_errno())\n"
    "try:\n"
    "    open('.git/config', 'a').write('[core]\\n\\thooksPath = /tmp\\n')\n"
    "except OSError as e: print('write', e)\n")
r = call(attack)
o = r.get("output", "")
ok("mount_setattr refused", "mount_setattr -1 1" in o, o)
ok("remount refused", "remount -1 1" in o, o)
ok("umount refused", "umount -1 1" in o, o)
ok("open_tree refused", "open_tree -1 1" in o, o)
ok("unshare(CLONE_NEWUSER|NEWNS) refused", "unshare -1 1" in o, o)
ok("chroot refused", "chroot -1 1" in o, o)
r = call("mount -o remount,rw .git; umount -l .git; mv .git moved-git; unshare -r true; "
         "echo '[evil]' >> .git/config")
ok(".git/config bytes unchanged", digest(os.path.join(WS, ".git/config")) == before)
ok(".git not renamed", os.path.isdir(os.path.join(WS, ".git")) and
   not os.path.exists(os.path.join(WS, "moved-git")))
r = call("ln .git/config hard-link-to-config; cp -a .git g2 && rm -rf .git; ls -d .git")
ok("hard link into .git refused", not os.path.exists(os.path.join(WS, "hard-link-to-config")))
ok(".git not removed", digest(os.path.join(WS, ".git/config")) == before)
shutil.rmtree(os.path.join(WS, "g2"), ignore_errors=True)
vt = os.path.join(WS, "vtcode.toml")
vbefore = digest(vt)
call("echo 'allow = [\"*\"]' >> vtcode.toml; mkdir -p .vtcode/agents && echo x > .vtcode/agents/evil.md")
ok("vtcode.toml unchanged", digest(vt) == vbefore)
ok(".vtcode/agents not written", not os.path.exists(os.path.join(WS, ".vtcode/agents/evil.md")))

# 4. TIOCSTI into a victim terminal outside the sandbox, and writing or
# reading it: the session has a /dev/pts of its own, where the machine's
# other terminals are not.
master, slave = pty.openpty()
tty.setraw(slave)
name = os.ttyname(slave)
code = ("import fcntl, termios, os\n"
        "try: fd = os.open(%r, os.O_RDWR | os.O_NOCTTY)\n"
        "except OSError as e: print('open', e.errno); raise SystemExit\n"
        "os.write(fd, b'written-%s')\n"
        "for c in b'touch /tmp/tiocsti-%s\\n':\n"
        "    try: fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))\n"
        "    except OSError as e: print('sti', e.errno); break\n") % (name, TAG, TAG)
for use_tty in (False, True):
    r = call(py(code), tty=use_tty)
    readable, _, _ = select.select([slave], [], [], 0.3)
    typed = os.read(slave, 4096) if readable else b""
    readable, _, _ = select.select([master], [], [], 0.1)
    shown = os.read(master, 4096) if readable else b""
    ok("victim terminal unreachable (tty=%s)" % use_tty, "open 2" in r.get("output", ""),
       r.get("output", ""))
    ok("TIOCSTI typed nothing into the victim terminal (tty=%s)" % use_tty, typed == b"",
       repr(typed))
    ok("nothing written to the victim terminal (tty=%s)" % use_tty,
       b"written" not in shown, repr(shown))
ok("no TIOCSTI marker", not os.path.exists("/tmp/tiocsti-" + TAG))
# On the session's own terminal TIOCSTI and TIOCLINUX are refused (EPERM).
own = ("import fcntl, termios\n"
       "try: fcntl.ioctl(0, termios.TIOCSTI, b'x')\n"
       "except OSError as e: print('sti', e.errno)\n"
       "try: fcntl.ioctl(0, 0x541C, b'\\x06')\n"
       "except OSError as e: print('linux', e.errno)\n")
r = call(py(own), tty=True)
ok("TIOCSTI refused with EPERM", "sti 1" in r.get("output", ""), r.get("output", ""))
ok("TIOCLINUX refused with EPERM", "linux 1" in r.get("output", ""), r.get("output", ""))
os.close(master)
os.close(slave)

# 5. device nodes
r = call("mknod kmsg c 1 11; mknod blk b 7 0; " +
         py("import os\ntry: os.mknod('k2', 0o20600, os.makedev(1, 11))\nexcept OSError as e: print('mknod', e.errno)\n"
            "os.mkfifo('fifo-ok'); print('fifo ok')"))
ok("mknod of a char device refused", not any(os.path.exists(os.path.join(WS, n)) for n in ("kmsg", "blk", "k2")))
ok("mknod refused with EPERM", "mknod 1" in r.get("output", ""), r.get("output", ""))
ok("FIFOs still allowed", "fifo ok" in r.get("output", ""), r.get("output", ""))

# 6. signals: a victim process outside must survive
marker = "300.%s1" % TAG
victim = subprocess.Popen(["sleep", marker])
r = call("kill -9 %d; kill -9 -1; kill -9 1; echo sent" % victim.pid)
time.sleep(0.2)
ok("victim outside survives kill -9", victim.poll() is None, r.get("output", ""))
victim.kill()
victim.wait()

# 7. host unix sockets with the network off: abstract and path listeners
seen = []
abstract_name = "\0vthost-escape-%s" % TAG
path_sock = os.path.join(OUT, "host.sock")
listeners = []
for addr in (abstract_name, path_sock):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(addr)
    s.listen(8)
    listeners.append(s)
if os.getuid() == 0:
    os.chmod(path_sock, 0o777)


def accept_all(s, label):
    s.settimeout(0.2)
    while not stop.is_set():
        try:
            c, _ = s.accept()
            seen.append(label)
            c.close()
        except (socket.timeout, OSError):
            pass


stop = threading.Event()
threads = [threading.Thread(target=accept_all, args=(s, l))
           for s, l in zip(listeners, ("abstract", "path"))]
for t in threads:
    t.start()
code = ("import socket\n"
        "for a in (%r, %r):\n"
        "    s = socket.socket(socket.AF_UNIX)\n"
        "    try: s.connect(a); print('connected', repr(a))\n"
        "    except OSError as e: print('refused', e.errno)\n") % (abstract_name, path_sock)
r = call(py(code))
time.sleep(0.4)
ok("abstract socket outside unreachable", "abstract" not in seen, r.get("output", ""))
ok("path socket outside unreachable", "path" not in seen, r.get("output", ""))
ok("no connection reported inside", "connected" not in r.get("output", ""), r.get("output", ""))
# a socket inside the workspace still works (the command's own)
r = call(py("import socket, os\ns = socket.socket(socket.AF_UNIX); s.bind('own.sock'); s.listen(1)\n"
            "c = socket.socket(socket.AF_UNIX); c.connect('own.sock'); print('own ok')"))
ok("workspace socket usable", "own ok" in r.get("output", ""), r.get("output", ""))
# under serve, a path socket bound between two calls is masked in the
# next one (the host lists the bound sockets anew for every call)
srv = Served(V, WS)
srv.tool("exec_command", {"cmd": "true", "yield_time_ms": 5000})
for k in range(2):
    later = os.path.join(OUT, "later%d.sock" % k)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(later)
    s.listen(8)
    if os.getuid() == 0:
        os.chmod(later, 0o777)
    listeners.append(s)
    label = "later%d" % k
    threads.append(threading.Thread(target=accept_all, args=(s, label)))
    threads[-1].start()
    code = ("import socket\n"
            "s = socket.socket(socket.AF_UNIX)\n"
            "try: s.connect(%r); print('connected')\n"
            "except OSError as e: print('refused', e.errno)\n") % later
    r = srv.tool("exec_command", {"cmd": py(code), "yield_time_ms": 5000})
    time.sleep(0.4)
    ok("serve: path socket bound before call %d unreachable" % (k + 2),
       label not in seen and "refused" in json.dumps(r), json.dumps(r))
srv.p.stdin.close()
srv.p.wait(timeout=30)
stop.set()
for t in threads:
    t.join()
for s in listeners:
    s.close()

# 8. nested .git, and a .git created during one serve run
before_nested = digest(os.path.join(WS, "vendor/x/.git/config"))
call("echo evil >> vendor/x/.git/config; echo '#!/bin/sh' > vendor/x/.git/hooks/pre-commit")
ok("nested vendor/x/.git unchanged", digest(os.path.join(WS, "vendor/x/.git/config")) == before_nested and
   not os.path.exists(os.path.join(WS, "vendor/x/.git/hooks/pre-commit")))
# a gitfile (worktree/submodule style) and the git dir it points to
os.makedirs(os.path.join(WS, "mods", "gitdirs", "sub"))
os.makedirs(os.path.join(WS, "sub"))
with open(os.path.join(WS, "sub", ".git"), "w") as f:
    f.write("gitdir: ../mods/gitdirs/sub\n")
call("echo x > mods/gitdirs/sub/HEAD; echo 'gitdir: /tmp' > sub/.git")
ok("gitfile target protected", not os.path.exists(os.path.join(WS, "mods/gitdirs/sub/HEAD")))
ok("gitfile itself protected", open(os.path.join(WS, "sub/.git")).read().startswith("gitdir: ../"))


def serve_calls(cmds):
    srv = Served(V, WS)
    outs = []
    for k, c in enumerate(cmds):
        srv.send({"jsonrpc": "2.0", "id": 10 + k, "method": "tools/call",
                  "params": {"name": "exec_command", "arguments": {"cmd": c, "yield_time_ms": 5000}}})
        outs.append(json.dumps(srv.reply(10 + k)))
    return srv.p, outs


os.makedirs(os.path.join(WS, "later"))
p, outs = serve_calls([
    # created by this serve run (as by `git init`): a repository shell
    py("import os\nos.makedirs('later/.git/hooks')\nopen('later/.git/config', 'w').write('[core]\\n')"),
    py("open('later/.git/hooks/pre-commit', 'w').write('#!/bin/sh\\n')"),
])
p.stdin.close()
p.wait(timeout=30)
ok(".git created during serve exists", os.path.isfile(os.path.join(WS, "later/.git/config")), outs[0])
ok(".git created during serve protected on the next call",
   not os.path.exists(os.path.join(WS, "later/.git/hooks/pre-commit")), outs[1])

# 9. background processes and daemons end with the call
m1, m2, m3, m4 = ("300.%s%d" % (TAG, k) for k in range(2, 6))
r = call("setsid -f sleep %s; (sleep %s &); nohup sleep %s >/dev/null 2>&1 & "
         "python3 -c 'import os,time\nif os.fork()==0:\n os.setsid()\n if os.fork()==0: time.sleep(300)' %s; echo started"
         % (m1, m2, m3, m4))
ok("daemons started", "started" in r.get("output", ""), r.get("output", ""))
for m, what in ((m1, "setsid -f"), (m2, "(sleep &)"), (m3, "nohup &"), (m4, "double fork + setsid")):
    ok("%s gone after the call" % what, wait_gone(m), str(alive_with(m)))

# 10. process count: bounded (a bounded loop, never a real fork bomb)
config("[sandbox]\nmax_processes = 64\n")
code = ("import os, time\n"
        "ok = fail = 0\n"
        "for i in range(200):\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        fail += 1; continue\n"
        "    if pid == 0:\n"
        "        time.sleep(3); os._exit(0)\n"
        "    ok += 1\n"
        "print('forked', ok, 'refused', fail)\n")
r = call(py(code) + " 300.%s9" % TAG)
o = r.get("output", "")
ok("process count bounded (64)", "refused" in o and int(o.split("forked ")[1].split()[0]) < 64, o)
config("[sandbox]\nmax_processes = 8\n")
r = call("true")
ok("max_processes below the minimum names the key", "sandbox.max_processes" in json.dumps(r), json.dumps(r))
config("[sandbox]\ncpu_time_seconds = 1\n")
r = call(py("while True: pass"), timeout=30)
ok("cpu_time_seconds ends a spinning command", r.get("exit_code") in (128 + 24, 128 + 9, -24, 137, 152), json.dumps(r)[:300])
config()

# 11. other interfaces a root command could reach
r = call(py("import ctypes\nl = ctypes.CDLL(None, use_errno=True)\n"
            "print('bpf', l.syscall(321, 0, 0, 0), ctypes.get_errno())\n"
            "print('keyctl', l.syscall(250, 0, 0, 0, 0, 0), ctypes.get_errno())\n"
            "print('io_uring', l.syscall(425, 1, ctypes.create_string_buffer(120)), ctypes.get_errno())\n"
            "print('clone3', l.syscall(435, 0, 0), ctypes.get_errno())\n"
            "print('ptrace1', l.syscall(101, 16, 1, 0, 0), ctypes.get_errno())\n"))
o = r.get("output", "")
for name, err in (("bpf", 1), ("keyctl", 1), ("io_uring", 1), ("clone3", 38)):
    ok("%s refused (%d)" % (name, err), "%s -1 %d" % (name, err) in o, o)
ok("ptrace of init refused", "ptrace1 -1" in o, o)
r = call("ls /proc | grep -c '^[0-9]'")
ok("only the session's processes visible", r.get("output", "").strip().isdigit() and
   int(r.get("output", "").strip()) <= 6, r.get("output", ""))
ok("no tiocsti marker file", not os.path.exists("/tmp/tiocsti-" + TAG))

shutil.rmtree(base, ignore_errors=True)
print("failures: %d" % failures())
sys.exit(1 if failures() else 0)
