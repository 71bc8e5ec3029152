"""What the trust tests share: a scratch directory holding a workspace and
a home, an environment without the user's own configuration, and the
checks with their summary."""
import os
import shutil
import sys
import tempfile

_failures = 0
_count = 0


def scratch(prefix, keep_state=True):
    """(root, ws, home, env): root a new directory with ws and home made in
    it; env is this process's environment without XDG_CONFIG_HOME (and
    without XDG_STATE_HOME unless keep_state), HOME set to home."""
    root = os.path.realpath(tempfile.mkdtemp(prefix=prefix))
    ws = os.path.join(root, "ws")
    home = os.path.join(root, "home")
    os.makedirs(ws)
    os.makedirs(home)
    drop = ("XDG_CONFIG_HOME",) if keep_state else ("XDG_CONFIG_HOME", "XDG_STATE_HOME")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["HOME"] = home
    return root, ws, home, env


def check(name, ok, detail=""):
    """One line per check: ok, or FAIL with what was seen."""
    global _failures, _count
    _count += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"[:3000]))
    _failures += 0 if ok else 1


def finish(what, root):
    """The summary, the scratch directory removed, the exit status."""
    print(f"{_count - _failures}/{_count} {what} checks passed")
    shutil.rmtree(root, ignore_errors=True)
    sys.exit(1 if _failures else 0)
