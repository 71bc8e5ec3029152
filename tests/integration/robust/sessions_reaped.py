#!/usr/bin/env python3
"""Finished sessions nobody polls leave no zombie and hold no descriptor:
60 commands are left running past their yield and all end at the same
moment (they wait for a file the test creates), while the server is
busy with other calls; no process stays a zombie for a second (sampled
every 50 ms from the first start to the end), and the server is back to
its base descriptor count; each session's final output and exit code are
still reported by the next write_stdin, and then the session is gone.

usage: sessions_reaped.py VTHOST_BIN"""
import os, shutil, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_client import Server, ZombieWatch, sample

BIN = sys.argv[1]
N = 60


def main():
    ws = tempfile.mkdtemp(prefix="vthost-reap-")
    with open(os.path.join(ws, "vtcode.toml"), "w") as f:
        f.write('[permissions]\nallow = ["exec_command", "write_stdin"]\n')
    s = Server(BIN, ws)
    fails = []
    s.call("exec_command", {"cmd": "true"})  # warm up (spool dir, plugin state)
    base = sample(s.p.pid)
    watch = ZombieWatch(s.p.pid)
    go = os.path.join(ws, "go")
    ids = []
    for i in range(N):
        r = s.call("exec_command", {"cmd": f"while [ ! -e go ]; do sleep 0.02; done; echo out-{i}; exit {i % 7}",
                                    "yield_time_ms": 10, "tty": i % 2 == 0})
        if "session_id" not in r:
            fails.append(f"call {i} did not outlive its yield: {r}")
            continue
        ids.append((i, r["session_id"]))
    during = sample(s.p.pid)
    open(go, "w").close()  # every command ends now
    t_go = time.time()
    # load while they end: calls with large outputs on the same server
    while time.time() - t_go < 2.0:
        s.call("exec_command", {"cmd": "head -c 300000 /dev/zero | tr '\\0' x", "max_output_tokens": 100})
    time.sleep(1.0)
    worst = watch.close()
    after = sample(s.p.pid)
    print(f"base {base}\nwith {N} running {during}\nafter they ended {after}\n"
          f"{watch.count()} children of the server seen as zombies, the longest for {worst:.2f} s "
          f"({len(watch.inner)} zombies seen further down)")
    if during["children"] < N:
        fails.append(f"only {during['children']} session processes while {N} should run")
    if after["zombies"]:
        fails.append(f"{after['zombies']} zombies after the commands ended")
    if worst > 1.0:
        fails.append(f"a child of the server stayed a zombie for {worst:.2f} s")
    if after["fds"] > base["fds"] + 2:
        fails.append(f"descriptors: {after['fds']} after, {base['fds']} before")
    for i, sid in ids:
        r = s.call("write_stdin", {"session_id": sid, "chars": "", "yield_time_ms": 1000})
        if r.get("exit_code") != i % 7 or f"out-{i}" not in r.get("output", ""):
            fails.append(f"session {sid}: {r}")
        r = s.request("tools/call", {"name": "write_stdin",
                                     "arguments": {"session_id": sid, "chars": ""}})
        if not r.get("result", {}).get("isError"):
            fails.append(f"session {sid} still there after its exit was reported")
    end = sample(s.p.pid)
    print(f"after polling them {end}")
    rc, log = s.close()
    if rc != 0 or "Sanitizer" in log or "runtime error" in log:
        fails.append(f"server exit {rc}: {log[-2000:]}")
    shutil.rmtree(ws, ignore_errors=True)
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)


main()
