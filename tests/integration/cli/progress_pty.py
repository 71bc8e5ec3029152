#!/usr/bin/env python3
"""The progress line of `vthost call`: under a terminal (stderr a pty) a
3 s command shows "vthost: exec_command running, 2 s" and the line is
erased before the result; a 0 s command shows nothing; with stderr piped,
TERM=dumb, nothing; with NO_COLOR the line has no colour codes.
Usage: progress_pty.py VTHOST"""
import os, pty, select, subprocess, sys, tempfile

V = os.path.realpath(sys.argv[1])
T = tempfile.mkdtemp(prefix="vthost-progress-")
ws = os.path.join(T, "ws")
os.makedirs(os.path.join(T, "home"))
os.makedirs(ws)
cfg = os.path.join(ws, "vtcode.toml")
with open(cfg, "w") as f:
    f.write('[permissions]\nallow = ["exec_command(*)"]\n')
BASE = dict(os.environ, HOME=os.path.join(T, "home"), XDG_CONFIG_HOME=os.path.join(T, "home/.config"))
BASE.pop("VTHOST_PLUGIN_PATH", None)
BASE.pop("NO_COLOR", None)
BASE["TERM"] = "xterm"
fails = 0


def check(name, ok, detail=""):
    global fails
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        fails += 1


def run(cmd, env, tty):
    """Run a call; stderr to a pty (tty) or a pipe.  Returns (rc, stdout, stderr bytes)."""
    argv = [V, "--config", cfg, "call", "exec_command", '{"cmd":"%s"}' % cmd]
    if not tty:
        p = subprocess.run(argv, cwd=ws, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60)
        return p.returncode, p.stdout, p.stderr
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, cwd=ws, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    err = b""
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the last writer closed the pty
            break
        if not chunk:
            break
        err += chunk
    out = p.stdout.read()
    p.wait(timeout=30)
    os.close(master)
    return p.returncode, out, err


LINE = b"vthost: exec_command running, 2 s"
rc, out, err = run("sleep 3; echo slept", BASE, True)
check("tty: the call succeeds", rc == 0 and b"slept" in out, repr((rc, out, err)))
check("tty: the line appears after 2 s", LINE in err, repr(err))
check("tty: the line is dim (colour allowed)", b"\x1b[2m" in err, repr(err))
check("tty: the line is erased at the end", err.rstrip(b"\n").endswith(b"\r\x1b[K"), repr(err))

rc, out, err = run("echo quick", BASE, True)
check("tty: a short call shows nothing", rc == 0 and b"running" not in err, repr(err))

rc, out, err = run("sleep 3; echo slept", dict(BASE, NO_COLOR="1"), True)
check("NO_COLOR: the line appears", LINE in err, repr(err))
check("NO_COLOR: no colour codes", b"\x1b[2m" not in err and b"\x1b[0m" not in err, repr(err))

rc, out, err = run("sleep 3; echo slept", dict(BASE, TERM="dumb"), True)
check("TERM=dumb: no line", rc == 0 and b"running" not in err and b"\x1b" not in err, repr(err))

rc, out, err = run("sleep 3; echo slept", BASE, False)
check("piped: no line", rc == 0 and b"slept" in out and err == b"", repr(err))

subprocess.run(["rm", "-rf", T])
sys.exit(1 if fails else 0)
