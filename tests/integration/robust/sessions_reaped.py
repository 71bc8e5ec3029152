#!/usr/bin/env python3
"""Finished sessions nobody polls leave no zombie and hold no descriptor:
40 commands are left running past their yield, end on their own, and
within a second the server has no zombie child and is back to its base
descriptor count; each session's final output and exit code are still
reported by the next write_stdin, and then the session is gone.

usage: sessions_reaped.py VTHOST_BIN"""
import os, shutil, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_client import Server, sample, zombie_ages

BIN = sys.argv[1]
N = 40


def main():
    ws = tempfile.mkdtemp(prefix="vthost-reap-")
    with open(os.path.join(ws, "vtcode.toml"), "w") as f:
        f.write('[permissions]\nallow = ["exec_command", "write_stdin"]\n')
    s = Server(BIN, ws)
    fails = []
    s.call("exec_command", {"cmd": "true"})  # warm up (spool dir, plugin state)
    base = sample(s.p.pid)
    ids = []
    for i in range(N):
        r = s.call("exec_command", {"cmd": f"sleep 0.5; echo out-{i}; exit {i % 7}",
                                    "yield_time_ms": 10, "tty": i % 2 == 0})
        if "session_id" not in r:
            fails.append(f"call {i} did not outlive its yield: {r}")
            continue
        ids.append((i, r["session_id"]))
    during = sample(s.p.pid)
    time.sleep(2.0)  # every command has ended by now
    worst = 0.0
    for _ in range(10):  # one second of samples
        ages = zombie_ages(s.p.pid)
        worst = max([worst] + ages)
        time.sleep(0.1)
    after = sample(s.p.pid)
    print(f"base {base}\nwith {N} running {during}\nafter they ended {after}")
    if after["zombies"]:
        fails.append(f"{after['zombies']} zombies after the commands ended")
    if worst > 1.0:
        fails.append(f"a zombie lived {worst:.2f} s")
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
