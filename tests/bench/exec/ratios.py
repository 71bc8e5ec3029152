#!/usr/bin/env python3
"""The per-call ratios of issue 42 (items 1-4) in one run, each against
its yardstick: paired, alternating runs (A, B, A, B, ...), the median of
the per-pair ratios, so that the load of a shared machine falls on both.

    tests/bench/exec/ratios.py [--runs N] [--codex PATH] [--files N] [VTHOST]
    tests/bench/exec/ratios.py --against OLD_VTHOST [--runs N] [--files N] [VTHOST]

  one-shot   `vthost call --approval sandboxed exec_command '{"cmd":"true"}'`
             against `codex sandbox -c sandbox_mode="workspace-write" --
             sh -c true` (when a codex binary is given with --codex or
             found on PATH; goal <= 0.25x), and against the namespaces
             alone, `unshare -m -p -n -i -u --fork /bin/true` (and
             `bwrap` over / with the same namespaces where installed)
  serve      one `exec_command true` through a running `vthost serve`
             (MCP on stdio) against the same `unshare` (goal <= 1.0x)
  100k       the one-shot call in a git repository of N files (default
             100,000: 10 per directory) against the same in an empty
             one (goal <= 1.5x)
  start-up   `vthost tools` against /bin/true (goal <= 1.5x)

With --against, the same workloads run paired against an older build
instead (new / old), to show what a change moved.

Every workspace has its own empty XDG_CONFIG_HOME/XDG_CACHE_HOME/
XDG_STATE_HOME; one untimed run of each command comes first (the index
cache written, the pages in).  Not a test: prints figures only.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CALL = ["call", "--approval", "sandboxed", "exec_command", '{"cmd":"true"}']
FLOOR = ["unshare", "-m", "-p", "-n", "-i", "-u", "--fork", "/bin/true"]


def timed(argv, cwd, env):
    t = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1e3


def paired(label, a, b, runs, goal):
    """a, b: callables returning milliseconds; prints medians and ratio."""
    a(), b()
    ta, tb, ratios = [], [], []
    for _ in range(runs):
        x, y = a(), b()
        ta.append(x)
        tb.append(y)
        ratios.append(x / y)
    r = statistics.median(ratios)
    mark = "" if goal is None else f"  (goal <= {goal}x: {'met' if r <= goal else 'NOT met'})"
    print(f"  {label:58s} {statistics.median(ta):8.2f} ms / {statistics.median(tb):8.2f} ms"
          f"  = {r:5.2f}x{mark}", flush=True)


def settle_listing(vt, ws, env):
    """`vthost tools` replays a cached listing, but stores none while a
    file it is made from changed in the last two seconds (the workspace's
    .vtcode/, made by the first call a moment ago): wait that out and
    store it, so the row times the start-up a user sees, not the bench's
    own fresh directories."""
    time.sleep(2.1)
    timed([vt, "tools"], ws, env)


def scratch(root, name, files=0):
    ws = os.path.join(root, name)
    env = dict(os.environ)
    for k in ("CONFIG", "CACHE", "STATE"):
        d = os.path.join(root, f"{name}-{k.lower()}")
        os.makedirs(d)
        env[f"XDG_{k}_HOME"] = d
    os.makedirs(ws)
    subprocess.run(["git", "init", "-q", ws], check=True)
    for d in range(files // 10):
        p = os.path.join(ws, f"d{d // 100}", f"d{d}")
        os.makedirs(p)
        for f in range(10):
            open(os.path.join(p, f"f{f}.c"), "w").close()
    return ws, env


class Serve:
    """One `vthost serve` on stdio; call() times one exec_command true."""

    def __init__(self, vt, ws, env, wrap=()):
        """wrap: a command (and its options) that runs the server, such as
        `perf stat ...`."""
        self.p = subprocess.Popen([*wrap, vt, "--approval", "sandboxed", "serve"], cwd=ws, env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.id = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "ratios", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def rpc(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("vthost serve ended early")
            msg = json.loads(line)
            if msg.get("id") == self.id:
                return msg

    def call(self):
        t = time.perf_counter()
        r = self.rpc("tools/call", {"name": "exec_command", "arguments": {"cmd": "true"}})
        ms = (time.perf_counter() - t) * 1e3
        if "error" in r or r["result"].get("isError"):
            sys.exit(f"exec_command through serve failed: {r}")
        return ms

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def against(new, old, a):
    """The same workloads, a new build against an old one (new / old)."""
    root = tempfile.mkdtemp(prefix="vthost-ratios-")
    try:
        empty, eenv = scratch(root, "empty")
        print(f"{new} against {old}: medians of {a.runs} paired runs (new / old)")
        paired("one-shot call, empty workspace", lambda: timed([new] + CALL, empty, eenv),
               lambda: timed([old] + CALL, empty, eenv), a.runs, None)
        sn, so = Serve(new, empty, eenv), Serve(old, empty, eenv)
        try:
            paired("serve exec_command true", sn.call, so.call, a.runs, None)
        finally:
            sn.close()
            so.close()
        settle_listing(new, empty, eenv)
        settle_listing(old, empty, eenv)
        paired("vthost tools", lambda: timed([new, "tools"], empty, eenv),
               lambda: timed([old, "tools"], empty, eenv), a.runs, None)
        if a.files:
            big, benv = scratch(root, "big", a.files)
            paired(f"one-shot call, {a.files} files", lambda: timed([new] + CALL, big, benv),
                   lambda: timed([old] + CALL, big, benv), a.runs, None)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("vthost", nargs="?", default=os.path.join(here, "../../../build/bin/vthost"))
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--codex", default=shutil.which("codex"))
    ap.add_argument("--files", type=int, default=100000)
    ap.add_argument("--against", metavar="OLD_VTHOST",
                    help="instead: this build against an older one, row by row")
    a = ap.parse_args()
    if a.against:
        return against(os.path.realpath(a.vthost), os.path.realpath(a.against), a)
    vt = os.path.realpath(a.vthost)
    root = tempfile.mkdtemp(prefix="vthost-ratios-")
    try:
        empty, eenv = scratch(root, "empty")
        call = lambda ws, env: (lambda: timed([vt] + CALL, ws, env))
        floor = lambda: timed(FLOOR, empty, eenv)
        print(f"{vt}: medians of {a.runs} paired runs (A / B = ratio)")
        if a.codex:
            cx = [a.codex, "sandbox", "-c", 'sandbox_mode="workspace-write"', "--",
                  "sh", "-c", "true"]
            cenv = dict(eenv, HOME=os.path.join(root, "codex-home"))
            os.makedirs(cenv["HOME"])
            paired("one-shot call / codex sandbox (workspace-write)", call(empty, eenv),
                   lambda: timed(cx, empty, cenv), a.runs, 0.25)
        else:
            print("  (no codex binary: --codex PATH; the codex row is left out)")
        paired("one-shot call / unshare -mpniu --fork /bin/true", call(empty, eenv), floor,
               a.runs, None)
        if shutil.which("bwrap"):
            bw = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev",
                  "--proc", "/proc", "--bind", empty, empty, "--", "sh", "-c", "true"]
            paired("one-shot call / bwrap --unshare-all sh -c true", call(empty, eenv),
                   lambda: timed(bw, empty, eenv), a.runs, None)
        s = Serve(vt, empty, eenv)
        try:
            paired("serve exec_command true / unshare floor", s.call, floor, a.runs, 1.0)
        finally:
            s.close()
        settle_listing(vt, empty, eenv)
        paired("vthost tools / /bin/true", lambda: timed([vt, "tools"], empty, eenv),
               lambda: timed(["/bin/true"], empty, eenv), a.runs, 1.5)
        if a.files:
            big, benv = scratch(root, "big", a.files)
            paired(f"one-shot call, {a.files} files / empty workspace", call(big, benv),
                   call(empty, eenv), a.runs, 1.5)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
