#!/usr/bin/env python3
"""Per-call cost of the full sandbox (PID + mount namespace, read-only
mounts, no capabilities, seccomp, Landlock, pids cgroup, run-time execve
checks) through `vthost serve`, for `true` and for `git status` in a
generated 1,000-file repository: sandboxed (workspace-write) against
unsandboxed (danger-full-access, same host, same run-time checks), and
both against a bare fork/exec of `sh -c` from this script.

The three are measured interleaved, call by call (two serve processes
live side by side), so that the load of a shared machine falls on all of
them alike; medians and the 25th percentile are printed with the ratios.

    tests/bench/sandbox/sandbox_calls.py build/bin/vthost [calls]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

V = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100
base = tempfile.mkdtemp(prefix="vthost-bench-sbx-", dir="/var/tmp")
ws = os.path.join(base, "ws")
os.makedirs(ws)
for i in range(1000):
    d = os.path.join(ws, "src", "d%02d" % (i // 50))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%04d.txt" % i), "w") as f:
        f.write("line %d\n" % i)
env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
           GIT_COMMITTER_EMAIL="b@b")
subprocess.run("git init -q && git add -A && git commit -qm init", shell=True, cwd=ws,
               env=env, check=True)


class Serve:
    def __init__(self, mode):
        # An explicit --config is trusted: its allow rule applies.
        cfg = os.path.join(base, mode + ".toml")
        with open(cfg, "w") as f:
            f.write('[permissions]\nallow = ["exec_command"]\n[sandbox]\nmode = "%s"\n' % mode)
        self.p = subprocess.Popen([V, "--workspace", ws, "--config", cfg, "serve"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        self.id = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "b", "version": "1"}})
        self.p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def rpc(self, method, params):
        self.id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            m = json.loads(self.p.stdout.readline())
            if m.get("id") == self.id:
                return m

    def call(self, cmd):
        r = self.rpc("tools/call", {"name": "exec_command",
                                    "arguments": {"cmd": cmd, "shell": "/bin/sh"}})
        sc = r.get("result", {}).get("structuredContent", {})
        if sc.get("exit_code") != 0:
            sys.exit("call failed: %s" % json.dumps(r)[:400])

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def timed(f, *a):
    t = time.perf_counter()
    f(*a)
    return (time.perf_counter() - t) * 1000


def bare(cmd):
    subprocess.run(["/bin/sh", "-c", cmd], cwd=ws, stdout=subprocess.DEVNULL)


def stats(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2], xs[len(xs) // 4]


on, off = Serve("workspace-write"), Serve("danger-full-access")
for cmd in ("true", "git status --short"):
    on.call(cmd)  # warm-up
    off.call(cmd)
    t_on, t_off, t_bare = [], [], []
    for _ in range(N):
        t_on.append(timed(on.call, cmd))
        t_off.append(timed(off.call, cmd))
        t_bare.append(timed(bare, cmd))
    (m_on, q_on), (m_off, q_off), (m_bare, q_bare) = stats(t_on), stats(t_off), stats(t_bare)
    print("%-20s median ms/call: sandboxed %.2f, unsandboxed %.2f, bare fork/exec %.2f "
          "(25th pct %.2f, %.2f, %.2f)" % (cmd, m_on, m_off, m_bare, q_on, q_off, q_bare))
    print("%-20s ratio sandboxed/unsandboxed %.2fx (25th pct %.2fx; target <= 1.3x), "
          "sandboxed/bare %.2fx" % (cmd, m_on / m_off, q_on / q_off, m_on / m_bare))
on.close()
off.close()
shutil.rmtree(base, ignore_errors=True)
