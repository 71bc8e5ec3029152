"""What the trust tests share: a scratch directory holding a workspace and
a home, an environment without the user's own configuration, and the
checks with their summary."""
import json
import os
import select
import shutil
import sys
import tempfile
import time

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


class LineClient:
    """A JSON-RPC client of `vthost serve` on stdio (`p`, a Popen with text
    pipes): one message a line.  `answer(m)` gives the result of a request
    the server sends (elicitation/create, roots/list, ...), or None to
    refuse it as unknown."""

    def __init__(self, p, answer=lambda m: None, timeout=60):
        self.p = p
        self.answer = answer
        self.timeout = timeout
        self.last_id = 0

    def send(self, m):
        self.p.stdin.write(json.dumps(m) + "\n")
        self.p.stdin.flush()

    def request(self, method, params):
        """The server's response to `method`, or {} when none came in time."""
        self.last_id += 1
        self.send({"jsonrpc": "2.0", "id": self.last_id, "method": method, "params": params})
        deadline = time.time() + self.timeout
        while time.time() < deadline:
            if not select.select([self.p.stdout], [], [], 1)[0]:
                continue
            line = self.p.stdout.readline()
            if not line:
                return {}
            m = json.loads(line)
            if m.get("method") and "id" in m:
                result = self.answer(m)
                if result is None:
                    self.send({"jsonrpc": "2.0", "id": m["id"],
                               "error": {"code": -32601, "message": "no"}})
                else:
                    self.send({"jsonrpc": "2.0", "id": m["id"], "result": result})
            elif m.get("id") == self.last_id:
                return m
        return {}
