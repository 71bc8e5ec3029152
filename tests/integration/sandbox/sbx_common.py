"""Set-up shared by the sandbox tests: the Landlock check (exit 77 where
the kernel has none), a scratch directory every user can enter, a tag that
makes this run's markers unique, trusted --config, and the ok/FAIL report."""
import ctypes
import os
import sys
import tempfile
import time

_failures = 0


def require_landlock():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(444, None, 0, 1) <= 0:  # landlock_create_ruleset(VERSION)
        print("SKIP: this kernel offers no Landlock")
        sys.exit(77)


def tag(modulo=100000):
    return "%d%d" % (os.getpid(), int(time.time()) % modulo)


def scratch_dir(prefix):
    """A fresh directory under /var/tmp (not /tmp, which the sandbox lets
    commands write), readable by the unprivileged CI user too."""
    base = tempfile.mkdtemp(prefix=prefix, dir="/var/tmp")
    os.chmod(base, 0o755)
    return base


def trusted_config(ws):
    """--config naming the workspace's own vtcode.toml: an explicit --config
    is trusted, so its allow rules apply (a workspace's own file alone only
    tightens)."""
    path = os.path.join(ws, "vtcode.toml")
    return ["--config", path] if os.path.exists(path) else []


def ok(name, cond, detail=""):
    global _failures
    if cond:
        print("ok   " + name)
    else:
        _failures += 1
        print("FAIL " + name + (": " + detail if detail else ""))


def failures():
    return _failures
