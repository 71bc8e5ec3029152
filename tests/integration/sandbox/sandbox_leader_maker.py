#!/usr/bin/env python3
"""The leader maker (plugins/exec/zygote.c): the small process `vthost
serve` forks once to clone each command's session leader.  What it adds
is tried for real:

1. A command cannot reach it: the command lists every /proc/*/fd it can
   see and writes a spawn request (and garbage) into every socket and
   every descriptor it holds or can open; afterwards the marker file the
   request names is absent, the maker is the same process, still
   serving, and (looked at from outside, while a session is open) no
   process of the session holds either end of the maker's socket.
   The first command's leader is the host's own (no maker yet).
2. It dies with serve: serve killed with SIGKILL, the maker is gone
   within 2 s.
3. Without clone3 and close_range (a kernel before 5.3, or valgrind: a
   seccomp filter in serve answers ENOSYS) the maker clones with clone
   and closes descriptors one by one, and commands run and report their
   status as before.
4. A leader it makes is the one the host made before: a command reports
   its credentials, capabilities, signal state, limits, umask, working
   directory and environment, and the session leader's own; the same
   under VTHOST_NO_LEADER_MAKER=1 (the host clones the leader itself).
5. It is its own program, the one the plugin saw when it loaded: in a
   copy of the build, the maker's file is replaced (renamed over) by a
   script that writes a marker after the first command and before the
   maker starts; the commands after it run, made by a maker whose
   executable is the original file (not vthost, not the script), with
   far fewer mappings than serve; the marker is absent.  Without the file, the
   host clones every leader itself and commands run as before.

Exit 77 without Landlock or namespaces.

    sandbox_leader_maker.py path/to/vthost
"""
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from sbx_common import (Served, children, failures, ok, require_landlock, scratch_dir, tag,
                        wait_for)

V = os.path.abspath(sys.argv[1])
require_landlock()
TAG = tag()
base = scratch_dir("vthost-maker-")
WS = os.path.join(base, "ws")
os.makedirs(WS)
MARKER = os.path.join(WS, "maker-reached-%s" % TAG)
CFG = os.path.join(base, "config.toml")
with open(CFG, "w") as f:
    f.write('[permissions]\nallow = ["exec_command", "write_stdin"]\n')
ENV = dict(os.environ, HOME=base)
ENV.pop("VTHOST_NO_LEADER_MAKER", None)


def pidns(pid):
    try:
        return os.readlink("/proc/%d/ns/pid" % pid)
    except OSError:
        return None


def maker_of(serve_pid):
    """The serve's child in its own PID namespace (leaders live in their
    sessions' namespaces), or None."""
    own = pidns(serve_pid)
    found = [k for k in children(serve_pid) if pidns(k) == own]
    return found[0] if len(found) == 1 else None


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def sockets_of(pid):
    out = set()
    try:
        for fd in os.listdir("/proc/%d/fd" % pid):
            try:
                link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            except OSError:
                continue
            if link.startswith("socket:"):
                out.add(link)
    except OSError:
        pass
    return out


# The attack, from inside a command: every descriptor it holds and every
# /proc/*/fd entry it can open gets a request in the maker's framing (a
# length, then a body asking for a command that creates MARKER) and
# garbage.
ATTACK = r'''
import os, socket, struct
body = b"touch %(m)s\0" * 64
req = struct.pack("=Q", len(body)) + body
seen = []
me = str(os.getpid())
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        for fd in os.listdir("/proc/%%s/fd" %% d):
            p = "/proc/%%s/fd/%%s" %% (d, fd)
            try:
                seen.append(p + " -> " + os.readlink(p))
            except OSError:
                pass
            if d in (me, "self") and fd in ("0", "1", "2"):
                continue  # its own output: not an attack
            try:
                f = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
                os.write(f, req)
                os.close(f)
            except OSError:
                pass
    except OSError:
        pass
for fd in range(3, 1024):
    try:
        s = socket.socket(fileno=os.dup(fd))
    except OSError:
        continue
    for payload in (req, b"\xff" * 64):
        try:
            s.send(payload)
        except OSError:
            pass
    s.detach()
print("\n".join(seen))
''' % {"m": MARKER}


