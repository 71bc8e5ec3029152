#!/usr/bin/env python3
"""apply_patch through a running `vthost serve`: wall and CPU per call of
one build against another, the serve's CPU from wait4's rusage (the
whole server, start-up included: keep the calls in the hundreds).

    tests/bench/patch/serve_patch.py [--rounds R] [--calls N] [--lines L] VTHOST OLD_VTHOST

Each round starts one serve per build on a fresh workspace of one file
of L lines (default 50) and sends N one-chunk updates of that file to
each, the two builds in alternating order (A, B, then B, A, ...).
Prints each round's per-call figures and the medians over rounds of the
per-round ratios VTHOST / OLD_VTHOST.  The workspace is under $TMPDIR
(default /tmp): point it at the filesystem to measure.  Not a test:
prints figures only.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(HERE, "..", "..", "integration", "patch", "patch-only.ini")


def one_serve(vthost, calls, lines):
    """Per-call wall and CPU (ms) of `calls` patches through one serve."""
    base = tempfile.mkdtemp(prefix="vthost-serve-patch-")
    ws = os.path.join(base, "ws")
    os.makedirs(ws)
    with open(os.path.join(ws, "a.txt"), "w") as f:
        f.write("v0\n" + "line\n" * lines)
    conf = os.path.join(base, "vtcode.toml")
    with open(conf, "w") as f:
        f.write('[permissions]\nallow = ["apply_patch"]\n\n'
                '[tools.anti_blind_editing]\nenabled = false\n')
    env = dict(os.environ, XDG_STATE_HOME=base + "/state", XDG_CACHE_HOME=base + "/cache")
    srv = subprocess.Popen([vthost, "--workspace", ws, "--config", conf, "--profile", PROFILE,
                            "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                           env=env)
    next_id = [0]

    def rpc(method, params):
        next_id[0] += 1
        srv.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method,
                                    "params": params}) + "\n")
        srv.stdin.flush()
        while True:
            msg = json.loads(srv.stdout.readline())
            if msg.get("id") == next_id[0]:
                return msg

    rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "serve-patch-bench", "version": "1"}})
    srv.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    srv.stdin.flush()
    t0 = time.monotonic()
    for n in range(1, calls + 1):
        patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-v%d\n+v%d\n*** End Patch\n" % (
            n - 1, n)
        r = rpc("tools/call", {"name": "apply_patch", "arguments": {"input": patch}})
        if r.get("result", {}).get("isError") or "error" in r:
            raise SystemExit("serve_patch: call %d failed: %s" % (n, json.dumps(r)[:300]))
    wall = (time.monotonic() - t0) * 1e3 / calls
    srv.stdin.close()
    _, status, ru = os.wait4(srv.pid, 0)
    shutil.rmtree(base, ignore_errors=True)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("serve_patch: %s serve exited %d" % (vthost, status))
    return wall, (ru.ru_utime + ru.ru_stime) * 1e3 / calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--lines", type=int, default=50)
    ap.add_argument("vthost")
    ap.add_argument("old")
    a = ap.parse_args()
    walls, cpus = [], []
    for k in range(a.rounds):
        order = [a.vthost, a.old] if k % 2 == 0 else [a.old, a.vthost]
        got = {v: one_serve(v, a.calls, a.lines) for v in order}
        new, old = got[a.vthost], got[a.old]
        walls.append(new[0] / old[0])
        cpus.append(new[1] / old[1])
        print("round %d: new %.3f ms wall %.3f ms cpu, old %.3f ms wall %.3f ms cpu per call"
              % (k + 1, new[0], new[1], old[0], old[1]))
    print("new / old per apply_patch call: wall %.3f, cpu %.3f (medians of %d paired ratios)"
          % (statistics.median(walls), statistics.median(cpus), a.rounds))


if __name__ == "__main__":
    main()
