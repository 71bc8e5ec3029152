#!/usr/bin/env python3
"""code_search's content index: what the first call (no index yet: it is
made) and a later call (the index complete and used) cost against the
same call with the index off, whole processes, paired and alternating; the ratio is the
median over rounds of each call's time over the index-off call's in the
same round.  CPU is user + system from wait4.  Also the index's size.

  index_cost.py VTHOST TREE QUERY [ROUNDS] [RESULT_TYPES]

RESULT_TYPES: "text" (default) or "all".
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

vthost, tree, query = sys.argv[1], sys.argv[2], sys.argv[3]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 9
kind = sys.argv[5] if len(sys.argv) > 5 else "text"
args = {"query": query, "max_results": 100}
if kind == "text":
    args["result_types"] = ["text"]
work = tempfile.mkdtemp(prefix="cs_ixcost_")
# cold: its index removed before each call; warm: kept from call to call.
caches = {m: os.path.join(work, "cache-" + m) for m in ("off", "cold", "warm")}
state = os.path.join(work, "state")
argv = [vthost, "--workspace", tree, "--profile", "advanced", "call", "code_search",
        json.dumps(args)]


def index_files(mode):
    d = os.path.join(caches[mode], "vthost")
    if not os.path.isdir(d):
        return []
    return [os.path.join(d, n) for n in os.listdir(d) if n.startswith("code_search-")]


def run(mode):
    e = dict(os.environ, XDG_CACHE_HOME=caches[mode], XDG_STATE_HOME=state,
             VTHOST_CODE_SEARCH_INDEX="off" if mode == "off" else "on")
    if mode == "cold":
        for f in index_files(mode):
            os.unlink(f)
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=e, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _pid, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        raise SystemExit(f"{mode}: exit status {status}")
    return wall, ru.ru_utime + ru.ru_stime, out


try:
    run("cold")  # the workspace index and the page cache warmed
    # Each search enters a share of what it reads: search until the
    # index stops growing.
    calls, last = 0, -1
    while calls < 40:
        run("warm")
        calls += 1
        size = sum(os.path.getsize(f) for f in index_files("warm"))
        if size == last:
            break
        last = size
    outs = {}
    res = {m: [] for m in ("off", "cold", "warm")}
    for r in range(rounds):
        order = ["off", "cold", "warm"] if r % 2 == 0 else ["cold", "warm", "off"]
        for m in order:
            w, c, out = run(m)
            res[m].append((w, c))
            outs.setdefault(m, out)
            if outs[m] != out:
                raise SystemExit(f"{m}: the output changed between rounds")
    if len({outs[m] for m in outs}) != 1:
        raise SystemExit("the outputs differ between off, cold and warm")
    size = sum(os.path.getsize(f) for f in index_files("warm"))
    print(f"{os.path.basename(tree.rstrip('/'))} {query!r} {kind}, {rounds} rounds; "
          f"index {size / 1e6:.2f} MB, complete after {calls - 1} calls; outputs identical")
    for m in ("off", "cold", "warm"):
        wm = statistics.median(x[0] for x in res[m]) * 1e3
        cm = statistics.median(x[1] for x in res[m]) * 1e3
        line = f"  {m:5} wall {wm:7.1f} ms  cpu {cm:7.1f} ms"
        if m != "off":
            rw = statistics.median(a[0] / b[0] for a, b in zip(res[m], res["off"]))
            rc = statistics.median(a[1] / b[1] for a, b in zip(res[m], res["off"]))
            line += f"   vs off: wall {rw:.2f}x  cpu {rc:.2f}x"
        print(line)
finally:
    shutil.rmtree(work, ignore_errors=True)