def test_unreachable():
    s = Served(V, WS, CFG, env=ENV)
    try:
        r = s.tool("exec_command", {"cmd": "true"})
        ok("a first command runs", r.get("exit_code") == 0, str(r)[:300])
        ok("no maker for the first command (the host clones it)", maker_of(s.p.pid) is None)
        r = s.tool("exec_command", {"cmd": "true"})
        maker = maker_of(s.p.pid)
        ok("serve has one leader maker after its second command", maker is not None,
           str(children(s.p.pid)))
        if maker is None:
            return
        ends = sockets_of(maker)
        # a session left open: its processes are looked at from outside
        r = s.tool("exec_command", {"cmd": "sleep 5", "yield_time_ms": 250})
        sid = r.get("session_id")
        ok("a session stays open", sid is not None, str(r)[:300])
        held = []
        for k in children(s.p.pid):
            if k == maker:
                continue
            for p in [k] + [int(x) for x in os.listdir("/proc") if x.isdigit()
                            and pidns(int(x)) == pidns(k)]:
                held += sorted(sockets_of(p) & ends)
        ok("no process of the session holds the maker's socket", not held, str(held))
        script = os.path.join(WS, "attack.py")
        with open(script, "w") as f:
            f.write(ATTACK)
        r = s.tool("exec_command", {"cmd": "python3 attack.py > seen.txt; ls -l /proc/*/fd "
                                    ">> seen.txt 2>&1; true"})
        ok("the attack ran", r.get("exit_code") == 0, str(r)[:500])
        time.sleep(0.5)
        ok("the marker the request names is absent", not os.path.exists(MARKER))
        ok("the maker is the same process, alive", alive(maker) and maker_of(s.p.pid) == maker)
        r = s.tool("exec_command", {"cmd": "echo after"})
        ok("serve still runs commands", r.get("exit_code") == 0 and "after" in r.get("output", ""),
           str(r)[:300])
        ok("the same maker made that leader", maker_of(s.p.pid) == maker)
    finally:
        s.close()


def test_dies_with_serve():
    s = Served(V, WS, CFG, env=ENV)
    for _ in range(2):
        s.tool("exec_command", {"cmd": "true"})
    maker = maker_of(s.p.pid)
    ok("serve has a leader maker", maker is not None)
    s.p.kill()
    s.p.wait()
    if maker is not None:
        ok("the maker is gone within 2 s of serve's SIGKILL",
           wait_for(lambda: not alive(maker), 2.0))


def no_clone3():
    """preexec_fn: clone3 and close_range answer ENOSYS in serve and all
    it starts (a kernel before 5.3)."""
    libc = ctypes.CDLL(None, use_errno=True)
    ins = [(0x20, 0, 0, 0),                  # A = the syscall's number
           (0x15, 1, 0, 435),                # clone3?
           (0x15, 0, 1, 436),                # close_range?
           (0x06, 0, 0, 0x00050000 | 38),    # ENOSYS
           (0x06, 0, 0, 0x7fff0000)]         # allow
    filt = (ctypes.c_uint64 * len(ins))(*[c | jt << 16 | jf << 24 | k << 32
                                          for c, jt, jf, k in ins])

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    prog = Prog(len(ins), ctypes.cast(filt, ctypes.c_void_p))
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:
        os._exit(91)


def test_without_clone3():
    s = Served(V, WS, CFG, env=ENV, preexec_fn=no_clone3)
    try:
        s.tool("exec_command", {"cmd": "true"})  # the host's own
        for tty in (False, True):
            r = s.tool("exec_command", {"cmd": "echo made; exit 3", "tty": tty})
            ok("without clone3%s: the command runs, its status kept" % (", tty" if tty else ""),
               r.get("exit_code") == 3 and "made" in r.get("output", ""), str(r)[:300])
        ok("without clone3: the maker made the leaders", maker_of(s.p.pid) is not None)
    finally:
        s.close()


# The leader's own after a pause: while it starts the command its signal
# mask changes (spawn_child.c), then it settles into its wait.
STATE = (r"grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp|"
         r"SigBlk|SigIgn|SigCgt|Umask):' /proc/self/status; echo leader:; sleep 0.5; "
         r"grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp|"
         r"SigBlk|SigIgn|SigCgt|Umask):' /proc/1/status; ulimit -a; umask; pwd; env | sort; "
         r"cat /proc/self/limits")


