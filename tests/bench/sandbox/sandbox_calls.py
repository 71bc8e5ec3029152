#!/usr/bin/env python3
"""Per-call cost of the sandbox (PID + mount namespace, read-only mounts,
no capabilities, seccomp, Landlock, pids cgroup) through one `vthost
serve`, for `true` and for `git status` in a 1,000-file repository:
sandboxed (workspace-write) against unsandboxed (danger-full-access),
and both against a bare fork/exec of `sh -c` from this script.

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


def serve_time(mode, cmd):
    with open(os.path.join(ws, "vtcode.toml"), "w") as f:
        f.write('[permissions]\nallow = ["exec_command"]\n[sandbox]\nmode = "%s"\n' % mode)
    p = subprocess.Popen([V, "--workspace", ws, "serve"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def rpc(i, method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                  "params": params}) + "\n")
        p.stdin.flush()
        while True:
            m = json.loads(p.stdout.readline())
            if m.get("id") == i:
                return m

    rpc(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "b", "version": "1"}})
    p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    args = {"name": "exec_command", "arguments": {"cmd": cmd, "shell": "/bin/sh"}}
    r = rpc(2, "tools/call", args)  # warm-up
    if '"exit_code": 0' not in json.dumps(r["result"].get("structuredContent", {})):
        sys.exit("warm-up failed: %s" % json.dumps(r)[:400])
    t = time.perf_counter()
    for k in range(N):
        rpc(3 + k, "tools/call", args)
    dt = time.perf_counter() - t
    p.stdin.close()
    p.wait()
    return dt


def bare_time(cmd):
    t = time.perf_counter()
    for _ in range(N):
        subprocess.run(["/bin/sh", "-c", cmd], cwd=ws, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def best(f, *a):
    return min(f(*a) for _ in range(3))


for cmd in ("true", "git status --short"):
    on = best(serve_time, "workspace-write", cmd)
    off = best(serve_time, "danger-full-access", cmd)
    bare = best(bare_time, cmd)
    print("%-20s sandboxed %.2f ms/call, unsandboxed %.2f ms/call, bare fork/exec %.2f ms/call"
          % (cmd, on / N * 1000, off / N * 1000, bare / N * 1000))
    print("%-20s ratio sandboxed/unsandboxed %.2fx, sandboxed/bare %.2fx (target <= 1.3x)"
          % (cmd, on / off, on / bare))
shutil.rmtree(base, ignore_errors=True)