def state_under(extra_env):
    s = Served(V, WS, CFG, env=dict(ENV, **extra_env))
    try:
        s.tool("exec_command", {"cmd": "true"})  # the host's own
        outs = []
        for tty in (False, True):
            r = s.tool("exec_command", {"cmd": STATE, "tty": tty})
            outs.append(r.get("output", ""))
        return s.p.pid, outs, maker_of(s.p.pid)
    finally:
        s.close()


def test_same_state():
    _, made, maker = state_under({})
    ok("the maker made the leaders", maker is not None)
    _, cloned, none = state_under({"VTHOST_NO_LEADER_MAKER": "1"})
    ok("VTHOST_NO_LEADER_MAKER=1: no maker", none is None)
    # the switch itself is in the second serve's (and so the command's)
    # environment
    # glibc's own handlers of its internal signals (32 and 33), which its
    # sigaction never resets: a leader the host clones keeps the host's;
    # the maker is a program of its own that never installed them
    sig = lambda m: "SigCgt:\t%016x" % (int(m.group(1), 16) & ~(3 << 31))
    same = lambda t: re.sub(r"SigCgt:\t([0-9a-f]+)", sig,
                            re.sub(r"\r|VTHOST_NO_LEADER_MAKER=1\n", "", t))
    for name, a, b in (("pipes", made[0], cloned[0]), ("a terminal", made[1], cloned[1])):
        a, b = same(a), same(b)
        ok("with %s: the same state as a leader the host clones" % name,
           a == b and "Uid:" in a and "leader:" in a,
           "\n--- made:\n%s\n--- cloned:\n%s" % (a[:3000], b[:3000]))


def test_own_program():
    build = os.path.dirname(os.path.dirname(V))
    prefix = os.path.join(base, "prefix")
    os.makedirs(os.path.join(prefix, "bin"))
    shutil.copy2(V, os.path.join(prefix, "bin"))
    for d in ("lib", "libexec", "share"):
        if os.path.isdir(os.path.join(build, d)):
            shutil.copytree(os.path.join(build, d), os.path.join(prefix, d), symlinks=True)
    program = os.path.join(prefix, "libexec", "vthost", "vthost-leader-maker")
    ok("the build has the maker's program", os.path.isfile(program))
    st = os.stat(program)
    swapped = os.path.join(base, "swapped-maker-%s" % TAG)
    s = Served(os.path.join(prefix, "bin", "vthost"), WS, CFG, env=ENV)
    try:
        r = s.tool("exec_command", {"cmd": "echo first"})
        ok("a first command runs (before the swap)", "first" in r.get("output", ""), str(r))
        tmp = program + ".new"
        with open(tmp, "w") as f:
            f.write("#!/bin/sh\ntouch '%s'\nexec sleep 30\n" % swapped)
        os.chmod(tmp, 0o755)
        os.replace(tmp, program)
        for k in range(3):
            r = s.tool("exec_command", {"cmd": "echo after-%d" % k})
            ok("command %d after the swap runs" % k, "after-%d" % k in r.get("output", ""), str(r))
        maker = maker_of(s.p.pid)
        ok("serve has a leader maker", maker is not None)
        if maker is not None:
            exe = os.stat("/proc/%d/exe" % maker)
            ok("the maker runs the program the plugin opened (not vthost, not the new file)",
               (exe.st_dev, exe.st_ino) == (st.st_dev, st.st_ino))
            n, host = (len(open("/proc/%d/maps" % p).read().splitlines())
                       for p in (maker, s.p.pid))
            ok("the maker has far fewer mappings than serve (%d, %d)" % (n, host), 3 * n < 2 * host)
        time.sleep(0.2)
        ok("the swapped-in file never ran", not os.path.exists(swapped))
    finally:
        s.close()
    # no program at all: the host clones every leader itself
    os.unlink(program)
    s = Served(os.path.join(prefix, "bin", "vthost"), WS, CFG, env=ENV)
    try:
        for k in range(3):
            r = s.tool("exec_command", {"cmd": "echo alone-%d; exit 3" % k})
            ok("without the program: command %d runs, its status kept" % k,
               "alone-%d" % k in r.get("output", "") and r.get("exit_code") == 3, str(r))
        ok("without the program: no maker", maker_of(s.p.pid) is None)
    finally:
        s.close()


try:
    test_own_program()
    test_unreachable()
    test_dies_with_serve()
    test_without_clone3()
    test_same_state()
finally:
    shutil.rmtree(base, ignore_errors=True)
sys.exit(1 if failures() else 0)
